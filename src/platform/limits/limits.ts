/**
 * Limits that hold across processes (issue 24). Security limits (password guesses, reset and
 * invitation mails, the tenant request budget, ...) must not grow with the number of API processes,
 * or N processes give an attacker N times the budget. One small mechanism, one interface for both
 * databases, chosen by `SqlDialect.manyProcesses`:
 *
 * - SQLite (one process owns the file): the in-memory limiter of `rate-limit.ts`, unchanged.
 * - PostgreSQL: one row per (limit, key) in `limit_counters` (migration 2026-11-27-2000), read and
 *   written by ONE statement per hit: an `INSERT … ON CONFLICT DO UPDATE … WHERE <fits> RETURNING`
 *   that spends only when the hit fits (the row lock orders concurrent hits of a key, on any
 *   process), with the unchanged row read in the same statement when it does not. The record
 *   (`at`, `used`) is the in-memory algorithm's, and the answer is computed by the same arithmetic
 *   (`limitArithmetic`), so counts, RateLimit fields and retry delays are identical on both.
 *   `take`, the per-request check (tenant limit), is batched like `pointReader`: the takes one turn of
 *   the event loop received go as one statement, one row per key with its number of takes, admitting
 *   as many as fit (`admitted`, migration 2026-11-27-2020).
 *   The statements are prepared (named) once per connection; the table is UNLOGGED (migration
 *   2026-11-27-2010), so a hit's commit does not wait for a WAL flush (a database crash empties it).
 *   Keys are stored as their SHA-256: no client address or typed email address lands in a table.
 *   Expired rows are purged in bounded batches (SKIP LOCKED, so processes purging at once do not
 *   wait for each other) by a timer of each process.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '../db/database.js';
import { ResourceExhausted } from '../errors.js';
import { createRateLimiter, limitArithmetic, type Entry, type RateLimiterOptions, type RateLimitState } from '../http/rate-limit.js';

/** A limiter whose counts may live outside the process; the async twin of `RateLimiter`. */
export interface Limiter {
  /** `limit` per `windowSeconds` (the quota policy's `q` and `w`); limit 0 = unlimited. */
  readonly policy: { limit: number; windowSeconds: number };
  /** Counts one hit for key unless it is over the limit, and tells what is left; never throws. */
  take(key: string, now?: number): Promise<RateLimitState>;
  /** Counts one hit of `cost` (capped at `limit`); throws ResourceExhausted (RETRY_INFO) past the limit, counting nothing. */
  hit(key: string, now?: number, cost?: number): Promise<void>;
  /** Counts `cost` without refusing (work found dearer once done; later hits wait it off). */
  charge(key: string, cost: number, now?: number): Promise<void>;
  /** Counts nothing; whether the next hit (cost 1) would be refused, and in how many seconds it would pass. */
  check(key: string, now?: number): Promise<{ limited: boolean; retryAfterSeconds: number }>;
  /** Forgets a key (e.g. after a successful sign-in). */
  reset(key: string): Promise<void>;
}

export interface Limits {
  /** The limiter called `name` (unique per platform: it names the counters shared with other processes). */
  limiter(name: string, opts: Omit<RateLimiterOptions, 'maxKeys'>): Limiter;
  /** Deletes expired counters, at most `PURGE_BATCH × PURGE_BATCHES` rows; how many went (0 in memory). */
  purge(now?: number): Promise<number>;
  /** Stops the purge timer. */
  close(): void;
}

/** Rows one purge statement deletes at most, and statements per purge at most: bounded work per tick. */
export const PURGE_BATCH = 1_000;
const PURGE_BATCHES = 10;
const PURGE_EVERY_MS = 60_000;
/** Keys per batched take statement at most (bounds its arrays). */
const MAX_TAKE_BATCH = 1_000;

const TOLERANCE = 1e-9;

export function createLimits(database: Database, opts: { purgeEveryMs?: number; onPurgeError?: (err: unknown) => void } = {}): Limits {
  const names = new Set<string>();
  const claim = (name: string) => {
    if (names.has(name)) throw new Error(`limit ${name} is declared twice`);
    names.add(name);
  };
  if (!database.dialect.manyProcesses) {
    return {
      limiter(name, options) {
        claim(name);
        const memory = createRateLimiter(options);
        return {
          policy: memory.policy,
          take: async (key, now) => memory.take(key, now),
          hit: async (key, now, cost) => memory.hit(key, now, cost),
          charge: async (key, cost, now) => memory.charge(key, cost, now),
          check: async (key, now) => memory.check(key, now),
          reset: async (key) => memory.reset(key),
        };
      },
      purge: async () => 0,
      close() {},
    };
  }

  const { db } = database;
  async function purge(now = Date.now()): Promise<number> {
    let deleted = 0;
    for (let i = 0; i < PURGE_BATCHES; i++) {
      const result = await sql`delete from limit_counters where ctid = any(array(
          select ctid from limit_counters where expire_time <= ${now} limit ${PURGE_BATCH} for update skip locked))`.execute(db);
      const n = Number(result.numAffectedRows ?? 0);
      deleted += n;
      if (n < PURGE_BATCH) break;
    }
    return deleted;
  }
  const timer = setInterval(() => {
    purge().catch((err) => opts.onPurgeError?.(err));
  }, opts.purgeEveryMs ?? PURGE_EVERY_MS);
  timer.unref();

  return {
    limiter(name, options) {
      claim(name);
      return sharedLimiter(database, name, options);
    },
    purge,
    close: () => clearInterval(timer),
  };
}

/** The PostgreSQL limiter: counters in `limit_counters`, one statement per hit. */
function sharedLimiter(database: Database, name: string, options: Omit<RateLimiterOptions, 'maxKeys'>): Limiter {
  const { limit, windowMs } = options;
  const math = limitArithmetic(options);
  const bucket = options.algorithm === 'token-bucket';
  const { db } = database;
  const hashOf = (key: string) => createHash('sha256').update(key).digest('base64url');
  const unlimited: RateLimitState = { limited: false, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };

  /**
   * The algorithm in SQL over the stored row `c` (the same formulas as `rate-limit.ts`): the amount
   * spent as of now ($3), and the record after spending the cost ($4). One text per limit and mode,
   * run as a named prepared statement (parsed and planned once per connection, not per request).
   * Refused: the row as the statement found it (its snapshot precedes the upsert's own change).
   * Parameters: $1 limit name, $2 key hash, $3 now, $4 cost, $5 the record's expiry when new.
   */
  const statementOf = (always: boolean) => {
    const now = '$3::bigint';
    const cost = '$4::float8';
    const usedNow = bucket ? `greatest(0, c.used - (${now} - c.at)::float8 * ${limit}::float8 / ${windowMs}::float8)` : `(case when ${now} - c.at < ${windowMs} then c.used else 0 end)`;
    // Fixed window: a key whose window ended starts a new one now.
    const newAt = bucket ? now : `(case when ${now} - c.at < ${windowMs} then c.at else ${now} end)`;
    const newExpire = bucket ? `${now} + ceil((${usedNow} + ${cost}) * ${windowMs}::float8 / ${limit}::float8)::bigint` : `${newAt} + ${windowMs}`;
    const fits = always ? '' : `where ${usedNow} + ${cost} <= ${limit + TOLERANCE}::float8`;
    return `with up as (
        insert into limit_counters as c (limit_name, key_hash, at, used, expire_time) values ($1, $2, ${now}, ${cost}, $5::bigint)
        on conflict (limit_name, key_hash) do update set at = ${newAt}, used = ${usedNow} + ${cost}, expire_time = ${newExpire}
        ${fits}
        returning c.at, c.used)
      select true as counted, at, used from up
      union all
      select false, at, used from limit_counters where limit_name = $1 and key_hash = $2 and not exists (select from up)`;
  };
  type Spent = { counted: boolean; at: number; used: number };
  const upsert = { fits: database.prepare<Spent>(statementOf(false)), always: database.prepare<Spent>(statementOf(true)) };

  /** Spends `cost` on key (only if it fits, unless `always`); the stored record after, or before when refused. */
  async function spend(key: string, now: number, cost: number, always: boolean): Promise<{ counted: boolean; record?: Entry }> {
    const insertExpire = bucket ? now + Math.ceil((cost * windowMs) / limit) : now + windowMs;
    const rows = await (always ? upsert.always : upsert.fits)([name, hashOf(key), now, cost, insertExpire]);
    const row = rows[0];
    return row ? { counted: row.counted, record: { at: Number(row.at), used: Number(row.used) } } : { counted: false };
  }

  /**
   * `take` (the per-request check, e.g. the tenant limit) is batched: the takes a process receives
   * while its event loop handles one batch of I/O go to the server as one statement over `unnest`
   * arrays, one row per key with the number of takes, which admits as many as fit (`admitted`), so a
   * burst costs one round trip and one row write per key instead of one each (as `pointReader`).
   * Parameters: $1 limit name, $2 key hashes, $3 each key's now, $4 each key's number of takes.
   */
  const batchText = (() => {
    const now = 'excluded.at';
    const usedNow = bucket ? `greatest(0, c.used - (${now} - c.at)::float8 * ${limit}::float8 / ${windowMs}::float8)` : `(case when ${now} - c.at < ${windowMs} then c.used else 0 end)`;
    const newAt = bucket ? now : `(case when ${now} - c.at < ${windowMs} then c.at else ${now} end)`;
    // excluded.used: the takes wanted (at most `limit`, which is all a fresh key can admit).
    const admitted = `least(excluded.used, greatest(0, floor(${limit}::float8 - ${usedNow} + ${TOLERANCE})))`;
    const newExpire = bucket ? `${now} + ceil((${usedNow} + ${admitted}) * ${windowMs}::float8 / ${limit}::float8)::bigint` : `${newAt} + ${windowMs}`;
    const freshExpire = bucket ? `i.now + ceil(least(i.n, ${limit}) * ${windowMs}::float8 / ${limit}::float8)::bigint` : `i.now + ${windowMs}`;
    return `insert into limit_counters as c (limit_name, key_hash, at, used, expire_time, admitted)
        select $1, i.key_hash, i.now, least(i.n, ${limit}), ${freshExpire}, least(i.n, ${limit})
        from unnest($2::text[], $3::bigint[], $4::float8[]) as i(key_hash, now, n)
      on conflict (limit_name, key_hash) do update set at = ${newAt}, used = ${usedNow} + ${admitted}, expire_time = ${newExpire}, admitted = ${admitted}
      returning c.key_hash, c.at, c.used, c.admitted`;
  })();
  const batchUpsert = database.prepare(batchText);
  type Waiting = { now: number; resolve(state: RateLimitState): void; reject(err: unknown): void };
  let queued = new Map<string, Waiting[]>();

  async function runBatch(batch: Array<[string, Waiting[]]>): Promise<void> {
    try {
      const hashes = batch.map(([key]) => hashOf(key));
      const nows = batch.map(([, waiting]) => Math.max(...waiting.map((w) => w.now)));
      const rows = await batchUpsert([name, hashes, nows, batch.map(([, waiting]) => waiting.length)]);
      const byHash = new Map(rows.map((row) => [String(row.key_hash), row]));
      batch.forEach(([, waiting], k) => {
        const row = byHash.get(hashes[k]);
        const now = nows[k];
        if (!row) return waiting.forEach((w) => w.resolve(refusedState(undefined, 1, now)));
        const at = Number(row.at);
        const used = Number(row.used);
        const admitted = Number(row.admitted);
        // The first `admitted` takes of the key (in arrival order) passed, each seeing what it left.
        waiting.forEach((w, i) => w.resolve(i < admitted ? math.counted({ at, used: used - admitted + i + 1 }, now) : refusedState({ at, used }, 1, now)));
      });
    } catch (err) {
      for (const [, waiting] of batch) for (const w of waiting) w.reject(err);
    }
  }
  function flush(): void {
    const all = [...queued];
    queued = new Map();
    for (let i = 0; i < all.length; i += MAX_TAKE_BATCH) void runBatch(all.slice(i, i + MAX_TAKE_BATCH));
  }

  function refusedState(record: Entry | undefined, cost: number, now: number): RateLimitState {
    // No row seen: another process inserted it after this statement's snapshot; it holds a full spend.
    if (!record) return { limited: true, remaining: 0, resetSeconds: math.wholeSeconds(windowMs), retryAfterSeconds: 1 };
    const used = math.algorithm.usedAt(record, now);
    return {
      limited: true,
      remaining: 0,
      resetSeconds: math.wholeSeconds(math.algorithm.fullMs(record, used, now)),
      retryAfterSeconds: math.retryAfterSeconds(record, used, cost, now),
    };
  }

  return {
    policy: { limit, windowSeconds: math.wholeSeconds(windowMs) },
    take(key, now = Date.now()) {
      if (limit === 0) return Promise.resolve(unlimited);
      return new Promise<RateLimitState>((resolve, reject) => {
        // setImmediate runs after the poll phase: every take that arrived with this batch of I/O joins.
        if (queued.size === 0) setImmediate(flush);
        const waiting = queued.get(key);
        if (waiting) waiting.push({ now, resolve, reject });
        else queued.set(key, [{ now, resolve, reject }]);
      });
    },
    async hit(key, now = Date.now(), cost = 1) {
      if (limit === 0) return;
      if (!(cost > 0) || !Number.isFinite(cost)) throw new RangeError('cost must be a positive number');
      const charged = Math.min(cost, limit);
      const { counted, record } = await spend(key, now, charged, false);
      if (!counted) throw new ResourceExhausted('too many requests; retry later', refusedState(record, charged, now).retryAfterSeconds);
    },
    async charge(key, cost, now = Date.now()) {
      if (limit === 0) return;
      if (!(cost > 0) || !Number.isFinite(cost)) throw new RangeError('cost must be a positive number');
      await spend(key, now, cost, true);
    },
    async check(key, now = Date.now()) {
      if (limit === 0) return { limited: false, retryAfterSeconds: 0 };
      const row = await db.selectFrom('limit_counters').select(['at', 'used']).where('limit_name', '=', name).where('key_hash', '=', hashOf(key)).executeTakeFirst();
      if (!row) return { limited: false, retryAfterSeconds: 0 };
      const record = { at: Number(row.at), used: Number(row.used) };
      const used = math.algorithm.usedAt(record, now);
      if (math.fits(used, 1)) return { limited: false, retryAfterSeconds: 0 };
      return { limited: true, retryAfterSeconds: math.retryAfterSeconds(record, used, 1, now) };
    },
    async reset(key) {
      if (limit === 0) return;
      await db.deleteFrom('limit_counters').where('limit_name', '=', name).where('key_hash', '=', hashOf(key)).execute();
    },
  };
}
