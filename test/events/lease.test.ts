/**
 * The one lease/claim primitive of durable queues (platform/jobs/lease.ts), on the Operations table
 * of a real database: two live workers never claim one row; a killed worker's expired lease is
 * claimed again; a worker that lost its lease can no longer settle the row.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { createLeaseQueue } from '../../src/platform/jobs/lease.js';

let t: TestApp;
beforeAll(async () => {
  // No worker of the app's own: the test is the only one claiming.
  t = await startTestApp();
  await t.stopWorker();
});
afterAll(() => t?.close());

const queueOf = (workerId: string, leaseMs = 60_000) =>
  createLeaseQueue({ database: t.platform.deps.database, table: 'operations', queued: 'QUEUED', leased: 'RUNNING', leaseMs, workerId });

async function enqueue(n: number, type: string): Promise<string[]> {
  const user = await t.signUp();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await t.platform.operations.enqueue(t.platform.deps.database.db, { type, accountId: user.accountId }, Date.now()));
  return ids;
}
const onlyOf = (type: string) => (eb: any) => eb('type', '=', type);

it('two live workers claiming at once never get the same row', async () => {
  const ids = await enqueue(10, 'LEASE_TEST_SHARED');
  const a = queueOf('worker-a');
  const b = queueOf('worker-b');
  const [first, second] = await Promise.all([a.claim(Date.now(), { limit: 6, where: onlyOf('LEASE_TEST_SHARED') }), b.claim(Date.now(), { limit: 6, where: onlyOf('LEASE_TEST_SHARED') })]);
  const claimed = [...first, ...second].map((r) => r.id);
  expect(new Set(claimed).size).toBe(claimed.length);
  expect(claimed.sort()).toEqual([...ids].sort());
  expect(first.every((r) => r.lease_owner === 'worker-a') && second.every((r) => r.lease_owner === 'worker-b')).toBe(true);
});

it("a killed worker's expired lease is claimed again, and the killed worker can no longer settle it", async () => {
  const [id] = await enqueue(1, 'LEASE_TEST_KILLED');
  const killed = queueOf('worker-killed', 50);
  const [claimed] = await killed.claim(Date.now(), { where: onlyOf('LEASE_TEST_KILLED') });
  expect(claimed).toMatchObject({ id, state: 'RUNNING', attempt: 1 });
  const survivor = queueOf('worker-survivor');
  // Still leased: nothing to claim.
  expect(await survivor.claim(Date.now(), { where: onlyOf('LEASE_TEST_KILLED') })).toEqual([]);
  // The killed worker sends no heartbeat; once its lease expired the row is due again.
  const [again] = await survivor.claim(Date.now() + 100, { where: onlyOf('LEASE_TEST_KILLED') });
  expect(again).toMatchObject({ id, lease_owner: 'worker-survivor' });
  expect(Number(again.attempt)).toBe(2);
  expect(await killed.heartbeat(id)).toBe(false);
  expect(await killed.settle(id, { state: 'DONE' })).toBeUndefined();
  expect(await survivor.settle(id, { state: 'DONE', end_time: Date.now() })).toMatchObject({ id, state: 'DONE', lease_owner: null });
});

it('retry puts the row back with a growing, jittered backoff', async () => {
  const [id] = await enqueue(1, 'LEASE_TEST_RETRY');
  const worker = queueOf('worker-retry');
  const gaps: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const [row] = await worker.claim(Date.now() + 10 * 3600_000, { where: onlyOf('LEASE_TEST_RETRY') });
    expect(Number(row.attempt)).toBe(attempt);
    const before = Date.now();
    const due = await worker.retry(id, { attempt, baseMs: 1000 });
    gaps.push(due! - before);
  }
  // base · 2^(attempt-1) ± 20 %.
  expect(gaps[0]).toBeGreaterThanOrEqual(800);
  expect(gaps[1]).toBeGreaterThanOrEqual(1600);
  expect(gaps[2]).toBeGreaterThanOrEqual(3200);
  expect(gaps[2]).toBeLessThanOrEqual(4800 + 50);
});
