// Database-free: runs unchanged in both vitest projects. Time is driven through the `now` argument.
import { describe, expect, it } from 'vitest';
import { ResourceExhausted } from '../../src/platform/errors.js';
import { addressKey, createRateLimiter } from '../../src/platform/http/rate-limit.js';

const MINUTE = 60_000;
const T0 = 1_700_000_000_000;

function refusal(action: () => void): ResourceExhausted {
  try {
    action();
  } catch (err) {
    expect(err).toBeInstanceOf(ResourceExhausted);
    return err as ResourceExhausted;
  }
  throw new Error('expected the hit to be refused');
}

describe('createRateLimiter', () => {
  it('allows `limit` hits per key and window, then refuses with RESOURCE_EXHAUSTED and RETRY_INFO', () => {
    const limiter = createRateLimiter({ limit: 3, windowMs: MINUTE });
    for (let i = 0; i < 3; i++) limiter.hit('10.0.0.1', T0 + i);
    const err = refusal(() => limiter.hit('10.0.0.1', T0 + 10));
    expect(err.status).toBe('RESOURCE_EXHAUSTED');
    expect(err.httpCode).toBe(429);
    expect(err.details).toEqual([{ type: 'RETRY_INFO', retry_delay: '60s' }]);
  });

  it('keeps keys independent', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE });
    limiter.hit('a', T0);
    refusal(() => limiter.hit('a', T0));
    expect(() => limiter.hit('b', T0)).not.toThrow();
    expect(limiter.check('b', T0).limited).toBe(true);
    expect(limiter.check('c', T0)).toEqual({ limited: false, retryAfterSeconds: 0 });
  });

  it('announces a positive retry delay, never beyond the window, counting down to the window end', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE });
    limiter.hit('k', T0);
    for (const elapsed of [0, 1, 999, 1_000, 30_000, 59_001, 59_999]) {
      const now = T0 + elapsed;
      const delay = refusal(() => limiter.hit('k', now)).retryAfterSeconds;
      expect(delay).toBeGreaterThan(0);
      expect(delay).toBeLessThanOrEqual(MINUTE / 1000);
      expect(delay).toBe(Math.ceil((MINUTE - elapsed) / 1000));
      // The announced delay is honest: waiting it out lands after the window end.
      expect(now + delay * 1000).toBeGreaterThanOrEqual(T0 + MINUTE);
      expect(limiter.check('k', now)).toEqual({ limited: true, retryAfterSeconds: delay });
    }
  });

  it('starts a fresh count once the window has rolled over', () => {
    const limiter = createRateLimiter({ limit: 2, windowMs: MINUTE });
    limiter.hit('k', T0);
    limiter.hit('k', T0 + 20_000);
    refusal(() => limiter.hit('k', T0 + MINUTE - 1));
    limiter.hit('k', T0 + MINUTE);
    limiter.hit('k', T0 + MINUTE + 5);
    // The new window started at T0 + MINUTE, so its end (not the old one's) sets the delay.
    expect(refusal(() => limiter.hit('k', T0 + MINUTE + 10_000)).retryAfterSeconds).toBe(50);
  });

  it('check counts nothing and reports the state the next hit would meet', () => {
    const limiter = createRateLimiter({ limit: 2, windowMs: MINUTE });
    for (let i = 0; i < 5; i++) expect(limiter.check('k', T0).limited).toBe(false);
    limiter.hit('k', T0);
    expect(limiter.check('k', T0).limited).toBe(false);
    limiter.hit('k', T0);
    expect(limiter.check('k', T0 + 15_000)).toEqual({ limited: true, retryAfterSeconds: 45 });
    expect(limiter.check('k', T0 + MINUTE)).toEqual({ limited: false, retryAfterSeconds: 0 });
  });

  it('does not count refused hits', () => {
    const limiter = createRateLimiter({ limit: 2, windowMs: MINUTE });
    limiter.hit('k', T0);
    limiter.hit('k', T0);
    for (let i = 0; i < 10; i++) refusal(() => limiter.hit('k', T0 + i));
    limiter.hit('k', T0 + MINUTE);
    limiter.hit('k', T0 + MINUTE);
    refusal(() => limiter.hit('k', T0 + MINUTE));
  });

  it('reset forgets a key', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE });
    limiter.hit('user@example.com', T0);
    refusal(() => limiter.hit('user@example.com', T0));
    limiter.reset('user@example.com');
    expect(limiter.check('user@example.com', T0).limited).toBe(false);
    expect(() => limiter.hit('user@example.com', T0)).not.toThrow();
  });

  it('treats limit 0 as unlimited', () => {
    const limiter = createRateLimiter({ limit: 0, windowMs: MINUTE });
    for (let i = 0; i < 10_000; i++) limiter.hit('k', T0);
    expect(limiter.check('k', T0)).toEqual({ limited: false, retryAfterSeconds: 0 });
  });

  it('remembers at most maxKeys keys, forgetting the oldest window first', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE, maxKeys: 3 });
    limiter.hit('a', T0);
    limiter.hit('b', T0 + 1);
    limiter.hit('c', T0 + 2);
    limiter.hit('d', T0 + 3);
    // 'a' had the oldest window, so it was evicted to make room for 'd'; the others are still counted.
    expect(limiter.check('a', T0 + 4).limited).toBe(false);
    for (const key of ['b', 'c', 'd']) expect(limiter.check(key, T0 + 4).limited).toBe(true);
  });

  it('evicts by window start, so a key whose window was renewed is not the next to go', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE, maxKeys: 2 });
    limiter.hit('a', T0);
    limiter.hit('b', T0 + 30_000);
    limiter.hit('a', T0 + MINUTE); // a's new window starts after b's
    limiter.hit('c', T0 + MINUTE + 1); // evicts b, the oldest window still open
    expect(limiter.check('b', T0 + MINUTE + 2).limited).toBe(false);
    expect(limiter.check('a', T0 + MINUTE + 2).limited).toBe(true);
    expect(limiter.check('c', T0 + MINUTE + 2).limited).toBe(true);
  });

  it('prefers dropping expired windows over live ones when full', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE, maxKeys: 2 });
    limiter.hit('old', T0);
    limiter.hit('live', T0 + MINUTE - 1);
    limiter.hit('new', T0 + MINUTE + 1); // 'old' expired: it goes, 'live' stays counted
    expect(limiter.check('live', T0 + MINUTE + 2).limited).toBe(true);
    expect(limiter.check('new', T0 + MINUTE + 2).limited).toBe(true);
  });

  it('stays bounded under many distinct keys', () => {
    const limiter = createRateLimiter({ limit: 1, windowMs: MINUTE, maxKeys: 100 });
    for (let i = 0; i < 10_000; i++) limiter.hit(`key-${i}`, T0 + i);
    // Only the 100 newest keys are remembered.
    expect(limiter.check('key-9999', T0 + 10_000).limited).toBe(true);
    expect(limiter.check('key-9900', T0 + 10_000).limited).toBe(true);
    expect(limiter.check('key-9899', T0 + 10_000).limited).toBe(false);
    expect(limiter.check('key-0', T0 + 10_000).limited).toBe(false);
  });

  it('refuses nonsensical options', () => {
    expect(() => createRateLimiter({ limit: -1, windowMs: MINUTE })).toThrow(RangeError);
    expect(() => createRateLimiter({ limit: 1.5, windowMs: MINUTE })).toThrow(RangeError);
    expect(() => createRateLimiter({ limit: 1, windowMs: 0 })).toThrow(RangeError);
    expect(() => createRateLimiter({ limit: 1, windowMs: MINUTE, maxKeys: 0 })).toThrow(RangeError);
  });
});

describe('createRateLimiter, token bucket', () => {
  const bucket = (limit: number, maxKeys?: number) => createRateLimiter({ limit, windowMs: MINUTE, algorithm: 'token-bucket', maxKeys });

  it('passes a burst of `limit`, then refuses with RETRY_INFO of one refill, not the rest of a window', () => {
    const limiter = bucket(60);
    for (let i = 0; i < 60; i++) limiter.hit('k', T0);
    const err = refusal(() => limiter.hit('k', T0));
    expect(err.httpCode).toBe(429);
    // 60 per minute: one token per second.
    expect(err.details).toEqual([{ type: 'RETRY_INFO', retry_delay: '1s' }]);
    expect(limiter.check('k', T0)).toEqual({ limited: true, retryAfterSeconds: 1 });
  });

  it('refills continuously: waiting the announced delay is enough, and the sustained rate is limit per window', () => {
    const limiter = bucket(2);
    limiter.hit('k', T0);
    limiter.hit('k', T0);
    const delay = refusal(() => limiter.hit('k', T0 + 10_000)).retryAfterSeconds;
    // One token takes 30 s; 10 s of it have passed.
    expect(delay).toBe(20);
    limiter.hit('k', T0 + 10_000 + delay * 1000);
    refusal(() => limiter.hit('k', T0 + 30_001));
    // Over ten minutes an empty bucket lets through 2 per minute, never a double burst at a boundary.
    let passed = 0;
    for (let t = T0 + MINUTE; t < T0 + 11 * MINUTE; t += 1000) {
      try {
        limiter.hit('k', t);
        passed++;
      } catch {
        // refused
      }
    }
    expect(passed).toBeLessThanOrEqual(2 + 20);
    expect(passed).toBeGreaterThanOrEqual(20);
  });

  it('charges a weighted hit its cost (at most the whole bucket), and names the wait for that cost', () => {
    const limiter = bucket(10);
    limiter.hit('k', T0, 4);
    limiter.hit('k', T0, 4);
    // 2 tokens left: a hit of 4 needs 2 more, 6 s each.
    expect(refusal(() => limiter.hit('k', T0, 4)).retryAfterSeconds).toBe(12);
    limiter.hit('k', T0, 2);
    // A cost beyond the bucket is charged as the whole bucket, so it passes once the key is idle.
    limiter.hit('other', T0, 1000);
    refusal(() => limiter.hit('other', T0 + 1000));
    limiter.hit('other', T0 + MINUTE, 1000);
  });

  it('does not count refused hits, and a full bucket is forgotten first when keys run out', () => {
    const limiter = bucket(1, 2);
    limiter.hit('a', T0);
    for (let i = 0; i < 10; i++) refusal(() => limiter.hit('a', T0 + i));
    limiter.hit('a', T0 + MINUTE);
    limiter.hit('b', T0 + MINUTE + 1);
    // 'a' spent last at T0 + MINUTE, so it is the oldest: 'c' evicts it, 'b' stays counted.
    limiter.hit('c', T0 + MINUTE + 2);
    expect(limiter.check('a', T0 + MINUTE + 3).limited).toBe(false);
    expect(limiter.check('b', T0 + MINUTE + 3).limited).toBe(true);
    expect(limiter.check('c', T0 + MINUTE + 3).limited).toBe(true);
  });

  it('charge counts work found dearer afterwards without refusing it; the key waits it off, beyond one window if need be', () => {
    const limiter = bucket(6);
    limiter.hit('k', T0);
    // The work turned out to cost 12 more: the bucket is 7 beyond empty.
    expect(() => limiter.charge('k', 12, T0)).not.toThrow();
    // One token is back after 10 s, so the next hit passes 8 tokens (80 s) later.
    expect(refusal(() => limiter.hit('k', T0 + MINUTE)).retryAfterSeconds).toBe(20);
    expect(limiter.check('k', T0 + MINUTE)).toEqual({ limited: true, retryAfterSeconds: 20 });
    limiter.hit('k', T0 + 80_000);
    // A key that still owes is not swept away as expired after one window.
    const owing = bucket(1, 10);
    owing.hit('owes', T0);
    owing.charge('owes', 4, T0);
    owing.hit('x', T0 + 2 * MINUTE);
    owing.hit('y', T0 + 2 * MINUTE + 1);
    expect(owing.check('owes', T0 + 2 * MINUTE + 2)).toEqual({ limited: true, retryAfterSeconds: 180 });
  });

  it('treats limit 0 as unlimited and refuses a cost that is not positive', () => {
    const off = bucket(0);
    for (let i = 0; i < 1000; i++) off.hit('k', T0, 100);
    expect(() => bucket(1).hit('k', T0, 0)).toThrow(RangeError);
    expect(() => bucket(1).hit('k', T0, Number.NaN)).toThrow(RangeError);
  });
});


describe('addressKey', () => {
  it('keeps IPv4, unwraps IPv4-mapped IPv6, and keys other IPv6 by /64', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('0:0:0:0:0:ffff:cb00:7107')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:DB8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8:1:3::1')).not.toBe(addressKey('2001:db8:1:2::1'));

  });
});

describe('createRateLimiter: token bucket', () => {
  const bucket = (limit: number, maxKeys?: number) => createRateLimiter({ limit, windowMs: MINUTE, algorithm: 'token-bucket', maxKeys });

  it('admits a burst of `limit`, then refuses with a retry delay of one token (windowMs / limit), not a whole window', () => {
    const limiter = bucket(6); // one token every 10 s
    const states = Array.from({ length: 6 }, () => limiter.take('u', T0));
    expect(states.map((s) => [s.limited, s.remaining])).toEqual([[false, 5], [false, 4], [false, 3], [false, 2], [false, 1], [false, 0]]);
    const refused = limiter.take('u', T0);
    expect(refused).toMatchObject({ limited: true, remaining: 0, retryAfterSeconds: 10 });
    expect(refusal(() => limiter.hit('u', T0 + 4_000)).retryAfterSeconds).toBe(6);
  });

  it('refills continuously: waiting the announced delay is enough, and a full minute restores the whole quota', () => {
    const limiter = bucket(6);
    for (let i = 0; i < 6; i++) limiter.hit('u', T0);
    const { retryAfterSeconds } = limiter.take('u', T0 + 1);
    expect(limiter.take('u', T0 + 1 + retryAfterSeconds * 1000).limited).toBe(false);
    expect(limiter.take('u', T0 + 1 + retryAfterSeconds * 1000).limited).toBe(true);
    expect(limiter.take('u', T0 + 10 * MINUTE).remaining).toBe(5);
  });

  it('reports t as the seconds until the bucket is full again', () => {
    const limiter = bucket(6);
    expect(limiter.take('u', T0).resetSeconds).toBe(10);
    expect(limiter.take('u', T0).resetSeconds).toBe(20);
    expect(limiter.take('u', T0 + 20_000).resetSeconds).toBe(10);
  });

  it('does not count refused requests, keeps keys apart, and check() changes nothing', () => {
    const limiter = bucket(2);
    limiter.hit('a', T0);
    limiter.hit('a', T0);
    for (let i = 0; i < 5; i++) expect(limiter.take('a', T0 + 1).limited).toBe(true);
    // One token after 30 s, not pushed back by the refusals.
    expect(limiter.take('a', T0 + 30_000).limited).toBe(false);
    expect(limiter.check('b', T0)).toEqual({ limited: false, retryAfterSeconds: 0 });
    expect(limiter.check('a', T0 + 30_000)).toEqual({ limited: true, retryAfterSeconds: 30 });
    expect(limiter.check('a', T0 + 30_000)).toEqual({ limited: true, retryAfterSeconds: 30 });
  });

  it('forgets a key once its bucket is full again, and stays bounded', () => {
    const limiter = bucket(1, 2);
    limiter.hit('a', T0);
    limiter.hit('b', T0 + 30_000);
    // 'a' is full again by now: dropping it loses nothing, so 'c' takes its slot and 'b' (half full) stays counted.
    limiter.hit('c', T0 + MINUTE + 1);
    expect(limiter.check('b', T0 + MINUTE + 2)).toEqual({ limited: true, retryAfterSeconds: 30 });
    expect(limiter.check('c', T0 + MINUTE + 2).limited).toBe(true);
    for (let i = 0; i < 1_000; i++) limiter.hit(`k${i}`, T0 + 2 * MINUTE);
    expect(limiter.check('k999', T0 + 2 * MINUTE).limited).toBe(true);
    expect(limiter.check('k0', T0 + 2 * MINUTE).limited).toBe(false);
  });

  it('states its quota policy, and limit 0 admits everything', () => {
    expect(bucket(600).policy).toEqual({ limit: 600, windowSeconds: 60 });
    const open = bucket(0);
    for (let i = 0; i < 1_000; i++) expect(open.take('u', T0).limited).toBe(false);
  });
});
