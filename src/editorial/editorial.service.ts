import { randomUUID } from 'node:crypto';
import type { Db, Trx } from '../platform/db/schema.js';
import type { AreaDeps } from '../platform/area.js';
import type { RequestContext } from '../platform/auth/context.js';
import { ApiError, FailedPrecondition, InvalidArgument, renderError } from '../platform/errors.js';
import type { Row } from '../platform/resource/declaration.js';
import type { ResourceService, TransactionScope } from '../platform/resource/engine.js';
import { agentInstruction, findInstructionVersionContent, instructionActiveVersion, placeholdersOf } from '../ai/index.js';
import { websiteDisplayName } from '../websites/index.js';
import { findPostRow as loadPost } from '../blog/index.js';
import { loadBacklogItem, setBacklogState } from './editorial.repo.js';
import type { Plan } from './editorial-plan.resource.js';

export const SOURCE_MODULE = 'editorial';
/** Post fields a drafting run writes, by the key of its JSON output. */
export const DRAFT_FIELDS: Record<string, string> = {
  title: 'title',
  excerpt: 'custom_excerpt',
  content: 'content',
  meta_title: 'meta_title',
  meta_description: 'meta_description',
  og_title: 'og_title',
  og_description: 'og_description',
};

export const entryName = (websiteId: string, id: string) => `websites/${websiteId}/editorial_calendar_entries/${id}`;
export const runName = (accountId: string, id: string) => `accounts/${accountId}/ai_executions/${id}`;

/** A context for writes the platform makes by itself (the automation, a run's follow-up). */
export function platformContext(accountId: string, websiteId: string, agent?: string): RequestContext {
  return {
    requestId: `editorial_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
    caller: { userId: 'platform' },
    now: Date.now(),
    access: { accountId, websiteId, role: 'roles/administrator', administrator: true },
    ...(agent && { agent }),
  };
}

/** A TransactionScope over a hook's transaction: side effects join the hook's own after-commit list. */
export function scopeOf(trx: Trx, afterCommit: (fn: () => void | Promise<void>) => void): TransactionScope {
  const pending = { push: (...fns: Array<() => void | Promise<void>>) => (fns.forEach((fn) => afterCommit(fn)), 0) };
  return { trx, afterCommit: pending as unknown as Array<() => void | Promise<void>> };
}

/** An ApiError in the canonical error-body shape (stored as `last_error`). */
export function errorBody(error: ApiError): Record<string, unknown> {
  return renderError(error, `editorial_${randomUUID().replace(/-/g, '').slice(0, 20)}`).error as unknown as Record<string, unknown>;
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

export interface EditorialDeps {
  deps: AreaDeps;
  posts: () => ResourceService;
  executions: () => ResourceService;
}

/**
 * The values an agent's instruction may use, filled only where it uses them: an account that adapts
 * the shipped instruction may drop variables, and a run must fill exactly the ones it uses. A
 * variable outside this set cannot be filled: FAILED_PRECONDITION naming it.
 */
async function variablesFor(db: Db | Trx, accountId: string, agentId: string, field: string, available: Record<string, string>): Promise<Record<string, string>> {
  const agent = await agentInstruction(db, accountId, agentId);
  if (!agent) throw new FailedPrecondition('AGENT_MISSING', `the plan's ${field} ${agentId} is no longer an agent of this account`);
  const instruction = await instructionActiveVersion(db, accountId, agent.instruction_id);
  const version = agent.instruction_version ?? instruction?.active_version;
  const row = version === undefined || version === null
    ? undefined
    : await findInstructionVersionContent(db, agent.instruction_id, version);
  const used = row ? placeholdersOf(row.content) : [];
  const unknown = used.filter((name) => !Object.hasOwn(available, name));
  if (unknown.length) {
    throw new FailedPrecondition('UNKNOWN_VARIABLE', `the instruction of ${field} ${agentId} uses ${unknown.map((n) => `{{${n}}}`).join(', ')}; editorial runs fill only ${Object.keys(available).map((n) => `{{${n}}}`).join(', ')}`);
  }
  return Object.fromEntries(used.map((name) => [name, available[name]]));
}

export function createEditorialService(e: EditorialDeps) {
  const { database } = e.deps;
  const { dialect } = database;

  async function websiteName(db: Db | Trx, websiteId: string): Promise<string> {
    const row = await websiteDisplayName(db, websiteId);
    return text(row?.display_name);
  }

  /** Creates an `ai_executions` run for an entry inside `tx` (so it exists only if the entry says so). */
  async function startRun(ctx: RequestContext, tx: TransactionScope, entry: Row, agentId: string, field: string, variables: Record<string, string>, step: string, metadata: Row = {}): Promise<string> {
    const filled = await variablesFor(tx.trx, entry.account_id, agentId, field, variables);
    const run = await e.executions().insert(ctx, tx, { account_id: entry.account_id }, {
      agent_id: agentId,
      input: { variables: filled },
      source_module: SOURCE_MODULE,
      source_id: entryName(entry.website_id, entry.id),
      metadata: { step, ...metadata },
    });
    return String(run.id);
  }

  async function draftingVariables(db: Db | Trx, entry: Row, post: Row | undefined): Promise<Record<string, string>> {
    const item = await loadBacklogItem(db, entry.website_id, entry.backlog_item_id);
    return {
      website_name: await websiteName(db, entry.website_id),
      topic: text(item?.topic ?? post?.title),
      brief: text(item?.brief),
      keywords: (dialect.readJson<string[]>(item?.keywords) ?? []).join(', '),
      current_title: text(post?.title),
      current_content: text(post?.content),
    };
  }

  /**
   * `:materialize` (and the automation's): with a drafting agent, starts a drafting run (DRAFTING;
   * its follow-up writes the post); without one, creates a DRAFT post from the backlog item at once
   * (DRAFTED). Mutates `next` (the entry, locked by the caller).
   */
  async function materialize(ctx: RequestContext, tx: TransactionScope, next: Row, plan: Plan): Promise<void> {
    if (!['PLANNED', 'DRAFTED', 'REJECTED', 'FAILED', 'APPROVED'].includes(next.state)) {
      throw new FailedPrecondition('ENTRY_NOT_MATERIALIZABLE', `an entry ${next.state} cannot be materialized (PLANNED, DRAFTED, APPROVED, REJECTED or FAILED only)`);
    }
    const post = await loadPost(tx.trx, dialect, next.website_id, next.post_id);
    Object.assign(next, { last_error: null, failed_step: null, skipped_fields: null, verdict: null, approval: null });
    if (plan.draftingAgentId) {
      next.drafting_execution_id = await startRun(ctx, tx, next, plan.draftingAgentId, 'drafting_agent_id', await draftingVariables(tx.trx, next, post), 'DRAFTING');
      next.state = 'DRAFTING';
      return;
    }
    if (!post) {
      const item = await loadBacklogItem(tx.trx, next.website_id, next.backlog_item_id);
      if (!item) throw new FailedPrecondition('NO_BACKLOG_ITEM', 'the entry holds no backlog item to draft from and the plan has no drafting agent');
      const created = await e.posts().insert({ ...ctx, agent: entryName(next.website_id, next.id) }, tx, { website_id: next.website_id }, {
        title: item.topic,
        ...(item.brief && { content: `<p>${escapeHtml(item.brief)}</p>` }),
        ...postDefaults(plan, item),
      });
      next.post_id = created.id;
    }
    next.state = 'DRAFTED';
  }

  function postDefaults(plan: Plan, item: Row | undefined): Record<string, unknown> {
    const categories = [...plan.defaultCategoryIds];
    if (item?.category_id && !categories.includes(item.category_id)) categories.push(item.category_id);
    return {
      ...(plan.defaultAuthorId && { author_ids: [plan.defaultAuthorId] }),
      ...(categories.length && { category_ids: categories }),
      ...(plan.defaultVisibleViewIds.length && { visible_view_ids: plan.defaultVisibleViewIds }),
    };
  }

  /** `:review`: starts a review run of the entry's post (IN_REVIEW). */
  async function review(ctx: RequestContext, tx: TransactionScope, next: Row, plan: Plan): Promise<void> {
    if (!plan.reviewAgentId) throw new FailedPrecondition('NO_REVIEW_AGENT', 'the plan names no review_agent_id');
    if (['DRAFTING', 'IN_REVIEW', 'SCHEDULED', 'PUBLISHED', 'PLANNED'].includes(next.state)) {
      throw new FailedPrecondition('ENTRY_NOT_REVIEWABLE', `an entry ${next.state} cannot be reviewed`);
    }
    const post = await loadPost(tx.trx, dialect, next.website_id, next.post_id);
    if (!post) throw new FailedPrecondition('NO_POST', 'the entry has no post to review; :materialize it first');
    const item = await loadBacklogItem(tx.trx, next.website_id, next.backlog_item_id);
    next.review_execution_id = await startRun(ctx, tx, next, plan.reviewAgentId, 'review_agent_id', {
      website_name: await websiteName(tx.trx, next.website_id),
      topic: text(item?.topic),
      brief: text(item?.brief),
      keywords: (dialect.readJson<string[]>(item?.keywords) ?? []).join(', '),
      title: text(post.title),
      excerpt: text(post.custom_excerpt),
      content: text(post.content),
    }, 'REVIEW', { post_revision: Number(post.revision) });
    Object.assign(next, { state: 'IN_REVIEW', last_error: null, failed_step: null, verdict: null, approval: null });
  }

  /** Why `:publish` may not go ahead now, or undefined. */
  function publishRefusal(entry: Row, post: Row | undefined, plan: Plan): FailedPrecondition | undefined {
    if (!post) return new FailedPrecondition('NO_POST', 'the entry has no post yet; :materialize it first');
    if (['DRAFTING', 'IN_REVIEW'].includes(entry.state)) return new FailedPrecondition('RUN_IN_PROGRESS', `the entry is ${entry.state}; wait for its run to end`);
    if (entry.state === 'REJECTED') return new FailedPrecondition('REJECTED', 'the latest review or a person rejected the post; re-materialize, :review again or :approve it');
    if (entry.state === 'FAILED') return new FailedPrecondition('ENTRY_FAILED', 'the entry failed; :retry it first');
    if (!plan.requirePassingVerdict) return undefined;
    const verdict = dialect.readJson<Row>(entry.verdict);
    if (verdict?.passed === true && Number(verdict.post_revision) === Number(post.revision)) return undefined;
    const approval = dialect.readJson<Row>(entry.approval);
    if (plan.allowPersonApproval && approval && Number(approval.post_revision) === Number(post.revision)) return undefined;
    if (verdict?.passed === true || approval) {
      return new FailedPrecondition('VERDICT_STALE', 'the post changed since it was reviewed or approved; :review or :approve it again');
    }
    return new FailedPrecondition(
      'VERDICT_REQUIRED',
      plan.allowPersonApproval
        ? 'the plan requires a passing review verdict or a person\'s :approve for the post as it stands'
        : 'the plan requires a passing review verdict for the post as it stands (a person\'s approval is not allowed to stand in)',
    );
  }

  /**
   * `:publish`: the post goes out at the entry's slot (SCHEDULED through the blog's own scheduling)
   * or now when the slot has passed (PUBLISHED); the backlog item becomes USED.
   */
  async function publish(ctx: RequestContext, tx: TransactionScope, next: Row, plan: Plan): Promise<void> {
    if (next.state === 'SCHEDULED' || next.state === 'PUBLISHED') return;
    const post = await loadPost(tx.trx, dialect, next.website_id, next.post_id, true);
    const refusal = publishRefusal(next, post, plan);
    if (refusal) throw refusal;
    const future = Number(next.slot_time) > ctx.now;
    const params = { website_id: next.website_id, blog_post_id: post!.id };
    if (post!.state !== 'PUBLISHED') {
      await e.posts().update(ctx, params, future ? { state: 'SCHEDULED', publish_time: new Date(Number(next.slot_time)).toISOString() } : { state: 'PUBLISHED' }, { tx });
    }
    next.state = future && post!.state !== 'PUBLISHED' ? 'SCHEDULED' : 'PUBLISHED';
    await setBacklogState(tx.trx, next.website_id, next.backlog_item_id, ['SCHEDULED', 'READY', 'PROPOSED'], 'USED', ctx.now);
    if (next.state === 'SCHEDULED') {
      await e.deps.operations.enqueue(tx.trx, { type: MARK_PUBLISHED, accountId: next.account_id, websiteId: next.website_id, payload: { entry_id: next.id, slot_time: Number(next.slot_time) }, step: 'WAITING_FOR_SLOT', runAfter: Number(next.slot_time) }, ctx.now);
    }
  }

  /**
   * The drafting run's JSON as post fields, or INVALID_ARGUMENT naming what is wrong: an object whose
   * `title` and `content` are non-empty strings; other known keys strings when present.
   */
  function draftFields(output: unknown): Record<string, string> {
    const json = (output as Row | undefined)?.json;
    if (!json || typeof json !== 'object' || Array.isArray(json)) throw InvalidArgument.field('output.json', 'the drafting run answered no JSON object');
    const fields: Record<string, string> = {};
    for (const [key, column] of Object.entries(DRAFT_FIELDS)) {
      const value = (json as Row)[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw InvalidArgument.field(`output.json.${key}`, 'must be a string');
      fields[column] = value;
    }
    for (const key of ['title', 'content']) {
      if (!fields[DRAFT_FIELDS[key]]?.trim()) throw InvalidArgument.field(`output.json.${key}`, 'is required in the drafting output');
    }
    return fields;
  }

  /**
   * A drafting run succeeded: writes the post through the blog's own service (validation, sanitising,
   * url_key, revisions, provenance) as the run, skipping every field whose current value a person
   * wrote; answers the skipped fields. Creates the post when the entry has none.
   */
  async function applyDraft(ctx: RequestContext, tx: TransactionScope, entry: Row, exec: Row, plan: Plan): Promise<string[]> {
    const fields = draftFields(dialect.readJson(exec.output));
    // The service is below the HTTP layer's JSON Schema: the declared bounds are checked here, from the same declaration.
    for (const [name, value] of Object.entries(fields)) {
      const field = e.posts().decl.fields[name];
      if (field?.maxLength !== undefined && value.length > field.maxLength) throw InvalidArgument.field(name, `the drafting run wrote ${value.length} characters; at most ${field.maxLength}`);
    }
    const runCtx = { ...ctx, agent: runName(exec.account_id, exec.id) };
    const post = await loadPost(tx.trx, dialect, entry.website_id, entry.post_id, true);
    if (!post) {
      const item = await loadBacklogItem(tx.trx, entry.website_id, entry.backlog_item_id);
      const created = await e.posts().insert(runCtx, tx, { website_id: entry.website_id }, { ...fields, ...postDefaults(plan, item) });
      entry.post_id = created.id;
      return [];
    }
    const provenance = dialect.readJson<Record<string, string>>(post.field_provenance) ?? {};
    const skipped = Object.keys(fields).filter((f) => provenance[f]?.startsWith('users/'));
    const body = Object.fromEntries(Object.entries(fields).filter(([f]) => !skipped.includes(f)));
    if (Object.keys(body).length) await e.posts().update(runCtx, { website_id: entry.website_id, blog_post_id: post.id }, body, { tx });
    return skipped;
  }

  /** A review run succeeded: its verdict, bound to the post revision it read. */
  function verdictOf(exec: Row): Row {
    const json = dialect.readJson<Row>(exec.output)?.json;
    if (!json || typeof json !== 'object' || typeof json.passed !== 'boolean') throw InvalidArgument.field('output.json.passed', 'the review run answered no boolean `passed`');
    const reasons = Array.isArray(json.reasons) ? json.reasons.filter((r: unknown) => typeof r === 'string').slice(0, 50).map((r: string) => r.slice(0, 2000)) : [];
    // Bound to the post as the review read it: an edit since makes the verdict stale.
    const reviewed = dialect.readJson<Row>(exec.metadata)?.post_revision;
    return { passed: json.passed, reasons, execution_id: exec.id, post_revision: typeof reviewed === 'number' ? reviewed : null };
  }

  return { materialize, review, publish, publishRefusal, applyDraft, verdictOf, postDefaults };
}

export type EditorialService = ReturnType<typeof createEditorialService>;
export const MARK_PUBLISHED = 'EDITORIAL_MARK_PUBLISHED';
export const RUN_ENDED = 'EDITORIAL_RUN_ENDED';
export const AUTOMATION_TICK = 'EDITORIAL_AUTOMATION_TICK';

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

