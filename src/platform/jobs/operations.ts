import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import { startWorkerLoops, Wakeup } from './worker-loops.js';
import type { Database } from '../db/database.js';
import type { DB } from '../db/schema.js';
import { ApiError, Cancelled, FailedPrecondition, Internal, NotFound, renderError } from '../errors.js';
import { newId } from '../resource/ids.js';
import { SYSTEM_ACTOR, type Events } from '../events/events.js';
import { createLeaseQueue } from './lease.js';

/**
 * Durable background work (SPEC 2.16). An Operation is a row written in the same transaction as
 * the request that starts it; workers (in-process with WORKER=inline, or `npm run worker`
 * processes) claim rows with a lease, run the registered handler, and record the outcome.
 * A worker that dies leaves an expired lease: another worker picks the row up again, or fails it
 * cleanly once it has been tried MAX_ATTEMPTS times. Several workers can share one PostgreSQL
 * database: claims use FOR UPDATE SKIP LOCKED so no row runs twice at once.
 */

/** What a handler sees of the Operation it runs. */
export interface OperationRun {
  readonly id: string;
  readonly accountId: string;
  readonly websiteId: string | undefined;
  readonly payload: Record<string, unknown>;
  readonly attempt: number;
  /** Names the current hop (`metadata.step`); `progressPercent` only where work is genuinely counted. */
  setStep(step: string, progressPercent?: number): Promise<void>;
  /** Honours `:cancel` (throws Cancelled) and keeps the lease alive. Call between units of work. */
  checkpoint(): Promise<void>;
  /**
   * Puts the Operation back in the queue until `time` and ends this run of the handler (throws; let it
   * propagate). The handler runs again from the start then, possibly on another worker: work that
   * waits (a retry after a provider's Retry-After) holds no worker slot meanwhile. Deferrals do not
   * count towards the crash limit.
   */
  deferUntil(time: number): never;
}

/** Thrown by `deferUntil`: not a failure, the Operation goes back to QUEUED. */
class Deferred {
  constructor(readonly time: number) {}
}

/** Thrown by `checkpoint` while the worker stops: the Operation goes back to QUEUED for another worker, at once. */
class HandedBack {}

export interface OperationHandler {
  /** Does the work; the value returned becomes `response`. */
  run(op: OperationRun): Promise<unknown>;
  /** Called once when the Operation ends with an error (including CANCELLED), e.g. to mark a resource FAILED. */
  onFailure?(op: OperationRun, error: ApiError): Promise<void>;
}

export interface EnqueueRequest {
  type: string;
  accountId: string;
  websiteId?: string;
  payload?: Record<string, unknown>;
  step?: string;
  /** Not before this time (epoch ms; default: now): work due later (a scheduled post) waits in the queue, holding no worker. */
  runAfter?: number;
}

/** The Operation resource as the API shows it. */
export interface OperationResource {
  name: string;
  done: boolean;
  metadata: Record<string, unknown>;
  response?: unknown;
  error?: unknown;
}

const LEASE_MS = 30_000;
/** PostgreSQL NOTIFY channel announcing new work. */
const WORK_CHANNEL = 'platform_operations';
const HEARTBEAT_MS = 10_000;
const MAX_ATTEMPTS = 3;
/** Finished Operations are kept this long (SPEC: at least 24 h). */
export const OPERATION_RETENTION_MS = 7 * 24 * 3600_000;
/** `request_id` keys of Creates (and sign-up) are remembered this long. */
export const IDEMPOTENCY_RETENTION_MS = 7 * 24 * 3600_000;

/** A stored Operation. */
type OperationRow = Selectable<DB['operations']>;

export interface Operations {
  register(type: string, handler: OperationHandler): void;
  /** Records new work inside the caller's transaction; call `wake()` after it commits. */
  enqueue(db: Kysely<DB>, request: EnqueueRequest, now: number): Promise<string>;
  /** Nudges in-process workers to look for work now instead of at their next poll. */
  wake(): void;
  /** The Operation `id` if it belongs to `scope`, else NOT_FOUND. */
  get(id: string, scope: { accountId: string; websiteId?: string }): Promise<OperationResource>;
  /** Requests cancellation; FAILED_PRECONDITION when already done. */
  cancel(id: string, scope: { accountId: string; websiteId?: string }, now: number): Promise<OperationResource>;
  /** Requests cancellation inside the caller's transaction, and makes a QUEUED one due now (an AI run waiting to retry). */
  requestCancel(db: Kysely<DB>, id: string, now: number): Promise<void>;
  /** Claims and runs one due Operation; false when there was none. */
  runOne(): Promise<boolean>;
  /**
   * Starts `concurrency` worker loops. `stop()` claims nothing more and hands every running Operation
   * back to the queue at its next checkpoint (not counted as an attempt), so another worker takes it at
   * once instead of after the lease; with `graceMs`, leases still held after that long are handed back
   * directly (a handler stuck in a long call). Resolves once this worker holds no lease.
   */
  startWorker(opts?: { concurrency?: number; pollMs?: number }): { stop(opts?: { graceMs?: number }): Promise<void> };
  /** Deletes finished Operations past retention, and expired request_id keys. */
  purgeExpired(now: number): Promise<number>;
  /**
   * A durable queue of an area's own (the search index's pending sources) whose worker runs wherever
   * Operations run: `startWorker` starts it too, `stop` halts it. Register from `Area.jobs`.
   */
  runAlongside(worker: CompanionWorker): void;
}

/** A worker started and stopped with the Operations worker (see `Operations.runAlongside`). */
export interface CompanionWorker {
  start(opts: { pollMs?: number }): { stop(): Promise<void> };
}

/** Event written when an Operation ends (`done` true), with the Operation as `data`. */
export const OPERATION_DONE = 'operation.done';

export function createOperations(deps: { database: Database; logger: FastifyBaseLogger; workerId?: string; events?: Events }): Operations {
  const { db, dialect } = deps.database;
  const handlers = new Map<string, OperationHandler>();
  const workerId = deps.workerId ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  const wakeup = new Wakeup();
  // Set by a worker's stop(): running handlers give their Operation back at their next checkpoint.
  let handingBack = false;
  const companions: CompanionWorker[] = [];

  function nameOf(row: OperationRow): string {
    return row.website_id ? `websites/${row.website_id}/operations/${row.id}` : `accounts/${row.account_id}/operations/${row.id}`;
  }

  function toResource(row: OperationRow): OperationResource {
    const metadata: Record<string, unknown> = {
      type: row.type,
      create_time: new Date(Number(row.create_time)).toISOString(),
      update_time: new Date(Number(row.update_time)).toISOString(),
    };
    if (row.step) metadata.step = row.step;
    if (row.progress_percent !== null && row.progress_percent !== undefined) metadata.progress_percent = Number(row.progress_percent);
    if (row.end_time) metadata.end_time = new Date(Number(row.end_time)).toISOString();
    if (dialectBool(row.cancel_requested)) metadata.cancel_requested = true;
    const resource: OperationResource = { name: nameOf(row), done: row.state === 'DONE', metadata };
    if (row.state === 'DONE') {
      if (row.error) resource.error = dialect.readJson(row.error);
      else resource.response = dialect.readJson(row.response) ?? {};
    }
    return resource;
  }

  const dialectBool = (v: unknown) => v === true || v === 1;

  // Polling an Operation is a hot read: a point read per scope shape (batched on PostgreSQL).
  const byIdInWebsite = deps.database.pointReader('operations', ['id', 'account_id', 'website_id']);
  const byIdInAccount = deps.database.pointReader('operations', ['id', 'account_id']);

  async function loadScoped(id: string, scope: { accountId: string; websiteId?: string }) {
    const row = scope.websiteId ? await byIdInWebsite([id, scope.accountId, scope.websiteId]) : await byIdInAccount([id, scope.accountId]);
    if (!row) throw new NotFound(`operation ${id}`);
    return row as OperationRow; // why: the point reader answers a row of the table it was made for, operations
  }

  const queue = createLeaseQueue({ database: deps.database, table: 'operations', queued: 'QUEUED', leased: 'RUNNING', leaseMs: LEASE_MS, workerId });

  async function finish(row: OperationRow, outcome: { response?: unknown; error?: unknown }): Promise<void> {
    const now = Date.now();
    const values = {
      state: 'DONE',
      response: outcome.error ? null : dialect.json(outcome.response ?? {}),
      error: outcome.error ? dialect.json(outcome.error) : null,
      end_time: now,
      update_time: now,
    };
    const events = deps.events;
    if (!events?.enabled) {
      await queue.settle(row.id, values);
      return;
    }
    // `operation.done` is written with the outcome, in its transaction (nothing when the lease was lost).
    const pending: Array<() => void | Promise<void>> = [];
    await db.transaction().execute(async (trx) => {
      const done = await queue.settle(row.id, values, trx);
      if (!done) return;
      const resource = toResource(done);
      await events.record(
        trx,
        { type: OPERATION_DONE, accountId: done.account_id, websiteId: done.website_id ?? null, resource: resource.name, collection: 'operations', actor: SYSTEM_ACTOR, data: { ...resource }, previous: null, occurTime: now },
        (fn) => void pending.push(fn),
      );
    });
    for (const fn of pending) await fn();
  }

  async function execute(row: OperationRow): Promise<void> {
    const handler = handlers.get(row.type);
    // Set once another worker holds the lease: this run must stop without recording any outcome.
    let leaseLost = false;
    let lastBeat = Date.now();
    const heartbeat = async () => {
      lastBeat = Date.now();
      await queue.heartbeat(row.id, lastBeat);
    };
    const run: OperationRun = {
      id: row.id,
      accountId: row.account_id,
      websiteId: row.website_id ?? undefined,
      payload: dialect.readJson<Record<string, unknown>>(row.payload) ?? {},
      attempt: Number(row.attempt),
      async setStep(step, progressPercent) {
        await queue.update(row.id, { step, progress_percent: progressPercent ?? null, update_time: Date.now() });
      },
      deferUntil(time) {
        throw new Deferred(time);
      },
      async checkpoint() {
        const current = await db.selectFrom('operations').select(['cancel_requested', 'lease_owner']).where('id', '=', row.id).executeTakeFirst();
        if (!current || current.lease_owner !== workerId) {
          leaseLost = true;
          throw new Cancelled('the operation was taken over by another worker');
        }
        if (dialectBool(current.cancel_requested)) throw new Cancelled();
        if (handingBack) throw new HandedBack();
        if (Date.now() - lastBeat > HEARTBEAT_MS) await heartbeat();
      },
    };
    const timer = setInterval(() => void heartbeat().catch(() => undefined), HEARTBEAT_MS);
    timer.unref();
    try {
      if (!handler) throw new Internal(`no handler for operation type ${row.type}`);
      if (Number(row.attempt) > MAX_ATTEMPTS) {
        throw new Internal(`the operation stopped ${MAX_ATTEMPTS} times with its worker and was given up`);
      }
      await run.checkpoint();
      const response = await handler.run(run);
      await finish(row, { response });
    } catch (err) {
      if (err instanceof Deferred || err instanceof HandedBack) {
        await requeue(err instanceof Deferred ? err.time : Date.now(), row.id);
        return;
      }
      if (leaseLost) {
        // Another worker owns the Operation now (this one stalled past its lease): the outcome and the
        // failure hook are the owner's. Running the hook here would e.g. mark a website FAILED that the
        // owner is provisioning, or already finished.
        deps.logger.warn({ operation: row.id, type: row.type }, 'operation lease lost; run abandoned to the new owner');
        return;
      }
      const apiError = err instanceof ApiError ? err : new Internal();
      // The stored error carries a REQUEST_INFO whose id references this log entry (SPEC 7), like a request's.
      const reference = `op_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
      if (!(err instanceof ApiError)) deps.logger.error({ err, operation: row.id, type: row.type, request_id: reference }, 'operation failed');
      else deps.logger.info({ operation: row.id, type: row.type, status: apiError.status, request_id: reference }, 'operation ended with an error');
      try {
        await handler?.onFailure?.(run, apiError);
      } catch (hookErr) {
        deps.logger.error({ err: hookErr, operation: row.id, request_id: reference }, 'operation failure hook failed');
      }
      await finish(row, { error: renderError(apiError, reference).error });
    } finally {
      clearInterval(timer);
    }
  }

  /**
   * Puts Operations this worker holds back in the queue (one, or every one it still holds) without
   * counting the attempt, and tells workers in other processes.
   */
  async function requeue(runAfter: number, id?: string): Promise<number> {
    const count = await queue.handBack({ id, runAfter, uncount: true });
    if (count > 0 && runAfter <= Date.now()) await dialect.notify(db, WORK_CHANNEL);
    return count;
  }

  /** Deletes finished Operations past retention, and create idempotency keys past theirs. */
  async function purgeExpired(now: number): Promise<number> {
    const result = await db
      .deleteFrom('operations')
      .where('state', '=', 'DONE')
      .where('end_time', '<', now - OPERATION_RETENTION_MS)
      .executeTakeFirst();
    // A request_id repeated after this long creates anew (AIP-155 lets keys expire).
    await db.deleteFrom('idempotency_keys').where('create_time', '<', now - IDEMPOTENCY_RETENTION_MS).execute();
    return Number(result.numDeletedRows ?? 0);
  }

  async function runOne(): Promise<boolean> {
    const [row] = await queue.claim(Date.now());
    if (!row) return false;
    await execute(row);
    return true;
  }

  const operations: Operations = {
    register(type, handler) {
      handlers.set(type, handler);
    },
    async enqueue(trx, request, now) {
      const id = newId(now);
      await trx
        .insertInto('operations')
        .values({
          id,
          account_id: request.accountId,
          website_id: request.websiteId ?? null,
          type: request.type,
          state: 'QUEUED',
          step: request.step ?? 'QUEUED',
          payload: dialect.json(request.payload ?? {}),
          cancel_requested: dialect.bool(false),
          attempt: 0,
          run_after: Math.max(now, request.runAfter ?? now),
          create_time: now,
          update_time: now,
        })
        .execute();
      // Workers in other processes (`npm run worker`) hear of it at commit instead of at their next poll.
      await dialect.notify(trx, WORK_CHANNEL);
      return id;
    },
    wake: () => wakeup.wake(),
    async get(id, scope) {
      return toResource(await loadScoped(id, scope));
    },
    async cancel(id, scope, now) {
      const row = await loadScoped(id, scope);
      const finished = () => new FailedPrecondition('OPERATION_DONE', `operation ${id} has already finished`);
      if (row.state === 'DONE') throw finished();
      // Answer the row as this write left it (still running): re-reading it afterwards could already find
      // it done, because a worker honours the request at its next checkpoint, possibly within milliseconds.
      const requested = await db
        .updateTable('operations')
        .set({ cancel_requested: dialect.bool(true), update_time: Math.max(now, Number(row.update_time)) })
        .where('id', '=', id)
        .where('state', '!=', 'DONE')
        .returningAll()
        .executeTakeFirst();
      if (!requested) throw finished();
      return toResource(requested);
    },
    async requestCancel(trx, id, now) {
      await trx
        .updateTable('operations')
        .set({ cancel_requested: dialect.bool(true), update_time: now })
        .where('id', '=', id)
        .where('state', '!=', 'DONE')
        .execute();
      await trx.updateTable('operations').set({ run_after: now }).where('id', '=', id).where('state', '=', 'QUEUED').execute();
    },
    runOne,
    runAlongside(worker) {
      companions.push(worker);
    },
    startWorker(opts = {}) {
      handingBack = false;
      const running = companions.map((c) => c.start({ pollMs: opts.pollMs }));
      const loops = startWorkerLoops({
        concurrency: opts.concurrency ?? 2,
        pollMs: opts.pollMs ?? 500,
        runOne,
        housekeeping: purgeExpired,
        wakeup,
        channel: WORK_CHANNEL,
        database: deps.database,
        logger: deps.logger,
        what: 'operations',
      });
      return {
        async stop(stopOpts = {}) {
          handingBack = true;
          const finished = loops.halt();
          if (stopOpts.graceMs === undefined) {
            await finished;
          } else {
            let timer: NodeJS.Timeout | undefined;
            const late = await Promise.race([finished.then(() => false), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), stopOpts.graceMs)))]);
            clearTimeout(timer);
            // Handlers that did not reach a checkpoint in time (a long provider call): their Operations go back
            // now; the run left behind can no longer record anything (every write checks the lease).
            if (late) {
              const count = await requeue(Date.now());
              deps.logger.warn({ operations: count }, 'operations handed back while still running: the worker stopped');
            }
          }
          await loops.unsubscribe();
          await Promise.all(running.map((r) => r.stop()));
        },
      };
    },
    purgeExpired,
  };
  return operations;
}
