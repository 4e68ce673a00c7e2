/**
 * In-process rate limiting by key (a client address, an email address, a user id), with two
 * algorithms behind one interface and one bounded key store:
 *
 * - `fixed-window` (the default; sign-up per address, failed sign-ins per email and address): exact
 *   fixed windows, one per key, starting at the key's first hit. A key may be hit `limit` times until
 *   its window ends; then its count starts over. Counts and retry delays are exact (a refused client
 *   that waits the announced delay is served, and the delay never exceeds the window), at the known
 *   price that a client timing its requests around a window end can get up to 2 × limit through
 *   within one window's length. For abuse throttling that bound is enough.
 * - `token-bucket` (the tenant surface, per user): a bucket of `limit` tokens per key, refilled
 *   continuously at `limit` per `windowMs`; a request takes one token. A client may burst up to
 *   `limit` at once and then runs at the refill rate: no window edge to time, and a refused client
 *   waits only until the next token (less than `windowMs / limit`), not until a window ends.
 *
 * Refused hits take nothing, in both.
 *
 * Memory: one small record per key, at most `maxKeys` of them. The Map keeps records in the order
 * they were (re)started or last touched, so records that no longer hold anything (an ended window, a
 * full bucket) are dropped from its head in O(1) amortized time, and when every slot holds a live
 * record the oldest one is forgotten (that key starts afresh: the limiter fails open for it rather
 * than growing without bound).
 */
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
  /** `limit` requests per `windowSeconds` (the quota policy's `q` and `w`). */
  readonly policy: { limit: number; windowSeconds: number };
  /** Counts one hit for key; throws ResourceExhausted (retry_delay = seconds until a slot frees) past the limit. limit 0 = unlimited. */
  hit(key: string, now?: number): void;
  /** Counts one hit for key unless it is over the limit, and tells what is left; never throws. */
  take(key: string, now?: number): RateLimitState;
  /** Counts nothing; tells whether the next hit of key would be refused and in how many seconds a slot frees (0 when not limited). */
  check(key: string, now?: number): { limited: boolean; retryAfterSeconds: number };
  /** Forgets a key (e.g. after a successful sign-in). */
  reset(key: string): void;
}

/** Options of `createRateLimiter`: `limit` hits per `windowMs` and key (0 = unlimited), at most `maxKeys` keys remembered. */
export interface RateLimiterOptions {
  limit: number;
  windowMs: number;
  maxKeys?: number;
  algorithm?: 'fixed-window' | 'token-bucket';
}

const DEFAULT_MAX_KEYS = 100_000;

/** Records dropped per call at most, so one call never pays for a long backlog. */
const SWEEP_PER_CALL = 2;

/** One key's record: a window (`start`, `count`) or a bucket (`start` = last refill, `count` = tokens). */
interface Slot {
  start: number;
  count: number;
}

/** The algorithm-specific half of a limiter. */
interface Algorithm {
  /** A new key's slot. */
  fresh(now: number): Slot;
  /** Brings a slot up to `now`; answers false when the slot can be forgotten (it holds nothing). */
  advance(slot: Slot, now: number): boolean;
  /** Takes one request from an advanced slot; false when it has none left. */
  take(slot: Slot): boolean;
  /** Whether the slot is moved to the Map's tail on every take (last-touch order) or only when started. */
  touchMoves: boolean;
  remaining(slot: Slot): number;
  /** Milliseconds until the next request would be admitted (0: now). */
  waitMs(slot: Slot, now: number): number;
  /** Milliseconds until the whole quota is back. */
  resetMs(slot: Slot, now: number): number;
}

function fixedWindow(limit: number, windowMs: number): Algorithm {
  return {
    fresh: (now) => ({ start: now, count: 0 }),
    advance: (slot, now) => now - slot.start < windowMs,
    take(slot) {
      if (slot.count >= limit) return false;
      slot.count++;
      return true;
    },
    touchMoves: false,
    remaining: (slot) => limit - slot.count,
    waitMs: (slot, now) => (slot.count < limit ? 0 : slot.start + windowMs - now),
    resetMs: (slot, now) => (slot.count === 0 ? 0 : slot.start + windowMs - now),
  };
}

function tokenBucket(limit: number, windowMs: number): Algorithm {
  const perMs = limit / windowMs;
  return {
    fresh: (now) => ({ start: now, count: limit }),
    advance(slot, now) {
      slot.count = Math.min(limit, slot.count + Math.max(0, now - slot.start) * perMs);
      slot.start = now;
      return slot.count < limit;
    },
    take(slot) {
      if (slot.count < 1) return false;
      slot.count -= 1;
      return true;
    },
    touchMoves: true,
    remaining: (slot) => Math.floor(slot.count),
    waitMs: (slot) => (slot.count >= 1 ? 0 : (1 - slot.count) / perMs),
    resetMs: (slot) => (limit - slot.count) / perMs,
  };
}

/** Whole seconds, rounded up, so a client that waits exactly this long finds the slot free. */
const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** Builds an in-memory limiter (fixed windows unless `algorithm` says otherwise). */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { limit, windowMs } = opts;
  const maxKeys = opts.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError('windowMs must be a positive number');
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');
  const algorithm = (opts.algorithm ?? 'fixed-window') === 'token-bucket' ? tokenBucket(limit, windowMs) : fixedWindow(limit, windowMs);

  const slots = new Map<string, Slot>();

  /** The key's slot if it still holds something at `now`, advanced to `now`. */
  function live(key: string, now: number): Slot | undefined {
    const slot = slots.get(key);
    if (slot && algorithm.advance(slot, now)) return slot;
    return undefined;
  }

  /** Drops a few records from the head that hold nothing any more. */
  function sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_CALL; i++) {
      const head = slots.entries().next();
      if (head.done || algorithm.advance({ ...head.value[1] }, now)) return;
      slots.delete(head.value[0]);
    }
  }

  /** (Re)inserts a slot at the tail, making room first. */
  function place(key: string, slot: Slot, now: number): Slot {
    // Deleting first moves the key to the tail, which keeps the Map ordered.
    slots.delete(key);
    sweep(now);
    if (slots.size >= maxKeys) {
      const oldest = slots.keys().next();
      if (!oldest.done) slots.delete(oldest.value);
    }
    slots.set(key, slot);
    return slot;
  }

  const unlimited: RateLimitState = { limited: false, remaining: 0, resetSeconds: 0, retryAfterSeconds: 0 };

  function take(key: string, now = Date.now()): RateLimitState {
    if (limit === 0) return unlimited;
    let slot = live(key, now);
    if (!slot) slot = place(key, algorithm.fresh(now), now);
    else if (algorithm.touchMoves) place(key, slot, now);
    const admitted = algorithm.take(slot);
    return {
      limited: !admitted,
      remaining: algorithm.remaining(slot),
      resetSeconds: seconds(algorithm.resetMs(slot, now)),
      retryAfterSeconds: admitted ? 0 : Math.max(1, seconds(algorithm.waitMs(slot, now))),
    };
  }

  return {
    policy: { limit, windowSeconds: seconds(windowMs) },
    take,
    hit(key, now = Date.now()) {
      const state = take(key, now);
      if (state.limited) throw new ResourceExhausted('too many requests; retry later', state.retryAfterSeconds);
    },
    check(key, now = Date.now()) {
      const slot = limit === 0 ? undefined : slots.get(key);
      // A copy: checking must not change the slot (a bucket's refill is applied by the next take).
      const current = slot ? { ...slot } : undefined;
      if (!current || !algorithm.advance(current, now) || algorithm.waitMs(current, now) === 0) return { limited: false, retryAfterSeconds: 0 };
      return { limited: true, retryAfterSeconds: Math.max(1, seconds(algorithm.waitMs(current, now))) };
    },
    reset(key) {
      slots.delete(key);
    },
  };
}

/**
 * Counts one request of `key` against `limiter` (limit 0: nothing to do), sets the RateLimit header
 * fields, and throws 429 RESOURCE_EXHAUSTED (RETRY_INFO, `Retry-After`) past the limit.
 */
export function applyRateLimit(reply: FastifyReply, name: string, limiter: RateLimiter, key: string): void {
  if (limiter.policy.limit === 0) return;
  const state = limiter.take(key);
  setRateLimitHeaders(reply, name, limiter, state);
  if (state.limited) throw new ResourceExhausted('too many requests; retry later', state.retryAfterSeconds);
}

/**
 * The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-11) for one request:
 * `RateLimit-Policy: "<name>";q=<limit>;w=<window seconds>` and
 * `RateLimit: "<name>";r=<remaining>;t=<seconds until the whole quota is back>`.
 */
export function setRateLimitHeaders(reply: FastifyReply, name: string, limiter: RateLimiter, state: RateLimitState): void {
  reply.header('ratelimit-policy', `"${name}";q=${limiter.policy.limit};w=${limiter.policy.windowSeconds}`);
  reply.header('ratelimit', `"${name}";r=${state.remaining};t=${state.resetSeconds}`);
}
