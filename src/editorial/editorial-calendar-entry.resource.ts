import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition } from '../platform/errors.js';
import { ERROR_SCHEMA } from '../platform/http/openapi-shapes.js';
import type { CustomMethodDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { postRevisionOf } from '../blog/index.js';
import { setBacklogState } from './editorial.repo.js';
import { scopeOf, type EditorialService } from './editorial.service.js';
import { EDITORIAL_RIGHTS, loadPlan, type Plan } from './editorial-plan.resource.js';

export const ENTRY_STATES = ['PLANNED', 'DRAFTING', 'DRAFTED', 'IN_REVIEW', 'APPROVED', 'REJECTED', 'SCHEDULED', 'PUBLISHED', 'FAILED'] as const;
const out = { behavior: ['OUTPUT_ONLY'] as Array<'OUTPUT_ONLY'> };

/**
 * `websites/{w}/editorial_calendar_entries`: one booked slot of the rolling calendar. Made by
 * `editorial_plan:refill`, moved by its verbs (state machine in docs/decisions.md, "Editorial").
 */
export function editorialCalendarEntryResource(deps: { dialect: SqlDialect; editorial: () => EditorialService }): ResourceDecl {
  const { dialect } = deps;

  const plan = async (ctx: WriteContext, websiteId: string): Promise<Plan> => (await loadPlan(ctx.trx, dialect, websiteId))!;
  /** A verb's work inside the engine's transaction; runs it makes join the entry's write. */
  const verb = (
    spec: Omit<CustomMethodDecl, 'on' | 'access' | 'mutate'>,
    work: (ctx: WriteContext, next: Row, previous: Row, body: Record<string, unknown>) => Promise<void>,
  ): CustomMethodDecl => ({ ...spec, on: 'item', access: 'write', mutate: work });

  return {
    collection: 'editorial_calendar_entries',
    singular: 'EditorialCalendarEntry',
    table: 'editorial_calendar_entries',
    description:
      'A booked slot of the rolling calendar: the backlog item it holds and, once materialized, the post it became. `state`: PLANNED → ' +
      '(`:materialize`) DRAFTING (a drafting run) → DRAFTED → IN_REVIEW (a review run, started by itself when the plan names a review agent, or ' +
      '`:review`) → APPROVED / REJECTED (the verdict, or a person\'s `:approve` / `:reject`) → (`:publish`) SCHEDULED for its slot → PUBLISHED; ' +
      'FAILED when a run failed, expired or was cancelled, or its output could not be used (`last_error`, `failed_step`; `:retry` repeats the step). ' +
      'Every run is an `ai_executions` run with `source_module` `editorial` and `source_id` this entry\'s name.',
    collectionPath: 'websites/{website_id}/editorial_calendar_entries',
    itemPath: 'websites/{website_id}/editorial_calendar_entries/{editorial_calendar_entry_id}',
    fields: {
      slot_time: { type: 'timestamp', description: 'The slot: when the post is due to go out.', ...out, notNull: true },
      backlog_item_id: { type: 'string', description: 'The backlog item the entry writes about (absent once that item was deleted).', ...out },
      post_id: { type: 'string', description: 'The blog post the entry became (absent until materialized; cleared when the post is deleted).', ...out },
      state: { type: 'enum', values: [...ENTRY_STATES], description: 'See the resource description.', ...out, notNull: true },
      drafting_execution_id: { type: 'string', description: 'The latest drafting run (`ai_executions` id).', ...out },
      review_execution_id: { type: 'string', description: 'The latest review run (`ai_executions` id).', ...out },
      verdict: {
        type: 'object',
        description: "The latest review's verdict: `passed`, `reasons`, `execution_id` (the review run), `post_revision` (the post's `revision` it read: an edit since makes it stale).",
        schema: {
          properties: {
            passed: { type: 'boolean' },
            reasons: { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 2000 } },
            execution_id: { type: 'string', maxLength: 64 },
            post_revision: { type: ['integer', 'null'], format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
          },
        },
        ...out,
      },
      approval: {
        type: 'object',
        description: "A person's `:approve`: `by` (`users/{user}`), `time`, `post_revision`. Stands in for a passing verdict only when the plan's `allow_person_approval` is true.",
        schema: { properties: { by: { type: 'string', maxLength: 300 }, time: { type: 'string', format: 'date-time', maxLength: 40 }, post_revision: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } } },
        ...out,
      },
      skipped_fields: {
        type: 'object',
        description: 'Post fields the latest drafting run did not write because a person had edited them (their `field_provenance` is a user).',
        schema: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 64 } },
        ...out,
      },
      failed_step: { type: 'enum', values: ['DRAFTING', 'REVIEW'], description: 'FAILED: the step `:retry` repeats.', ...out },
      last_error: { type: 'object', description: "Why the entry FAILED (the run's error, or why its output could not be used), in the error-body shape.", schema: ERROR_SCHEMA, ...out },
    },
    filterable: ['slot_time', 'state', 'backlog_item_id', 'post_id', 'create_time'],
    sortable: ['slot_time', 'create_time', 'update_time'],
    defaultOrder: 'slot_time asc',
    methods: ['list', 'get', 'delete'],
    rights: EDITORIAL_RIGHTS,
    hooks: {
      async beforeDelete(ctx, row) {
        // The slot becomes free again; its item goes back to the backlog unless its post already went out.
        if (row.state !== 'SCHEDULED' && row.state !== 'PUBLISHED') await setBacklogState(ctx.trx, row.website_id, row.backlog_item_id, ['SCHEDULED'], 'READY', ctx.now);
      },
    },
    customMethods: [
      verb(
        {
          verb: 'materialize',
          summary: 'Draft the post of a calendar entry',
          description:
            'With the plan\'s `drafting_agent_id`: starts a drafting run (state DRAFTING; when it ends, its JSON becomes the post\'s fields, except ' +
            'fields a person edited, listed in `skipped_fields`). Without: creates a DRAFT post from the backlog item at once (DRAFTED). Allowed on ' +
            'PLANNED, DRAFTED, APPROVED, REJECTED and FAILED entries (regenerating an existing post); else FAILED_PRECONDITION. Refusals of the run ' +
            '(e.g. INSUFFICIENT_BALANCE) are answered as they are and change nothing.',
        },
        async (ctx, next) => {
          await deps.editorial().materialize(ctx, scopeOf(ctx.trx, ctx.afterCommit), next, await plan(ctx, next.website_id));
        },
      ),
      verb(
        {
          verb: 'review',
          summary: 'Review the post of a calendar entry',
          description: "Starts a review run of the entry's post with the plan's `review_agent_id` (IN_REVIEW); FAILED_PRECONDITION `NO_REVIEW_AGENT` or `NO_POST` otherwise.",
        },
        async (ctx, next) => {
          await deps.editorial().review(ctx, scopeOf(ctx.trx, ctx.afterCommit), next, await plan(ctx, next.website_id));
        },
      ),
      verb(
        {
          verb: 'approve',
          summary: "Record a person's approval of a calendar entry's post",
          description:
            "APPROVED with `approval` (who, when, the post's revision). It stands in for a passing verdict at `:publish` only when the plan's " +
            '`allow_person_approval` is true; while the plan requires a verdict and does not allow that, FAILED_PRECONDITION `PERSON_APPROVAL_NOT_ALLOWED`. Needs a post.',
        },
        async (ctx, next) => {
          const p = await plan(ctx, next.website_id);
          if (!next.post_id) throw new FailedPrecondition('NO_POST', 'the entry has no post to approve; :materialize it first');
          if (['DRAFTING', 'IN_REVIEW', 'SCHEDULED', 'PUBLISHED'].includes(next.state)) throw new FailedPrecondition('ENTRY_NOT_APPROVABLE', `an entry ${next.state} cannot be approved`);
          if (p.requirePassingVerdict && !p.allowPersonApproval) {
            throw new FailedPrecondition('PERSON_APPROVAL_NOT_ALLOWED', "the plan requires a passing review verdict and does not let a person's approval stand in");
          }
          const post = await postRevisionOf(ctx.trx, next.website_id, next.post_id);
          if (!post) throw new FailedPrecondition('NO_POST', 'the entry\'s post no longer exists');
          next.approval = dialect.json({ by: `users/${ctx.caller.userId}`, time: new Date(ctx.now).toISOString(), post_revision: Number(post.revision) });
          next.state = 'APPROVED';
        },
      ),
      verb(
        {
          verb: 'reject',
          summary: "Record a person's rejection of a calendar entry's post",
          description: 'REJECTED (a withdrawn approval); `:publish` is then refused until the entry is materialized, reviewed or approved again. Needs a post.',
        },
        async (ctx, next) => {
          if (!next.post_id) throw new FailedPrecondition('NO_POST', 'the entry has no post to reject');
          if (['DRAFTING', 'IN_REVIEW', 'SCHEDULED', 'PUBLISHED'].includes(next.state)) throw new FailedPrecondition('ENTRY_NOT_REJECTABLE', `an entry ${next.state} cannot be rejected`);
          next.approval = null;
          next.state = 'REJECTED';
        },
      ),
      verb(
        {
          verb: 'publish',
          summary: "Publish a calendar entry's post at its slot",
          description:
            "The post is SCHEDULED for the entry's slot (or PUBLISHED now when the slot has passed) and the backlog item becomes USED. FAILED_PRECONDITION " +
            'with a reason when the entry has no post (`NO_POST`), a run is in progress (`RUN_IN_PROGRESS`), it was rejected (`REJECTED`) or failed ' +
            "(`ENTRY_FAILED`), or the plan requires a verdict and neither the latest review passed for the post as it stands nor (when allowed) a " +
            "person approved it (`VERDICT_REQUIRED`, `VERDICT_STALE`). Repeating it on a SCHEDULED or PUBLISHED entry changes nothing.",
        },
        async (ctx, next) => {
          await deps.editorial().publish(ctx, scopeOf(ctx.trx, ctx.afterCommit), next, await plan(ctx, next.website_id));
        },
      ),
      verb(
        {
          verb: 'retry',
          summary: 'Repeat the failed step of a calendar entry',
          description: 'A FAILED entry repeats `failed_step`: a new drafting run (as `:materialize`) or a new review run (as `:review`). FAILED_PRECONDITION `ENTRY_NOT_FAILED` otherwise.',
        },
        async (ctx, next) => {
          if (next.state !== 'FAILED') throw new FailedPrecondition('ENTRY_NOT_FAILED', `the entry is ${next.state}, not FAILED`);
          const p = await plan(ctx, next.website_id);
          const tx = scopeOf(ctx.trx, ctx.afterCommit);
          if (next.failed_step === 'REVIEW') {
            next.state = next.post_id ? 'DRAFTED' : 'PLANNED';
            await deps.editorial().review(ctx, tx, next, p);
          } else {
            await deps.editorial().materialize(ctx, tx, next, p);
          }
        },
      ),
    ],
  };
}
