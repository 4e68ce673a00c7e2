// The shared limiter (src/platform/limits/) answers exactly what the in-memory one answers, for the
// same hits at the same times: counts, RateLimit fields, retry delays, refusals. On SQLite
// createLimits is the in-memory limiter itself; on PostgreSQL the counters live in limit_counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '../support/databases.js';
import { createRateLimiter, type RateLimiterOptions } from '../../src/platform/http/rate-limit.js';
import { createLimits, type Limiter, type Limits } from '../../src/platform/limits/limits.js';
import { ResourceExhausted } from '../../src/platform/errors.js';

const MINUTE = 60_000;
const T0 = 1_700_000_000_000;

let fresh: FreshDatabase;
let limits: Limits;
let counter = 0;

beforeAll(async () => {
  fresh = await freshDatabase();
  limits = createLimits(fresh.database);
});
afterAll(async () => {
  limits?.close();
  await fresh?.cleanup();
});

type Step = ['take', number] | ['hit', number, number] | ['charge', number, number] | ['check', number] | ['reset'];

/** Runs `steps` on key `k` of a limiter, answering what each step said (a refused hit: its retry delay). */
async function play(limiter: Pick<Limiter, 'take' | 'hit' | 'charge' | 'check' | 'reset'>, steps: Step[]): Promise<unknown[]> {
  const said: unknown[] = [];
  for (const step of steps) {
    if (step[0] === 'take') said.push(await limiter.take('k', T0 + step[1]));
    else if (step[0] === 'check') said.push(await limiter.check('k', T0 + step[1]));
    else if (step[0] === 'charge') said.push(await limiter.charge('k', step[2], T0 + step[1]));
    else if (step[0] === 'reset') said.push(await limiter.reset('k'));
    else {
      try {
        await limiter.hit('k', T0 + step[1], step[2]);
        said.push('passed');
      } catch (err) {
        expect(err).toBeInstanceOf(ResourceExhausted);
        said.push((err as ResourceExhausted).retryAfterSeconds);
      }
    }
  }
  return said;
}

async function compare(options: Omit<RateLimiterOptions, 'maxKeys'>, steps: Step[]) {
  const memory = createRateLimiter(options);
  const asAsync = {
    take: async (k: string, now?: number) => memory.take(k, now),
    hit: async (k: string, now?: number, cost?: number) => memory.hit(k, now, cost),
    charge: async (k: string, cost: number, now?: number) => memory.charge(k, cost, now),
    check: async (k: string, now?: number) => memory.check(k, now),
    reset: async (k: string) => memory.reset(k),
  };
  const shared = limits.limiter(`parity_${++counter}`, options);
  const expected = await play(asAsync, steps);
  // The steps reach the limit (a refusal, a refused weighted hit), so the comparison covers them.
  if (options.limit > 0) expect(expected.some((s) => typeof s === 'number' || (s as { limited?: boolean } | undefined)?.limited === true)).toBe(true);
  expect(await play(shared, steps)).toEqual(expected);
}

describe('the shared limiter answers as the in-memory limiter', () => {
  const steps: Step[] = [
    ['take', 0],
    ['take', 1_000],
    ['hit', 2_000, 2],
    ['take', 3_000],
    ['take', 4_000],
    ['check', 5_000],
    ['charge', 6_000, 2],
    ['check', 30_000],
    ['take', 45_000],
    ['hit', 59_999, 1],
    ['take', 61_000],
    ['hit', 62_000, 10],
    ['check', 63_000],
    ['reset'],
    ['take', 64_000],
    ['take', 200_000],
  ];

  it('with fixed windows: counts, remaining, reset seconds and retry delays are the same', async () => {
    await compare({ limit: 3, windowMs: MINUTE }, steps);
  });

  it('with token buckets: refill between hits, weighted hits and charges are the same', async () => {
    await compare({ limit: 3, windowMs: MINUTE, algorithm: 'token-bucket' }, steps);
  });

  it('admits exactly the limit of takes of one key arriving at once, each told what it left', async () => {
    const shared = limits.limiter(`parity_${++counter}`, { limit: 3, windowMs: MINUTE, algorithm: 'token-bucket' });
    const states = await Promise.all(Array.from({ length: 5 }, () => shared.take('burst', T0)));
    expect(states.filter((s) => !s.limited).map((s) => s.remaining)).toEqual([2, 1, 0]);
    expect(states.filter((s) => s.limited).map((s) => s.retryAfterSeconds)).toEqual([20, 20]);
  });

  it('counts nothing and refuses nothing with limit 0', async () => {
    await compare({ limit: 0, windowMs: MINUTE }, [['take', 0], ['hit', 1, 5], ['check', 2]]);
  });
});
