import { hash, verify, Algorithm } from '@node-rs/argon2';
import { ResourceExhausted } from '../errors.js';

/**
 * argon2id costs ~12 ms of CPU per hash here. Hashing runs on libuv's threads; we bound how many
 * run at once so a burst of sign-ins cannot starve everything else, and refuse past a queue bound.
 */
const MAX_CONCURRENT = Math.max(1, Number(process.env.PASSWORD_HASH_CONCURRENCY ?? 2));
const MAX_QUEUED = 256;
let running = 0;
const waiting: Array<() => void> = [];

async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_CONCURRENT) {
    if (waiting.length >= MAX_QUEUED) throw new ResourceExhausted('too many sign-in attempts in progress', 1);
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
  running++;
  try {
    return await work();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

const OPTIONS = { algorithm: Algorithm.Argon2id, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** argon2id hash in PHC format. */
export function hashPassword(password: string): Promise<string> {
  return bounded(() => hash(password, OPTIONS));
}

// Verified against when the account does not exist, so timing does not reveal which emails exist.
let dummyHash: Promise<string> | undefined;

/** Checks `password` against a stored hash (or a dummy one when there is none). */
export async function verifyPassword(stored: string | undefined, password: string): Promise<boolean> {
  const target = stored ?? (await (dummyHash ??= hashPassword('dummy-password-1')));
  const ok = await bounded(() => verify(target, password).catch(() => false));
  return stored !== undefined && ok;
}

/** SPEC 8: at least 8 characters with a letter and a digit. Returns the problem, or undefined. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < 8) return 'must be at least 8 characters';
  if (password.length > 256) return 'must be at most 256 characters';
  if (!/\p{L}/u.test(password) || !/\p{Nd}/u.test(password)) return 'must contain a letter and a digit';
  return undefined;
}
