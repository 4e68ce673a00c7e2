/**
 * In-process rate limiting by key (a client address, an email address, ...): used for the sign-up
 * surface (SIGNUP_RATE_LIMIT requests per minute per address) and for failed sign-in attempts.
 *
 * Algorithm: exact fixed windows, one per key, starting at the key's first hit. A key may be hit `limit`
 * times until its window ends; then its count starts over. Chosen over the weighted two-window
 * approximation because counts and retry delays are exact (a refused client that waits the announced
 * delay is served, and the delay never exceeds the window), at the known price that a client timing its
 * requests around a window end can get up to 2 × limit through within one window's length. For abuse
 * throttling that bound is enough.
 *
 * Memory: one small record per key, at most `maxKeys` of them. The Map keeps records in the order their
 * windows started, so expired records are dropped from its head in O(1) amortized time, and when every
 * slot holds a live window the oldest one is forgotten (that key starts afresh: the limiter fails open
 * for it rather than growing without bound).
 */
import { ResourceExhausted } from '../errors.js';

/** Counts hits per key within a window and refuses those past the limit. */
export interface RateLimiter {
  /** Counts one hit for key; throws ResourceExhausted (retry_delay = seconds until a slot frees) past the limit. limit 0 = unlimited. */
  hit(key: string, now?: number): void;
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
}

const DEFAULT_MAX_KEYS = 100_000;

/** Expired records dropped per call at most, so one call never pays for a long backlog. */
const SWEEP_PER_CALL = 2;

interface Window {
  start: number;
  count: number;
}

/** Builds an in-memory fixed-window limiter. */
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { limit, windowMs } = opts;
  const maxKeys = opts.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isInteger(limit) || limit < 0) throw new RangeError('limit must be a non-negative integer');
  if (!(windowMs > 0) || !Number.isFinite(windowMs)) throw new RangeError('windowMs must be a positive number');
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError('maxKeys must be a positive integer');

  const windows = new Map<string, Window>();

  /** The key's window if it is still open at `now`. */
  function openWindow(key: string, now: number): Window | undefined {
    const window = windows.get(key);
    if (window && now - window.start < windowMs) return window;
    return undefined;
  }

  function retryAfterSeconds(window: Window, now: number): number {
    // Whole seconds, rounded up, so a client that waits exactly this long finds the window ended.
    return Math.max(1, Math.ceil((window.start + windowMs - now) / 1000));
  }

  /** Drops a few expired records from the head, where the oldest windows are. */
  function sweep(now: number): void {
    for (let i = 0; i < SWEEP_PER_CALL; i++) {
      const head = windows.entries().next();
      if (head.done || now - head.value[1].start < windowMs) return;
      windows.delete(head.value[0]);
    }
  }

  function startWindow(key: string, now: number): Window {
    // Deleting first moves a renewed key to the tail, which keeps the Map ordered by window start.
    windows.delete(key);
    sweep(now);
    if (windows.size >= maxKeys) {
      const oldest = windows.keys().next();
      if (!oldest.done) windows.delete(oldest.value);
    }
    const window = { start: now, count: 0 };
    windows.set(key, window);
    return window;
  }

  return {
    hit(key, now = Date.now()) {
      if (limit === 0) return;
      const window = openWindow(key, now) ?? startWindow(key, now);
      // Refused hits are not counted: they cannot move the window's end, and the count stays ≤ limit.
      if (window.count >= limit) throw new ResourceExhausted('too many requests; retry later', retryAfterSeconds(window, now));
      window.count++;
    },
    check(key, now = Date.now()) {
      const window = limit === 0 ? undefined : openWindow(key, now);
      if (!window || window.count < limit) return { limited: false, retryAfterSeconds: 0 };
      return { limited: true, retryAfterSeconds: retryAfterSeconds(window, now) };
    },
    reset(key) {
      windows.delete(key);
    },
  };
}
