/**
 * The one lease/claim primitive behind every durable queue (Operations, the mail outbox, webhook
 * deliveries). A queue is a table whose rows carry:
 *   `id` (text key), `state`, `run_after` (epoch ms: due from), `attempt` (claims so far),
 *   `lease_owner` (worker id or null), `lease_expire_time` (epoch ms or null), `update_time`.
 *
 * `createLeaseQueue({database, table, queued, leased, leaseMs, workerId})` answers:
 * - `claim(now, {limit, where, set})`: up to `limit` (default 1) rows that are due — `state = queued`
 *   and `run_after <= now`, or `state = leased` whose lease expired (a killed or stalled worker's) —
 *   become `leased`, owned by this worker until `now + leaseMs`, `attempt + 1`; the claimed rows are
 *   answered (with `set` columns applied), oldest `run_after` first. One statement: PostgreSQL picks
 *   the rows `FOR UPDATE SKIP LOCKED` (concurrent workers never claim one row twice nor wait on
 *   each other); SQLite's UPDATE … RETURNING is atomic by itself (one writer at a time). `where`
 *   narrows what is due (e.g. a bound per endpoint).
 * - `heartbeat(id, now)`: pushes this worker's lease to `now + leaseMs`; false when the lease is no
 *   longer ours (expired and claimed by another worker): stop, and record nothing.
 * - `update(id, values)`: writes columns of a row while this worker holds it (progress); false if not.
 * - `settle(id, values, trx?)`: ends this worker's claim with final `values` (`state` included),
 *   clearing the lease, inside `trx` when given (record an event with it); answers the row as
 *   written, or undefined (nothing written) when another worker owns the row by now.
 * - `retry(id, {attempt, baseMs, maxMs, values})`: back to `queued`, due after `backoffDelay`
 *   (exponential, ±20 % jitter); answers the due time, or undefined when the lease was lost.
 * - `handBack({id?, runAfter, uncount})`: puts rows this worker holds (one, or all) back to `queued`
 *   at once (a stopping worker), `uncount` undoing the claim's attempt; answers how many.
 * `backoffDelay(baseMs, attempt, maxMs)` is the delay before attempt `attempt + 1`.
 *
 * Polling and wake-ups are `worker-loops.ts`'s; what a claimed row means is the queue's own code.
 */
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import { dynamic } from '../db/dynamic.js';
import type { DB } from '../db/schema.js';

/** The tables that are lease queues. */
export type LeaseTable = 'operations' | 'mail_messages' | 'webhook_deliveries';
/** A claimed (or settled) row of queue `T`. */
export type LeasedRow<T extends LeaseTable = LeaseTable> = Selectable<DB[T]>;

export interface LeaseQueueSpec<T extends LeaseTable> {
  database: Database;
  table: T;
  /** State of a row waiting for a worker (`QUEUED`). */
  queued: string;
  /** State of a claimed row (`RUNNING`, `SENDING`). */
  leased: string;
  /** How long a claim is reserved for its worker without a heartbeat. */
  leaseMs: number;
  workerId: string;
}

export interface ClaimOptions<T extends LeaseTable> {
  /** Most rows claimed at once (default 1). */
  limit?: number;
  /** Narrows which due rows may be claimed. */
  where?: (eb: ExpressionBuilder<DB, T>) => Expression<SqlBool>;
  /** Further columns set on the claimed rows. */
  set?: Record<string, unknown>;
}

export interface LeaseQueue<T extends LeaseTable> {
  readonly workerId: string;
  readonly leaseMs: number;
  claim(now: number, opts?: ClaimOptions<T>): Promise<LeasedRow<T>[]>;
  heartbeat(id: string, now?: number): Promise<boolean>;
  update(id: string, values: Record<string, unknown>): Promise<boolean>;
  settle(id: string, values: Record<string, unknown>, trx?: Kysely<DB>): Promise<LeasedRow<T> | undefined>;
  retry(id: string, opts: { attempt: number; baseMs: number; maxMs?: number; values?: Record<string, unknown> }): Promise<number | undefined>;
  handBack(opts: { id?: string; runAfter: number; uncount?: boolean }): Promise<number>;
}

/** Default upper bound of a retry delay: an hour. */
export const MAX_BACKOFF_MS = 3600_000;

/** Delay before attempt `attempt + 1`: base · 2^(attempt-1), ±20 % jitter (no herd of retries), at most `maxMs`. */
export function backoffDelay(baseMs: number, attempt: number, maxMs = MAX_BACKOFF_MS): number {
  const exact = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exact * (0.8 + Math.random() * 0.4));
}

export function createLeaseQueue<T extends LeaseTable>(spec: LeaseQueueSpec<T>): LeaseQueue<T> {
  const { dialect } = spec.database;
  // The queue's columns are common to every lease table, but Kysely cannot see columns through a table-name type parameter.
  const db = dynamic(spec.database.db);
  const { queued, leased, leaseMs, workerId } = spec;
  const table: string = spec.table;

  /** Rows this worker holds: every write after the claim is conditional on it. */
  const held = (id: string, on: Kysely<DB> = spec.database.db) => dynamic(on).updateTable(table).where('id', '=', id).where('lease_owner', '=', workerId);

  return {
    workerId,
    leaseMs,
    async claim(now, opts = {}) {
      let due = db
        .selectFrom(table)
        .select('id')
        .where((eb) =>
          eb.or([
            eb.and([eb('state', '=', queued), eb('run_after', '<=', now)]),
            eb.and([eb('state', '=', leased), eb('lease_expire_time', '<', now)]),
          ]),
        );
      // why: the builder is untyped (table named at run time); the caller's condition is written over table T.
      if (opts.where) due = due.where((eb) => opts.where!(eb as unknown as ExpressionBuilder<DB, T>));
      const picked = dialect.skipLocked(due.orderBy('run_after').limit(opts.limit ?? 1));
      return db
        .updateTable(table)
        .set((eb) => ({
          ...opts.set,
          state: leased,
          lease_owner: workerId,
          lease_expire_time: now + leaseMs,
          attempt: eb('attempt', '+', 1),
          update_time: now,
        }))
        .where('id', 'in', db.selectFrom(picked.as('due')).select('due.id'))
        .returningAll()
        .execute() as Promise<LeasedRow<T>[]>; // why: the statement is untyped (table named at run time); it returns every column of table T
    },
    async heartbeat(id, now = Date.now()) {
      const result = await held(id).set({ lease_expire_time: now + leaseMs }).executeTakeFirst();
      return Number(result.numUpdatedRows ?? 0) > 0;
    },
    async update(id, values) {
      const result = await held(id).set(values).executeTakeFirst();
      return Number(result.numUpdatedRows ?? 0) > 0;
    },
    async settle(id, values, trx) {
      return held(id, trx)
        .set({ update_time: Date.now(), ...values, lease_owner: null, lease_expire_time: null })
        .returningAll()
        .executeTakeFirst() as Promise<LeasedRow<T> | undefined>; // why: as in claim
    },
    async retry(id, opts) {
      const runAfter = Date.now() + backoffDelay(opts.baseMs, opts.attempt, opts.maxMs);
      const result = await held(id)
        .set({ update_time: Date.now(), ...opts.values, state: queued, run_after: runAfter, lease_owner: null, lease_expire_time: null })
        .executeTakeFirst();
      return Number(result.numUpdatedRows ?? 0) > 0 ? runAfter : undefined;
    },
    async handBack(opts) {
      let query = db
        .updateTable(table)
        .set((eb) => ({
          state: queued,
          run_after: opts.runAfter,
          lease_owner: null,
          lease_expire_time: null,
          ...(opts.uncount && { attempt: eb('attempt', '-', 1) }),
          update_time: Date.now(),
        }))
        .where('lease_owner', '=', workerId)
        .where('state', '=', leased);
      if (opts.id) query = query.where('id', '=', opts.id);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows ?? 0);
    },
  };
}
