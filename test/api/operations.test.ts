/**
 * Operations (SPEC 2.16, 3.3, 4.3; RUNTIME.md): the resource shape on the tenant surface, `:cancel`, and the
 * durable mechanism behind it: checkpoints, failures, crash recovery through expired leases, the attempt
 * bound, exclusive claims between concurrent workers, and retention. Test handlers are registered on the
 * real Operations service and run by the real workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOperations } from '../../src/platform/jobs/operations.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { freshDatabase } from '../support/databases.js';
import {
  SECRET_FAILURE_TEXT,
  TENANT,
  enqueueTest,
  eventually,
  expectError,
  installTestHandlers,
  operationRow,
  sleep,
  waitDone,
  type TestHandlers,
} from '../support/fixtures-auth.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

let t: TestApp;
let handlers: TestHandlers;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  handlers = installTestHandlers(t.platform.operations);
  alice = await t.signUpProvisioned();
});
afterAll(() => t?.close());

const db = () => t.fresh.database.db;
const opName = (id: string) => `websites/${alice.websiteId}/operations/${id}`;
const getOp = (name: string) => t.request('GET', `${TENANT}/${name}`, { token: alice.token });
const cancelOp = (name: string) => t.request('POST', `${TENANT}/${name}:cancel`, { token: alice.token });

/** Enqueues a test Operation on Alice's website and wakes the worker; answers its name. */
async function startOnWebsite(type: string, payload: Record<string, unknown> = {}): Promise<{ id: string; name: string }> {
  const id = await enqueueTest(t.platform.operations, db(), { type, accountId: alice.accountId, websiteId: alice.websiteId, payload });
  return { id, name: opName(id) };
}

/** Writes an Operation in the state a crashed worker leaves it: RUNNING, owned by a dead worker, lease expired. */
async function enqueueAbandoned(type: string, attempt: number, payload: Record<string, unknown> = {}): Promise<string> {
  const now = Date.now();
  const id = await db()
    .transaction()
    .execute(async (trx) => {
      const id = await t.platform.operations.enqueue(trx, { type, accountId: alice.accountId, websiteId: alice.websiteId, payload }, now);
      await trx
        .updateTable('operations')
        .set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: now - 1_000, attempt, step: 'HALFWAY' })
        .where('id', '=', id)
        .execute();
      return id;
    });
  t.platform.operations.wake();
  return id;
}

/**
 * Runs `work` while the in-process worker is busy with test Operations queued ahead of everything else,
 * so that whatever `work` enqueues stays QUEUED until it returns.
 */
async function withWorkerBusy<T>(work: () => Promise<T>): Promise<T> {
  const keys = ['busy-1', 'busy-2', 'busy-3', 'busy-4'].map((k) => `${k}-${Math.random().toString(36).slice(2, 8)}`);
  const ids: string[] = [];
  for (const key of keys) {
    ids.push(await enqueueTest(t.platform.operations, db(), { type: 'TEST_WAIT', accountId: 'test-busy', payload: { key } }, Date.now() - 60_000));
  }
  try {
    await handlers.waitStarted(keys[0]);
    return await work();
  } finally {
    for (const key of keys) handlers.release(key);
    for (const id of ids) await waitDone(db(), id);
  }
}

describe('Operation resource', () => {
  it('has name, done, metadata.type and metadata.step, exactly one of response/error once done, and no etag', async () => {
    const res = await getOp(alice.operation);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBeUndefined();
    const op = res.json();
    expect(op.name).toBe(alice.operation);
    expect(op.done).toBe(true);
    expect(op.metadata.type).toBe('PROVISION_WEBSITE');
    expect(typeof op.metadata.step).toBe('string');
    expect(op).not.toHaveProperty('etag');
    expect('response' in op !== 'error' in op).toBe(true);
    expect(op.response.website_url).toMatch(/^https?:\/\//);
    expect(Object.keys(op).sort()).toEqual(['done', 'metadata', 'name', 'response']);
  });

  it('answers a running Operation with done false and neither response nor error', async () => {
    const key = 'shape-running';
    const { name } = await startOnWebsite('TEST_WAIT', { key });
    try {
      await handlers.waitStarted(key);
      const op = (await getOp(name)).json();
      expect(op).toMatchObject({ name, done: false, metadata: { type: 'TEST_WAIT', step: 'WAITING' } });
      expect(op).not.toHaveProperty('response');
      expect(op).not.toHaveProperty('error');
    } finally {
      handlers.release(key);
    }
    const done = await t.waitForOperation(name, alice.token);
    expect(done.response).toEqual({ key });
    expect(done).not.toHaveProperty('error');
  });

  it('answers 404 NOT_FOUND for an unknown Operation id under an accessible website', async () => {
    expectError(await getOp(opName('00000000000000000000')), 404, 'NOT_FOUND');
    expectError(await cancelOp(opName('00000000000000000000')), 404, 'NOT_FOUND');
  });

  it('cannot be created or listed by clients', async () => {
    expectError(await t.request('GET', `${TENANT}/websites/${alice.websiteId}/operations`, { token: alice.token }), 404, 'NOT_FOUND');
    const create = await t.request('POST', `${TENANT}/websites/${alice.websiteId}/operations`, { token: alice.token, body: { metadata: { type: 'PROVISION_WEBSITE' } } });
    expectError(create, 404, 'NOT_FOUND');
  });

  it('shows progress_percent only when the handler counts something', async () => {
    const counted = { key: 'progress-counted', step: 'COUNTING', progress: 40 };
    const plain = { key: 'progress-plain', step: 'THINKING' };
    const a = await startOnWebsite('TEST_WAIT', counted);
    try {
      await handlers.waitStarted(counted.key);
      const op = (await getOp(a.name)).json();
      expect(op.metadata).toMatchObject({ step: 'COUNTING', progress_percent: 40 });
    } finally {
      handlers.release(counted.key);
    }
    await t.waitForOperation(a.name, alice.token);

    const b = await startOnWebsite('TEST_WAIT', plain);
    try {
      await handlers.waitStarted(plain.key);
      const op = (await getOp(b.name)).json();
      expect(op.metadata.step).toBe('THINKING');
      expect(op.metadata).not.toHaveProperty('progress_percent');
    } finally {
      handlers.release(plain.key);
    }
    const done = await t.waitForOperation(b.name, alice.token);
    expect(done.metadata).not.toHaveProperty('progress_percent');
    // Provisioning counts nothing either.
    expect((await getOp(alice.operation)).json().metadata).not.toHaveProperty('progress_percent');
  });
});

describe(':cancel', () => {
  it('answers 400 FAILED_PRECONDITION for a finished Operation and leaves it unchanged', async () => {
    const before = (await getOp(alice.operation)).json();
    expectError(await cancelOp(alice.operation), 400, 'FAILED_PRECONDITION');
    expect((await getOp(alice.operation)).json()).toEqual(before);
  });

  it('answers a running Operation still not done; the worker stops at its next checkpoint and ends it with CANCELLED (499)', async () => {
    const key = 'cancel-running';
    const { id, name } = await startOnWebsite('TEST_WAIT', { key });
    try {
      await handlers.waitStarted(key);
      const res = await cancelOp(name);
      expect(res.statusCode, res.body).toBe(200);
      const answered = res.json();
      expect(answered).toMatchObject({ name, done: false });
      expect(answered).not.toHaveProperty('error');
      expect(answered).not.toHaveProperty('response');

      const done = await t.waitForOperation(name, alice.token);
      expect(done.done).toBe(true);
      expect(done).not.toHaveProperty('response');
      expect(done.error).toMatchObject({ code: 499, status: 'CANCELLED' });
      expect(typeof done.error.message).toBe('string');
      expect(Array.isArray(done.error.details)).toBe(true);
      expect(handlers.failures).toContainEqual({ id, status: 'CANCELLED' });
      // Cancelling again is cancelling a finished Operation.
      expectError(await cancelOp(name), 400, 'FAILED_PRECONDITION');
    } finally {
      handlers.release(key);
    }
  });

  it('stops a queued provisioning Operation before it runs; the website ends FAILED', async () => {
    const signup = await withWorkerBusy(async () => {
      const bob = await t.signUp();
      const res = await t.request('POST', `${TENANT}/${bob.operation}:cancel`, { token: bob.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().done).toBe(false);
      return bob;
    });
    const done = await t.waitForOperation(signup.operation, signup.token);
    expect(done.error).toMatchObject({ code: 499, status: 'CANCELLED' });
    const website = (await t.request('GET', `${TENANT}/websites/${signup.websiteId}`, { token: signup.token })).json();
    expect(website.provisioning_status).toBe('FAILED');
  });
});

describe('failures', () => {
  it('ends an Operation whose handler throws a plain Error with a 500 INTERNAL error that leaks nothing and carries a REQUEST_INFO reference', async () => {
    const { name } = await startOnWebsite('TEST_THROW');
    const done = await t.waitForOperation(name, alice.token);
    expect(done).not.toHaveProperty('response');
    expect(done.error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(JSON.stringify(done)).not.toContain(SECRET_FAILURE_TEXT);
    // SPEC 7: an INTERNAL error carries a REQUEST_INFO detail with the reference id of its log entry.
    const info = done.error.details.find((d: any) => d.type === 'REQUEST_INFO');
    expect(info).toBeDefined();
    expect(typeof info.request_id).toBe('string');
    expect(info.request_id.length).toBeGreaterThan(0);
  });
});

describe('crash recovery', () => {
  it('picks up an Operation whose worker died (RUNNING with an expired lease) and finishes it', async () => {
    const id = await enqueueAbandoned('TEST_RECORD', 1);
    const row = await waitDone(db(), id);
    expect(row.error).toBeNull();
    expect(Number(row.attempt)).toBe(2);
    expect(row.lease_owner).toBeNull();
    expect(handlers.ran.filter((x) => x === id)).toHaveLength(1);
    const op = (await getOp(opName(id))).json();
    expect(op).toMatchObject({ done: true, response: { ran: id } });
  });

  it('leaves an Operation alone while another worker holds a live lease on it', async () => {
    const now = Date.now();
    const id = await db()
      .transaction()
      .execute(async (trx) => {
        const id = await t.platform.operations.enqueue(trx, { type: 'TEST_RECORD', accountId: alice.accountId, websiteId: alice.websiteId }, now);
        await trx
          .updateTable('operations')
          .set({ state: 'RUNNING', lease_owner: 'live-worker', lease_expire_time: now + 10 * 60_000, attempt: 1 })
          .where('id', '=', id)
          .execute();
        return id;
      });
    try {
      // Nothing else is due, so a claim finds nothing: the live lease is not taken over.
      expect(await t.platform.operations.runOne()).toBe(false);
      expect(await operationRow(db(), id)).toMatchObject({ state: 'RUNNING', lease_owner: 'live-worker' });
      expect(handlers.ran).not.toContain(id);
    } finally {
      await db().deleteFrom('operations').where('id', '=', id).execute();
    }
  });

  it('fails an Operation cleanly with INTERNAL once it was claimed more than 3 times, without running it again', async () => {
    const id = await enqueueAbandoned('TEST_RECORD', 3);
    const row = await waitDone(db(), id);
    expect(handlers.ran).not.toContain(id);
    const op = (await getOp(opName(id))).json();
    expect(op.done).toBe(true);
    expect(op).not.toHaveProperty('response');
    expect(op.error).toMatchObject({ code: 500, status: 'INTERNAL' });
    expect(row.lease_owner).toBeNull();
  });

  it('marks the website FAILED when its provisioning Operation is given up after too many attempts', async () => {
    const bob = await withWorkerBusy(async () => {
      const bob = await t.signUp();
      const operationId = bob.operation.split('/').pop()!;
      await db()
        .updateTable('operations')
        .set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: Date.now() - 1_000, attempt: 3 })
        .where('id', '=', operationId)
        .execute();
      return bob;
    });
    const done = await t.waitForOperation(bob.operation, bob.token);
    expect(done.error).toMatchObject({ code: 500, status: 'INTERNAL' });
    const website = (await t.request('GET', `${TENANT}/websites/${bob.websiteId}`, { token: bob.token })).json();
    expect(website.provisioning_status).toBe('FAILED');
  });

  it('a worker that lost its lease stops at its next checkpoint without recording an outcome or running the failure hook', async () => {
    const key = 'lease-lost';
    const { id, name } = await startOnWebsite('TEST_WAIT', { key });
    try {
      await handlers.waitStarted(key);
      // Another worker takes the Operation over (what happens after this worker's lease expired while it was stalled).
      await db().updateTable('operations').set({ lease_owner: 'other-worker', lease_expire_time: Date.now() + 10 * 60_000 }).where('id', '=', id).execute();
      await eventually(async () => handlers.exited.has(key), 'the first run to leave its handler');
      expect(handlers.failures.map((f) => f.id)).not.toContain(id);
      expect(await operationRow(db(), id)).toMatchObject({ state: 'RUNNING', lease_owner: 'other-worker' });
      expect((await getOp(name)).json().done).toBe(false);

      // The other worker dies too: its lease expires, a live worker picks the Operation up and finishes it.
      handlers.started.delete(key);
      handlers.exited.delete(key);
      await db().updateTable('operations').set({ lease_expire_time: Date.now() - 1_000 }).where('id', '=', id).execute();
      t.platform.operations.wake();
      await handlers.waitStarted(key);
      handlers.release(key);
      const done = await t.waitForOperation(name, alice.token);
      expect(done.response).toEqual({ key });
      expect(handlers.failures.map((f) => f.id)).not.toContain(id);
    } finally {
      handlers.release(key);
    }
  });
});

describe('concurrent workers', () => {
  it('never run the same Operation twice: two workers on one database run each of 20 Operations exactly once', async () => {
    const fresh = await freshDatabase();
    // PostgreSQL: the second worker has its own connection pool, as a separate `npm run worker` process would.
    const second = fresh.url ? openDatabase({ databaseUrl: fresh.url, dataDir: fresh.dataDir }) : undefined;
    try {
      const workers = [
        createOperations({ database: fresh.database, logger: t.app.log, workerId: 'worker-one' }),
        createOperations({ database: second ?? fresh.database, logger: t.app.log, workerId: 'worker-two' }),
      ];
      const runs: Array<{ id: string; attempt: number }> = [];
      for (const worker of workers) {
        worker.register('TEST_RECORD', {
          async run(op) {
            runs.push({ id: op.id, attempt: op.attempt });
            await op.checkpoint();
            await sleep(3);
            return { id: op.id };
          },
        });
      }
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(await workers[0].enqueue(fresh.database.db, { type: 'TEST_RECORD', accountId: 'acct-concurrency' }, Date.now()));

      const drain = async (worker: (typeof workers)[number]) => {
        let n = 0;
        while (await worker.runOne()) n++;
        return n;
      };
      // Two loops per worker, all claiming at once.
      const counts = await Promise.all([drain(workers[0]), drain(workers[1]), drain(workers[0]), drain(workers[1])]);

      expect(counts.reduce((a, b) => a + b, 0)).toBe(20);
      expect(runs.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(runs.every((r) => r.attempt === 1)).toBe(true);
      const rows = await fresh.database.db.selectFrom('operations').selectAll().execute();
      expect(rows).toHaveLength(20);
      for (const row of rows) {
        expect(row.state).toBe('DONE');
        expect(row.error).toBeNull();
        expect(Number(row.attempt)).toBe(1);
      }
    } finally {
      await second?.close();
      await fresh.cleanup();
    }
  });
});

describe('retention', () => {
  it('forgets a create request_id after 7 days: a repeat then creates anew, a recent one still replays', async () => {
    const create = (requestId: string) =>
      t.request('POST', `/tenant-api/v1/accounts/${alice.accountId}/projects`, { token: alice.token, body: { display_name: 'Retained', request_id: requestId } });
    const first = (await create('keep-me')).json();
    const stale = (await create('forget-me')).json();
    await db().updateTable('idempotency_keys').set({ create_time: Date.now() - 8 * DAY }).where('request_id', '=', 'forget-me').execute();
    await t.platform.operations.purgeExpired(Date.now());
    expect((await create('keep-me')).json().id).toBe(first.id);
    const again = await create('forget-me');
    expect(again.statusCode).toBe(201);
    expect(again.json().id).not.toBe(stale.id);
  });

  it('keeps finished Operations at least 24 hours: purgeExpired keeps one that ended 23 h ago and removes one that ended 8 days ago', async () => {
    const now = Date.now();
    const write = (state: 'DONE' | 'RUNNING', endedAgo: number) =>
      db()
        .transaction()
        .execute(async (trx) => {
          const created = now - endedAgo - HOUR;
          const id = await t.platform.operations.enqueue(trx, { type: 'TEST_RECORD', accountId: alice.accountId, websiteId: alice.websiteId }, created);
          await trx
            .updateTable('operations')
            .set(
              state === 'DONE'
                ? { state, response: t.fresh.database.dialect.json({ kept: true }), end_time: now - endedAgo, update_time: now - endedAgo }
                : { state, lease_owner: 'live-worker', lease_expire_time: now + 10 * 60_000, attempt: 1 },
            )
            .where('id', '=', id)
            .execute();
          return id;
        });
    const recent = await write('DONE', 23 * HOUR);
    const old = await write('DONE', 8 * DAY);
    const unfinished = await write('RUNNING', 8 * DAY);
    try {
      const removed = await t.platform.operations.purgeExpired(now);
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await operationRow(db(), old)).toBeUndefined();
      expect(await operationRow(db(), recent)).toBeDefined();
      expect(await operationRow(db(), unfinished)).toBeDefined();
      const kept = await getOp(opName(recent));
      expect(kept.statusCode).toBe(200);
      expect(kept.json()).toMatchObject({ done: true, response: { kept: true } });
      expectError(await getOp(opName(old)), 404, 'NOT_FOUND');
    } finally {
      await db().deleteFrom('operations').where('id', '=', unfinished).execute();
    }
  });
});
