/**
 * Shared helpers of the sign-in, sign-up, tenancy and Operations HTTP tests: assertions on the canonical
 * error body, row counts, polling, and real Operation handlers (registered on the real Operations
 * service, run by the real workers) whose progress a test controls.
 */
import { expect } from 'vitest';
import type { Kysely } from 'kysely';
import type { Operations, OperationRun } from '../../src/platform/jobs/operations.js';
import { canonicalErrorProblem } from './canonical.js';

export const CAPTCHA = 'dev-captcha';
export const TENANT = '/tenant-api/v1';
export const SITE = '/site-api/v1';

type Response = { statusCode: number; headers: Record<string, unknown>; body: string; json(): any };

/**
 * Asserts the canonical error body (SPEC 7): `{error: {code, status, message, details}}`, `code` equal to the
 * HTTP status, a REQUEST_INFO detail naming the request, and (optionally) the field or reason it names.
 * Answers the `error` object for further checks.
 */
export function expectError(res: Response, httpCode: number, status: string, opts: { field?: string; reason?: string } = {}): any {
  expect(res.statusCode, res.body).toBe(httpCode);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  const { error } = body;
  expect(error).toMatchObject({ code: httpCode, status });
  expect(typeof error.message).toBe('string');
  expect(Array.isArray(error.details)).toBe(true);
  for (const d of error.details) expect(typeof d.type).toBe('string');
  const info = error.details.find((d: any) => d.type === 'REQUEST_INFO');
  expect(info, 'every error body carries a REQUEST_INFO').toBeDefined();
  expect(typeof info.request_id).toBe('string');
  expect(info.request_id).toBe(res.headers['x-request-id']);
  expect(canonicalErrorProblem(res as never), 'a canonical error body').toBeUndefined();
  if (opts.field !== undefined) {
    const fields = error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field);
    expect(fields, `FIELD_VIOLATION naming ${opts.field} in ${res.body}`).toContain(opts.field);
    expect(error.message).toContain(opts.field);
  }
  if (opts.reason !== undefined) {
    const reasons = error.details.filter((d: any) => d.type === 'PRECONDITION_FAILURE').map((d: any) => d.reason);
    expect(reasons).toContain(opts.reason);
  }
  return error;
}

/** A 429 with a RETRY_INFO detail (`retry_delay` like "42s", at most `maxSeconds`) and a matching Retry-After header. */
export function expectRateLimited(res: Response, maxSeconds: number): number {
  const error = expectError(res, 429, 'RESOURCE_EXHAUSTED');
  const retry = error.details.find((d: any) => d.type === 'RETRY_INFO');
  expect(retry, `RETRY_INFO in ${res.body}`).toBeDefined();
  expect(retry.retry_delay).toMatch(/^\d+s$/);
  const seconds = parseInt(retry.retry_delay, 10);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(maxSeconds);
  expect(res.headers['retry-after']).toBe(String(seconds));
  return seconds;
}

/** The tables a sign-up writes to. */
export const SIGNUP_TABLES = ['users', 'accounts', 'memberships', 'projects', 'websites', 'operations', 'signup_handoffs', 'idempotency_keys'] as const;

/** Row counts of `tables`, for "nothing was created" checks. */
export async function countRows(db: Kysely<any>, tables: readonly string[] = SIGNUP_TABLES): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const row = await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    counts[table] = Number(row.n);
  }
  return counts;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers something truthy; fails after `timeoutMs` (generous: this is no timing assertion). */
export async function eventually<T>(probe: () => Promise<T | undefined | false | null>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(15);
  }
}

/** Reads one Operation row straight from the database. */
export async function operationRow(db: Kysely<any>, id: string): Promise<Record<string, any> | undefined> {
  return db.selectFrom('operations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Waits until the Operation row is DONE (through the database, so it works for Operations outside any website). */
export async function waitDone(db: Kysely<any>, id: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  return eventually(async () => {
    const row = await operationRow(db, id);
    return row?.state === 'DONE' ? row : undefined;
  }, `operation ${id} to finish`, timeoutMs);
}

/** Payload of the TEST_WAIT handler. */
export interface WaitPayload {
  /** Identifies the run for `started`/`release`. */
  key: string;
  /** `metadata.step` the handler sets first. */
  step?: string;
  /** `metadata.progress_percent` the handler sets with the step (only when given). */
  progress?: number;
}

/**
 * Controls of the test handlers installed by `installTestHandlers`:
 * - TEST_WAIT sets its step (and progress if asked), then loops on `op.checkpoint()` with short sleeps
 *   until released (answers `{key}`) or cancelled (the checkpoint throws CANCELLED); bounded, it fails
 *   with a plain Error after `maxWaitMs` so a broken test cannot hang a worker.
 * - TEST_RECORD records the Operation id in `ran` and answers `{ran: id}`.
 * - TEST_THROW throws a plain Error whose message must never reach the API.
 */
export interface TestHandlers {
  started: Set<string>;
  /** Keys of TEST_WAIT runs that left their handler, however they ended. */
  exited: Set<string>;
  /** Operation ids and statuses the TEST_WAIT failure hook (`onFailure`) was called with. */
  failures: Array<{ id: string; status: string }>;
  ran: string[];
  release(key: string): void;
  /** Waits until the TEST_WAIT run with `key` is inside its handler. */
  waitStarted(key: string): Promise<void>;
}

export const SECRET_FAILURE_TEXT = 'secret-internal-detail-42';

export function installTestHandlers(operations: Operations, opts: { maxWaitMs?: number } = {}): TestHandlers {
  const maxWaitMs = opts.maxWaitMs ?? 8_000;
  const started = new Set<string>();
  const exited = new Set<string>();
  const released = new Set<string>();
  const failures: Array<{ id: string; status: string }> = [];
  const ran: string[] = [];
  operations.register('TEST_WAIT', {
    async run(op: OperationRun) {
      const payload = op.payload as unknown as WaitPayload;
      try {
        await op.setStep(payload.step ?? 'WAITING', payload.progress);
        started.add(payload.key);
        const deadline = Date.now() + maxWaitMs;
        while (!released.has(payload.key)) {
          await op.checkpoint();
          if (Date.now() > deadline) throw new Error(`TEST_WAIT ${payload.key} was never released`);
          await sleep(10);
        }
        return { key: payload.key };
      } finally {
        exited.add(payload.key);
      }
    },
    async onFailure(op, error) {
      failures.push({ id: op.id, status: error.status });
    },
  });
  operations.register('TEST_RECORD', {
    async run(op) {
      ran.push(op.id);
      await sleep(2);
      return { ran: op.id };
    },
  });
  operations.register('TEST_THROW', {
    async run() {
      throw new Error(SECRET_FAILURE_TEXT);
    },
  });
  return {
    started,
    exited,
    failures,
    ran,
    release: (key) => void released.add(key),
    waitStarted: (key) => eventually(async () => started.has(key), `TEST_WAIT ${key} to start`).then(() => undefined),
  };
}

/** Enqueues a test Operation (committed at once) and wakes the in-process worker; answers its id. */
export async function enqueueTest(
  operations: Operations,
  db: Kysely<any>,
  request: { type: string; accountId: string; websiteId?: string; payload?: Record<string, unknown> },
  now = Date.now(),
): Promise<string> {
  const id = await operations.enqueue(db, request, now);
  operations.wake();
  return id;
}
