/**
 * Scheduled blog posts publish on time through durable Operations (issue 13): with the worker
 * running, after a worker outage (every overdue post at once), after a worker died mid-work
 * (published once), and never after a reschedule, unpublish or delete.
 */
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { eventually, sleep, waitDone } from '../support/fixtures-auth.js';

let t: TestApp;
let alice: TestUser;
let db: Kysely<any>;
const posts = () => `${API}/websites/${alice.websiteId}/blog_posts`;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  db = t.fresh.database.db;
});
afterAll(() => t?.close());

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const schedule = async (title: string, ms: number) =>
  expectStatus(await t.request('POST', posts(), { token: alice.token, body: { title, state: 'SCHEDULED', publish_time: inMs(ms) } }), 201);
const get = async (name: string) => expectStatus(await t.request('GET', `${API}/${name}`, { token: alice.token }), 200);
const publishedBy = (name: string) => eventually(async () => ((await get(name)).state === 'PUBLISHED' ? get(name) : undefined), `${name} to be published`);
/** The Operations that publish a post, oldest first. */
const operationsOf = async (postId: string) =>
  (await db.selectFrom('operations').selectAll().where('type', '=', 'PUBLISH_SCHEDULED_BLOG_POST').orderBy('create_time').execute()).filter(
    (op) => JSON.parse(typeof op.payload === 'string' ? op.payload : JSON.stringify(op.payload)).blog_post_id === postId,
  );
/** Waits until the time has passed (plus a margin), so the post is overdue. */
const until = async (iso: string) => sleep(Math.max(0, Date.parse(iso) - Date.now()) + 50);

describe('scheduled blog posts', () => {
  it('a SCHEDULED post publishes by itself at publish_time while the worker runs, keeping publish_time', async () => {
    const post = await schedule('On time', 300);
    expect(post.state).toBe('SCHEDULED');
    const published = await publishedBy(post.name);
    expect(published.publish_time).toBe(post.publish_time);
  });

  it('a worker that was down publishes every overdue post as soon as it starts', async () => {
    await t.stopWorker();
    try {
      const due = await Promise.all([schedule('Outage 1', 150), schedule('Outage 2', 200), schedule('Outage 3', 250)]);
      await until(due[2].publish_time);
      // Time has passed with no worker: nothing could publish them.
      for (const post of due) expect((await get(post.name)).state).toBe('SCHEDULED');
      t.startWorker();
      for (const post of due) expect((await publishedBy(post.name)).publish_time).toBe(post.publish_time);
    } finally {
      t.startWorker();
    }
  });

  it('a worker killed mid-work: the post is still published, exactly once', async () => {
    await t.stopWorker();
    let post: any;
    try {
      post = await schedule('Crash', 150);
      await until(post.publish_time);
      const [op] = await operationsOf(post.id);
      // A worker claimed it and died before doing anything: its lease runs out.
      await db.updateTable('operations').set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: Date.now() - 1, attempt: 1 }).where('id', '=', op.id).execute();
      t.startWorker();
      const published = await publishedBy(post.name);
      expect((await waitDone(db, op.id)).response).toBeTruthy();
      // It died again after publishing, before recording the outcome: the rerun changes nothing.
      await t.stopWorker();
      await db.updateTable('operations').set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: Date.now() - 1, end_time: null }).where('id', '=', op.id).execute();
      t.startWorker();
      await eventually(async () => (await db.selectFrom('operations').select('state').where('id', '=', op.id).executeTakeFirst())?.state === 'DONE', 'the rerun');
      // The rerun reports the publish that landed, without writing again.
      const rerun = await waitDone(db, op.id);
      expect(JSON.parse(typeof rerun.response === 'string' ? rerun.response : JSON.stringify(rerun.response))).toEqual({ published: true });
      const after = await get(post.name);
      expect(after.etag).toBe(published.etag);
      expect(after.state).toBe('PUBLISHED');
    } finally {
      t.startWorker();
    }
  });

  it('a scheduled publish given up after its worker died on it again and again is enqueued afresh: the post still publishes, once', async () => {
    await t.stopWorker();
    let post: any;
    try {
      post = await schedule('Crash thrice', 150);
      await until(post.publish_time);
      const [op] = await operationsOf(post.id);
      // Three workers claimed it and died: the next claim exceeds the crash limit and ends it with an error.
      await db.updateTable('operations').set({ state: 'RUNNING', lease_owner: 'dead-worker', lease_expire_time: Date.now() - 1, attempt: 3 }).where('id', '=', op.id).execute();
      t.startWorker();
      const failed = await waitDone(db, op.id);
      expect(failed.error).toBeTruthy();
      const published = await publishedBy(post.name);
      expect(published.publish_time).toBe(post.publish_time);
      const ops = await operationsOf(post.id);
      expect(ops).toHaveLength(2);
      const second = await waitDone(db, ops[1].id);
      expect(JSON.parse(typeof second.response === 'string' ? second.response : JSON.stringify(second.response))).toEqual({ published: true });
      // Exactly once: the post was written by that one publish alone.
      expect((await get(post.name)).etag).toBe(published.etag);
    } finally {
      t.startWorker();
    }
  });

  it('rescheduling, unpublishing or deleting makes the pending Operation do nothing', async () => {
    // Due soon, but not before the change that follows each Create lands (a loaded machine takes
    // hundreds of milliseconds per request).
    const moved = await schedule('Moved', 1_500);
    const later = inMs(3_600_000);
    expectStatus(await t.request('PATCH', `${API}/${moved.name}`, { token: alice.token, body: { publish_time: later } }), 200);
    const drafted = await schedule('Drafted', 1_500);
    expectStatus(await t.request('POST', `${API}/${drafted.name}:unpublish`, { token: alice.token, body: {} }), 200);
    const deleted = await schedule('Deleted', 1_500);
    expect((await t.request('DELETE', `${API}/${deleted.name}`, { token: alice.token })).statusCode).toBe(204);
    for (const post of [moved, drafted, deleted]) {
      const [first] = await operationsOf(post.id);
      const done = await waitDone(db, first.id);
      expect(JSON.parse(typeof done.response === 'string' ? done.response : JSON.stringify(done.response))).toEqual({ published: false });
    }
    expect(await get(moved.name)).toMatchObject({ state: 'SCHEDULED', publish_time: new Date(Date.parse(later)).toISOString() });
    expect((await get(drafted.name)).state).toBe('DRAFT');
    // The rescheduled post has a second Operation, due at the new time.
    const ops = await operationsOf(moved.id);
    expect(ops).toHaveLength(2);
    expect(Number(ops[1].run_after)).toBe(Date.parse(later));
  });

  it(':publish of a SCHEDULED post publishes at once; the pending Operation then does nothing', async () => {
    const post = await schedule('Early', 300);
    const published = expectStatus(await t.request('POST', `${API}/${post.name}:publish`, { token: alice.token, body: {} }), 200);
    expect(published.state).toBe('PUBLISHED');
    const [op] = await operationsOf(post.id);
    await waitDone(db, op.id);
    expect((await get(post.name)).etag).toBe(published.etag);
  });
});
