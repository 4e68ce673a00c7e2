/**
 * In-process rate limiting by key (a client address, an email address, a user id, ...). Security
 * limits (sign-up, password guesses, reset and invitation mails, the tenant surface, cold media
 * transforms) reach it through src/platform/limits/, which uses it as is on SQLite (one process) and
 * keeps the same records, computed by the same arithmetic (`limitArithmetic`), in the database on
 * PostgreSQL, so every process shares one budget. Per-process load shedding (analytics ingest) uses
 * it directly.
 *
 * Two algorithms behind one interface:
 *
 * - `fixed-window` (default): exact fixed windows, one per key, starting at the key's first hit. A key
 *   may spend `limit` until its window ends; then its count starts over. Chosen over the weighted
 *   two-window approximation because counts and retry delays are exact (a refused client that waits
 *   the announced delay is served, and the delay never exceeds the window), at the known price that a
 *   client timing its requests around a window end can get up to 2 × limit through within one
 *   window's length. For abuse throttling that bound is enough.
 * - `token-bucket`: a bucket of `limit` tokens per key, refilled continuously at `limit` per window.
 *   A burst of up to `limit` passes at once, after that the key gets one token per `windowMs / limit`,
 *   so over any stretch of time t at most `limit × (1 + t / windowMs)` is spent (no 2 × edge) and the
 *   retry delay is the time one refill takes, not the rest of a window. For work that costs CPU.
 *
 * A hit may cost more than 1 (weighted work); a cost above `limit` is charged as `limit`, so every
 * hit can pass once the key is idle long enough. `charge` adds cost found only after the work was done
 * (it never refuses; the key's next hits wait it off; a bucket beyond one window if need be).
 *
 * Memory: one small record per key, at most `maxKeys` of them. The Map keeps records in the order they
 * became due to expire (window start, or last spend for buckets), so records that no longer hold
 * anything (window ended, bucket full again) are dropped from its head in O(1) amortized time, and when
 * every slot holds a live record the oldest one is forgotten (that key starts afresh: the limiter fails
 * open for it rather than growing without bound).
 */
import { isIPv6 } from 'node:net';
import type { FastifyReply } from 'fastify';
import { ResourceExhausted } from '../errors.js';

/** What one counted (or refused) request left, for the RateLimit header fields. */
export interface RateLimitState {
  /** The request was refused (nothing was counted). */
  limited: boolean;
  /** Requests the key may still make now (`r`). */
  remaining: number;
  /** Seconds until the whole quota is available again (`t`); 0 when it is. */
  resetSeconds: number;
  /** Seconds until the next request would be admitted; 0 when it would be now. */
  retryAfterSeconds: number;
}

/** Counts hits per key and refuses those past the limit. */
export interface RateLimiter {
  /** `limit` per `windowSeconds` (the quota policy's `q` and `w`). */
  readonly policy: { limit: number; windowSeconds: number };
  /**
   * Counts one hit of `cost` (default 1) for key; throws ResourceExhausted (retry_delay = seconds
   * until the hit would pass) past the limit. limit 0 = unlimited.
   */
  hit(key: string, now?: number, cost?: number): void;
  /** Counts one hit for key unless it is over the limit, and tells what is left; never throws. */
  take(key: string, now?: number): RateLimitState;
  /** Counts `cost` for key without refusing: for work found to be dearer once it was done (later hits wait it off). */
  charge(key: string, cost: number, now?: number): void;
  /** Counts nothing; tells whether the next hit (cost 1) of key would be refused and in how many seconds it would pass (0 when not limited). */
  check(key: string, now?: number): { limited: boolean; retryAfterSeconds: number };
  /** Forgets a key (e.g. after a successful sign-in). */
  reset(key: string): void;
}

/** Options of `createRateLimiter`: `limit` per `windowMs` and key (0 = unlimited), at most `maxKeys` keys remembered. */
export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  maxKeys?: number;
  /** `fixed-window` (default) or `token-bucket`; see the module comment. */
  algorithm?: 'fixed-window' | 'token-bucket';
}

const DEFAULT_MAX_KEYS = 100_000;

/** Expired records dropped per call at most, so one call never pays for a long backlog. */
const SWEEP_PER_CALL = 2;

/** Refill is fractional: amounts this close count as equal, so float rounding never refuses an honest wait. */
const TOLERANCE = 1e-9;

/**
 * `fixed-window`: `at` is the window start, `used` the amount spent in it. `token-bucket`: `at` is the
 * last spend, `used` the tokens missing from a full bucket at that moment.
 */
export interface Entry {
  at: number;
  used: number;
}

/** What one algorithm decides, given a key's record (absent: nothing remembered). */
export interface Algorithm {
  /** The amount spent as of `now` (0 when the record holds nothing any more). */
  usedAt(record: Entry | undefined, now: number): number;
  /** Milliseconds until `used` has dropped enough for `cost` to pass. */
  waitMs(record: Entry, used: number, cost: number, now: number): number;
  /** The record after spending `cost` on top of `used`; `renewed` when it moves to the Map's tail. */
  spend(record: Entry | undefined, used: number, cost: number, now: number): { record: Entry; renewed: boolean };
  /** Whether a record holds nothing any more at `now` (it may be forgotten). */
  expired(record: Entry, now: number): boolean;
  /** Milliseconds until the whole quota is back, given the amount spent as of `now`. */
  fullMs(record: Entry, used: number, now: number): number;
}

function fixedWindow(limit: number, windowMs: number): Algorithm {
  const open = (record: Entry | undefined, now: number) => record !== undefined && now - record.at < windowMs;
  return {
    usedAt: (record, now) => (open(record, now) ? record!.used : 0),
    waitMs: (record, _used, _cost, now) => record.at + windowMs - now,
    spend(record, used, cost, now) {
      // A key whose window ended starts a new one now.
      if (open(record, now)) return { record: { at: record!.at, used: used + cost }, renewed: false };
      return { record: { at: now, used: cost }, renewed: true };
    },
    expired: (record, now) => !open(record, now),
    fullMs: (record, used, now) => (used === 0 ? 0 : record.at + windowMs - now),
  };
}

function tokenBucket(limit: number, windowMs: number): Algorithm {
  const usedAt = (record: Entry | undefined, now: number) => (record ? Math.max(0, record.used - ((now - record.at) * limit) / windowMs) : 0);
  return {
    usedAt,
    waitMs: (_record, used, cost) => ((used + cost - limit) * windowMs) / limit,
    spend: (_record, used, cost, now) => ({ record: { at: now, used: used + cost }, renewed: true }),
    // Full again: `used` refills at `limit` per window (a charge may have taken it beyond `limit`).
    expired: (record, now) => now - record.at >= (record.used * windowMs) / limit,
    fullMs: (_record, used) => (used * windowMs) / limit,
  };
}

/**
 * The arithmetic of one limit, shared by the in-memory limiter and the shared store
 * (src/platform/limits/), so both answer the same counts and delays for the same records.
 */
export function limitArithmetic(opts: Pick<RateLimiterOptions, 'limit' | 'windowMs' | 'algorithm'>) {
  const { limit, windowMs } = opts;
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError('windowMs must be a positive number');
  const algorithm = (opts.algorithm ?? 'fixed-window') === 'token-bucket' ? tokenBucket(limit, windowMs) : fixedWindow(limit, windowMs);
  const wholeSeconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000 - TOLERANCE));
  return {
    algorithm,
    wholeSeconds,
    /** Whether `cost` on top of `used` stays within the limit. */
    fits: (used: number, cost: number) => used + cost <= limit + TOLERANCE,
    retryAfterSeconds(record: Entry, used: number, cost: number, now: number): number {
      // Whole seconds, rounded up, so a client that waits exactly this long is served.
      return Math.max(1, Math.ceil(algorithm.waitMs(record, used, cost, now) / 1000 - TOLERANCE));
    },
    /** The state after a counted hit that left `record` (spent: its amount as of `now`). */
    counted(record: Entry, now: number): RateLimitState {
      const spent = algorithm.usedAt(record, now);
      return { limited: false, remaining: Math.max(0, Math.floor(limit - spent + TOLERANCE)), resetSeconds: wholeSeconds(algorithm.fullMs(record, spent, now)), retryAfterSeconds: 0 };
    },
  };
}

/** Builds an in-memory limiter (fixed windows unless `algorithm: 'token-bucket'`). */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { limit, windowMs } = opts;
  const maxKeys = opts.maxKeys ?? DEFAULT_MAX_KEYS;
  const { algorithm, retryAfterSeconds, wholeSeconds } = limitArithmetic(opts);
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');

  const records = new Map<string, Entry>();

  /** Drops a few expired records from the head, where the oldest are. */
  function sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_CALL; i++) {
      const head = records.entries().next();
      if (head.done || !algorithm.expired(head.value[1], now)) return;
      records.delete(head.value[0]);
    }
  }

  function store(key: string, record: Entry, renewed: boolean, now: number): void {
    if (!renewed) {
      records.set(key, record);
      return;
    }
    // Deleting first moves a renewed key to the tail, which keeps the Map ordered by expiry.
    records.delete(key);
    sweep(now);
    if (records.size >= maxKeys) {
      const oldest = records.keys().next();
      if (!oldest.done) records.delete(oldest.value);
    }
    records.set(key, record);
  }

  const unlimited: RateLimitState = { limited: false, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };

  return {
    policy: { limit, windowSeconds: wholeSeconds(windowMs) },
    take(key, now = Date.now()) {
      if (limit === 0) return unlimited;
      const record = records.get(key);
      const used = algorithm.usedAt(record, now);
      if (record && used + 1 > limit + TOLERANCE) {
        return { limited: true, remaining: 0, resetSeconds: wholeSeconds(algorithm.fullMs(record, used, now)), retryAfterSeconds: retryAfterSeconds(record, used, 1, now) };
      }
      const next = algorithm.spend(record, used, 1, now);
      store(key, next.record, next.renewed, now);
      const spent = used + 1;
      return {
        limited: false,
        remaining: Math.max(0, Math.floor(limit - spent + TOLERANCE)),
        resetSeconds: wholeSeconds(algorithm.fullMs(next.record, spent, now)),
        retryAfterSeconds: 0,
      };
    },
    hit(key, now = Date.now(), cost = 1) {
      if (limit === 0) return;
      if (!(cost > 0) || !Number.isFinite(cost)) throw new RangeError('cost must be a positive number');
      const charged = Math.min(cost, limit);
      const record = records.get(key);
      const used = algorithm.usedAt(record, now);
      // Refused hits are not counted: they cannot move the window's end or the bucket's level.
      if (record && used + charged > limit + TOLERANCE) throw new ResourceExhausted('too many requests; retry later', retryAfterSeconds(record, used, charged, now));
      const next = algorithm.spend(record, used, charged, now);
      store(key, next.record, next.renewed, now);
    },
    charge(key, cost, now = Date.now()) {
      if (limit === 0) return;
      if (!(cost > 0) || !Number.isFinite(cost)) throw new RangeError('cost must be a positive number');
      const record = records.get(key);
      const next = algorithm.spend(record, algorithm.usedAt(record, now), cost, now);
      store(key, next.record, next.renewed, now);
    },
    check(key, now = Date.now()) {
      const record = limit === 0 ? undefined : records.get(key);
      const used = algorithm.usedAt(record, now);
      if (!record || used + 1 <= limit + TOLERANCE) return { limited: false, retryAfterSeconds: 0 };
      return { limited: true, retryAfterSeconds: retryAfterSeconds(record, used, 1, now) };
    },
    reset(key) {
      records.delete(key);
    },
  };
}

/**
 * The key a client address is limited under: IPv4 as is, IPv4-mapped IPv6 as its IPv4, other IPv6 by
 * its /64 prefix (one subscriber usually holds a whole /64, so rotating addresses inside it must not
 * buy a fresh limit).
 */
export function addressKey(ip: string): string {
  if (!isIPv6(ip)) return ip;
  const address = ip.toLowerCase().split('%')[0];
  const groupsOf = (text: string) => (text === '' ? [] : text.split(':'));
  // An embedded IPv4 tail (`::ffff:1.2.3.4`) stands for two groups.
  const width = (groups: string[]) => groups.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const groups = tail === undefined ? groupsOf(head) : [...groupsOf(head), ...Array<string>(8 - width(groupsOf(head)) - width(groupsOf(tail))).fill('0'), ...groupsOf(tail)];
  const value = groups.map((g) => (g.includes('.') ? g : parseInt(g, 16).toString(16)));
  if (value.slice(0, 5).every((g) => g === '0') && value[5] === 'ffff') {
    const last = value.slice(6);
    if (last.length === 1) return last[0];
    const [hi, lo] = last.map((g) => parseInt(g, 16));
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
  }
  return `${value.slice(0, 4).join(':')}::/64`;
}

/** What `applyRateLimit` needs of a limiter: the in-memory one, or a shared one (src/platform/limits/). */
export interface TakingLimiter {
  readonly policy: { limit: number; windowSeconds: number };
  take(key: string): RateLimitState | Promise<RateLimitState>;
}

/**
 * Counts one request of `key` against `limiter` (limit 0: nothing to do), sets the RateLimit header
 * fields, and throws 429 RESOURCE_EXHAUSTED (RETRY_INFO, `Retry-After`) past the limit.
 */
export async function applyRateLimit(reply: FastifyReply, name: string, limiter: TakingLimiter, key: string): Promise<void> {
  if (limiter.policy.limit === 0) return;
  const state = await limiter.take(key);
  setRateLimitHeaders(reply, name, limiter, state);
  if (state.limited) throw new ResourceExhausted('too many requests; retry later', state.retryAfterSeconds);
}

/**
 * The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11) for one request:
 * `RateLimit-Policy: "<name>";q=<limit>;w=<window seconds>` and
 * `RateLimit: "<name>";r=<remaining>;t=<seconds until the whole quota is back>`.
 */
export function setRateLimitHeaders(reply: FastifyReply, name: string, limiter: TakingLimiter, state: RateLimitState): void {
  reply.header('ratelimit-policy', `"${name}";q=${limiter.policy.limit};w=${limiter.policy.windowSeconds}`);
  reply.header('ratelimit', `"${name}";r=${state.remaining};t=${state.resetSeconds}`);
}
