import type { Db, Trx } from '../platform/db/schema.js';
import type { Area, AreaDeps, Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { RequestContext } from '../platform/auth/context.js';
import { ApiError, InvalidArgument } from '../platform/errors.js';
import type { Operations } from '../platform/jobs/operations.js';
import type { CustomMethodDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import type { ResourceService, TransactionScope } from '../platform/resource/engine.js';
import { resourceSchema } from '../platform/resource/schemas.js';
import { findExecution, registerRunFollowUp } from '../ai/index.js';
import { findPostRow as loadPost } from '../blog/index.js';
import { detachPost, dueEntries, entryIdsWithPost, loadEntry, refillSlots, setPlanTick, stopPlanAutomation, updateEntry } from './editorial.repo.js';
import {
  AUTOMATION_TICK,
  createEditorialService,
  errorBody,
  MARK_PUBLISHED,
  platformContext,
  RUN_ENDED,
  SOURCE_MODULE,
  type EditorialService,
} from './editorial.service.js';
import { editorialBacklogItemResource } from './editorial-backlog-item.resource.js';
import { editorialCalendarEntryResource } from './editorial-calendar-entry.resource.js';
import { editorialPlanResource, loadPlan, type Plan } from './editorial-plan.resource.js';
import { slotTimes } from './slots.js';

const DAY_MS = 86_400_000;
/** Longest wait between two automation ticks (new slots enter the horizon, approvals arrive). */
export const TICK_MS = 15 * 60_000;
/** Wait before a tick that failed is replaced by a fresh one. */
const RETRY_TICK_MS = 60_000;
/** Refusals of a run that no retry of the same call fixes: the automation stops with the reason instead of looping. */
const STOPPING_REASONS = new Set(['INSUFFICIENT_BALANCE', 'MONTHLY_LIMIT_REACHED', 'RUN_COST_LIMIT_EXCEEDED', 'NO_USABLE_CONNECTION', 'MODEL_NOT_PRICED', 'AGENT_DISABLED', 'AGENT_MISSING', 'UNKNOWN_VARIABLE', 'INSTRUCTION_MISSING']);

const reasonOf = (error: ApiError): string | undefined => (error.details.find((d) => d.type === 'PRECONDITION_FAILURE') as { reason?: string } | undefined)?.reason;

/** Writes the columns `next` changed, with revision + 1 (job writes outside the engine). */
async function writeEntry(trx: Db | Trx, next: Row, previous: Row, now: number): Promise<void> {
  const changes: Row = {};
  for (const [key, value] of Object.entries(next)) if (key !== 'id' && value !== previous[key]) changes[key] = value;
  if (Object.keys(changes).length === 0) return;
  await updateEntry(trx, previous.website_id, previous.id, changes, Math.max(now, Number(previous.update_time)));
}

async function stopAutomation(db: Db | Trx, websiteId: string, reason: string, now: number): Promise<void> {
  await stopPlanAutomation(db, websiteId, reason, now);
}

/** Editorial: the plan, the backlog, the rolling calendar, and AI drafting and review through `ai_executions`. */
export const editorialArea: Area = {
  name: 'editorial',
  resources(deps) {
    const { dialect } = deps.database;
    const services = () => deps.services;
    const editorial = serviceOf(deps);
    const entries = editorialCalendarEntryResource({ dialect, editorial: () => editorial() });

    const refillMethod: CustomMethodDecl = {
      verb: 'refill',
      on: 'item',
      summary: 'Book every free slot inside the horizon from the backlog',
      description:
        "Generates the plan's slot times from now to `horizon_days` ahead in its time zone (DST included), and books each slot that has no entry " +
        'with the next READY backlog item (highest `priority` first, then oldest), as PLANNED entries; the items become SCHEDULED. Set-based and ' +
        'idempotent: a second call adds nothing, and concurrent calls never book one slot twice. Slots left when the backlog runs out stay free. ' +
        'Answers the entries it created. INVALID_ARGUMENT on `slots` when the plan has none. Conditional on the plan: `If-Match` (or `etag`) with a stale etag of ' +
        'the plan answers 409 ABORTED with the current plan, and books nothing.',
      access: 'write',
      response: {
        type: 'object',
        title: 'RefillEditorialPlanResponse',
        description: 'The calendar entries the call created, in slot order (empty when every slot was booked or the backlog was empty).',
        properties: { editorial_calendar_entries: { type: 'array', maxItems: 10_000, items: resourceSchema(entries), description: 'The new entries.' } },
        required: ['editorial_calendar_entries'],
      },
      async handle(ctx, call) {
        const websiteId = call.params.website_id;
        // The plan row is held (FOR UPDATE) while the slots are booked: the engine's If-Match check applies to it.
        const plans = services()['websites/{website_id}/editorial_plan'];
        const created = await plans.hold(
          ctx,
          call.params,
          async ({ trx }) => {
            const plan = (await loadPlan(trx, dialect, websiteId))!;
            if (plan.slots.length === 0) throw InvalidArgument.field('slots', 'the plan has no slot to fill; write `slots` first');
            return refill(trx, dialect, plan, ctx.now);
          },
          { ifMatch: call.ifMatch },
        );
        const service = services()['websites/{website_id}/editorial_calendar_entries'];
        return { editorial_calendar_entries: created.map((row) => service.toResource(row)) };
      },
    };

    return [
      editorialPlanResource({
        dialect,
        customMethods: [refillMethod],
        async onUpdated(ctx, row, previous) {
          const restart = row.automation === 'AUTOMATIC' && (previous.automation !== 'AUTOMATIC' || previous.automation_state === 'STOPPED' || !row.automation_tick_id);
          if (restart) await startTicks(ctx.trx, deps.operations, row.account_id, row.id, ctx.now, ctx);
        },
      }),
      editorialBacklogItemResource(),
      entries,
    ];
  },
  jobs(operations, deps) {
    const db = deps.database.db;
    const { dialect } = deps.database;
    const editorial = serviceOf(deps);
    registerRunFollowUp(SOURCE_MODULE, RUN_ENDED);

    /** Runs `work` on one entry in a transaction; side effects after commit. */
    async function onEntry<T>(work: (trx: Trx, tx: TransactionScope) => Promise<T>): Promise<T> {
      const pending: Array<() => void | Promise<void>> = [];
      const result = await db.transaction().execute((trx) => work(trx, { trx, afterCommit: pending }));
      for (const fn of pending) await fn();
      return result;
    }

    /** Marks an entry FAILED when it still waits for `execId` (a second transaction after the first rolled back). */
    async function failEntry(websiteId: string, entryId: string, execId: string, step: 'DRAFTING' | 'REVIEW', error: Record<string, unknown>): Promise<void> {
      await onEntry(async (trx) => {
        const entry = await loadEntry(trx, dialect, websiteId, entryId, true);
        const waiting = step === 'DRAFTING' ? entry?.state === 'DRAFTING' && entry.drafting_execution_id === execId : entry?.state === 'IN_REVIEW' && entry.review_execution_id === execId;
        if (!entry || !waiting) return;
        await writeEntry(trx, { ...entry, state: 'FAILED', failed_step: step, last_error: dialect.json(error) }, entry, Date.now());
      });
    }

    /** AUTOMATIC: publish (schedule for its slot) an entry that may go out, in the caller's transaction. */
    async function autoPublish(ctx: RequestContext, tx: TransactionScope, next: Row, plan: Plan): Promise<void> {
      if (plan.automation !== 'AUTOMATIC' || plan.automationState === 'STOPPED') return;
      if (Number(next.slot_time) <= ctx.now) return;
      const post = await loadPost(tx.trx, dialect, next.website_id, next.post_id);
      if (editorial().publishRefusal(next, post, plan)) return;
      await editorial().publish(ctx, tx, next, plan);
    }

    operations.register(RUN_ENDED, {
      async run(op) {
        const exec = await findExecution(db, String(op.payload.execution_id));
        const match = /^websites\/([^/]+)\/editorial_calendar_entries\/([^/]+)$/.exec(String(exec?.source_id ?? ''));
        if (!exec || exec.source_module !== SOURCE_MODULE || !match) return { handled: false };
        const [, websiteId, entryId] = match;
        const ctx = platformContext(exec.account_id, websiteId);
        let step: 'DRAFTING' | 'REVIEW' = 'DRAFTING';
        try {
          return await onEntry(async (trx, tx) => {
            const entry = await loadEntry(trx, dialect, websiteId, entryId, true);
            // Only the run the entry waits for, of the same account: anyone may create a run naming this module.
            if (!entry || entry.account_id !== exec.account_id) return { handled: false };
            const drafting = entry.state === 'DRAFTING' && entry.drafting_execution_id === exec.id;
            const reviewing = entry.state === 'IN_REVIEW' && entry.review_execution_id === exec.id;
            if (!drafting && !reviewing) return { handled: false };
            step = drafting ? 'DRAFTING' : 'REVIEW';
            const plan = (await loadPlan(trx, dialect, websiteId))!;
            const next: Row = { ...entry };
            if (exec.state !== 'SUCCEEDED') {
              Object.assign(next, { state: 'FAILED', failed_step: step, last_error: dialect.json(dialect.readJson(exec.error) ?? errorBody(new ApiError('INTERNAL', `the run ended ${exec.state}`))) });
            } else if (drafting) {
              const skipped = await editorial().applyDraft(ctx, tx, next, exec, plan);
              Object.assign(next, { state: 'DRAFTED', skipped_fields: dialect.json(skipped) });
              if (plan.reviewAgentId) {
                try {
                  await editorial().review(ctx, tx, next, plan);
                } catch (error) {
                  if (!(error instanceof ApiError)) throw error;
                  // The draft stands; the review could not start (balance, agent): said on the entry, :review retries it.
                  next.last_error = dialect.json(errorBody(error));
                  const reason = reasonOf(error);
                  if (plan.automation === 'AUTOMATIC' && reason && STOPPING_REASONS.has(reason)) await stopAutomation(trx, websiteId, `${reason}: ${error.message}`, ctx.now);
                }
              } else {
                await autoPublish(ctx, tx, next, plan);
              }
            } else {
              const verdict = editorial().verdictOf(exec);
              Object.assign(next, { verdict: dialect.json(verdict), state: verdict.passed ? 'APPROVED' : 'REJECTED' });
              if (verdict.passed) await autoPublish(ctx, tx, next, plan);
            }
            await writeEntry(trx, next, entry, ctx.now);
            return { handled: true, state: next.state };
          });
        } catch (error) {
          // The output could not be used (malformed, refused by the post's rules): nothing of it was written.
          if (!(error instanceof ApiError)) throw error;
          await failEntry(websiteId, entryId, exec.id, step, errorBody(error));
          return { handled: true, state: 'FAILED' };
        }
      },
    });

    operations.register(MARK_PUBLISHED, {
      async run(op) {
        const websiteId = op.websiteId!;
        return onEntry(async (trx) => {
          const entry = await loadEntry(trx, dialect, websiteId, String(op.payload.entry_id), true);
          if (!entry || entry.state !== 'SCHEDULED') return { published: false };
          const post = await loadPost(trx, dialect, websiteId, entry.post_id);
          if (post?.state === 'PUBLISHED') {
            await writeEntry(trx, { ...entry, state: 'PUBLISHED' }, entry, Date.now());
            return { published: true };
          }
          // The blog's own publish of the same moment has not run yet: look again shortly.
          if (post?.state === 'SCHEDULED') op.deferUntil(Math.max(Number(post.publish_time), Date.now()) + 2_000);
          // Unpublished or deleted by a person since: the entry no longer goes out by itself.
          await writeEntry(trx, { ...entry, state: post ? 'DRAFTED' : 'PLANNED' }, entry, Date.now());
          return { published: false };
        });
      },
    });

    operations.register(AUTOMATION_TICK, {
      async run(op) {
        const websiteId = op.websiteId!;
        const plan = await loadPlan(db, dialect, websiteId);
        if (!plan || plan.automation !== 'AUTOMATIC' || plan.automationState === 'STOPPED' || plan.automationTickId !== op.id) return { running: false };
        const now = Date.now();
        const ctx = platformContext(plan.accountId, websiteId);
        await op.setStep('REFILLING');
        await db.transaction().execute((trx) => refill(trx, dialect, plan, now));

        await op.setStep('MATERIALIZING');
        for (const entry of await dueEntries(db, websiteId, ['PLANNED'], now + plan.materializeLeadHours * 3_600_000, now)) {
          await op.checkpoint();
          try {
            await onEntry(async (trx, tx) => {
              const locked = await loadEntry(trx, dialect, websiteId, entry.id, true);
              if (!locked || locked.state !== 'PLANNED') return;
              const next = { ...locked };
              await editorial().materialize({ ...ctx, now: Date.now() }, tx, next, plan);
              if (next.state === 'DRAFTED') await autoPublish({ ...ctx, now: Date.now() }, tx, next, plan);
              await writeEntry(trx, next, locked, Date.now());
            });
          } catch (error) {
            if (!(error instanceof ApiError)) throw error;
            const reason = reasonOf(error);
            if (reason && STOPPING_REASONS.has(reason)) {
              // Out of balance (or no way to run): stop with the reason instead of failing every entry on every tick.
              await stopAutomation(db, websiteId, `${reason}: ${error.message}`, Date.now());
              return { running: false, stopped: reason };
            }
            await onEntry(async (trx) => {
              const locked = await loadEntry(trx, dialect, websiteId, entry.id, true);
              if (locked?.state === 'PLANNED') await writeEntry(trx, { ...locked, state: 'FAILED', failed_step: 'DRAFTING', last_error: dialect.json(errorBody(error)) }, locked, Date.now());
            });
          }
        }

        await op.setStep('SCHEDULING');
        for (const entry of await dueEntries(db, websiteId, ['DRAFTED', 'APPROVED'], now + plan.horizonDays * DAY_MS, now)) {
          await op.checkpoint();
          await onEntry(async (trx, tx) => {
            const locked = await loadEntry(trx, dialect, websiteId, entry.id, true);
            if (!locked || !['DRAFTED', 'APPROVED'].includes(locked.state)) return;
            const next = { ...locked };
            try {
              await autoPublish({ ...ctx, now: Date.now() }, tx, next, plan);
            } catch (error) {
              if (!(error instanceof ApiError)) throw error;
              next.last_error = dialect.json(errorBody(error));
            }
            await writeEntry(trx, next, locked, Date.now());
          });
        }

        // The next tick: when the next PLANNED entry enters the lead time, at the latest TICK_MS from now.
        const [upcoming] = await dueEntries(db, websiteId, ['PLANNED'], Number.MAX_SAFE_INTEGER, now + plan.materializeLeadHours * 3_600_000);
        const due = upcoming ? Math.min(now + TICK_MS, Number(upcoming.slot_time) - plan.materializeLeadHours * 3_600_000) : now + TICK_MS;
        await db.transaction().execute(async (trx) => {
          const current = await loadPlan(trx, dialect, websiteId, true);
          if (current?.automationTickId !== op.id) return;
          await startTicks(trx, operations, plan.accountId, websiteId, Math.max(due, now + 1_000), undefined, now);
        });
        return { running: true };
      },
      async onFailure(op, error) {
        // Given up (its worker died mid-tick too often, or the database failed): a fresh tick a little
        // later keeps the chain alive rather than leaving an ACTIVE plan with no tick. A `:cancel` stays.
        if (error.status === 'CANCELLED' || !op.websiteId) return;
        await db.transaction().execute(async (trx) => {
          const plan = await loadPlan(trx, dialect, op.websiteId!, true);
          if (plan?.automation !== 'AUTOMATIC' || plan.automationState === 'STOPPED' || plan.automationTickId !== op.id) return;
          await startTicks(trx, operations, plan.accountId, plan.websiteId, Date.now() + RETRY_TICK_MS, undefined, Date.now());
        });
      },
    });
  },
  references: [postReference()],
};

/** Books free slots of the plan inside its horizon (the caller's transaction), serialised per website. */
async function refill(trx: Trx, dialect: SqlDialect, plan: Plan, now: number): Promise<Row[]> {
  // Concurrent refills of one website take turns (PostgreSQL advisory lock; SQLite has one writer);
  // the unique slot index refuses a double booking anyway.
  await dialect.lockKey(trx, `editorial_refill:${plan.websiteId}`);
  const times = slotTimes(plan.slots, plan.timeZone, now + 1, now + plan.horizonDays * DAY_MS);
  return refillSlots(trx, plan.websiteId, plan.accountId, times, now);
}

/** Enqueues the next automation tick and makes it the plan's only live one. */
async function startTicks(trx: Db | Trx, operations: Operations, accountId: string, websiteId: string, runAfter: number, ctx?: WriteContext, now = runAfter): Promise<void> {
  const id = await operations.enqueue(trx, { type: AUTOMATION_TICK, accountId, websiteId, payload: { website_id: websiteId }, step: 'WAITING', runAfter }, ctx?.now ?? now);
  await setPlanTick(trx, websiteId, id);
  if (ctx) ctx.afterCommit(() => operations.wake());
}

const services = new WeakMap<AreaDeps, EditorialService>();
function serviceOf(deps: AreaDeps): () => EditorialService {
  return () => {
    let s = services.get(deps);
    if (!s) {
      s = createEditorialService({
        deps,
        posts: (): ResourceService => deps.services['websites/{website_id}/blog_posts'],
        executions: (): ResourceService => deps.services['accounts/{account_id}/ai_executions'],
      });
      services.set(deps, s);
    }
    return s;
  };
}

/** A deleted post: its entry goes back to PLANNED (its slot and item kept) unless the post had already gone out. */
function postReference(): Reference {
  return {
    target: 'blog_posts',
    describe: 'editorial_calendar_entries.post_id',
    async count(db, websiteId, id) {
      const rows = await entryIdsWithPost(db, websiteId, id);
      return rows.length;
    },
    async detach(db, websiteId, id, now) {
      await detachPost(db, websiteId, id, now);
    },
  };
}

