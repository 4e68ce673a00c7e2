/**
 * `blog_post.published` fires exactly once per publish, whichever of the four paths published the
 * post: Update (state PUBLISHED), `:publish`, the scheduled publish (a durable Operation at
 * `publish_time`) and the editorial calendar's `:publish`. Each is a write through the engine, so
 * the one transition rule of the declaration decides (issue 27).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus, list } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';

let t: TestApp;
let alice: TestUser;
const site = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
});
afterAll(() => t?.close());

const newPost = async (title: string) => expectStatus(await t.request('POST', `${site()}/blog_posts`, { token: alice.token, body: { title } }), 201);
/** The `blog_post.published` events of one post. */
const publishedEvents = async (post: string) =>
  (await list(t, alice.token, `${site()}/events`, { filter: `resource = "${post}" AND type = "blog_post.published"` })).events as any[];

describe('blog_post.published', () => {
  it('fires once when an Update makes the post PUBLISHED, not again on later edits', async () => {
    const post = await newPost('By update');
    expectStatus(await t.request('PATCH', `${API}/${post.name}`, { token: alice.token, body: { state: 'PUBLISHED' } }), 200);
    expectStatus(await t.request('PATCH', `${API}/${post.name}`, { token: alice.token, body: { title: 'By update, edited' } }), 200);
    const events = await publishedEvents(post.name);
    expect(events).toHaveLength(1);
    expect(events[0].actor).toMatchObject({ type: 'USER', user: `users/${alice.userId}` });
  });

  it('fires once via :publish, not again when :publish repeats on a PUBLISHED post', async () => {
    const post = await newPost('By method');
    expectStatus(await t.request('POST', `${API}/${post.name}:publish`, { token: alice.token, body: {} }), 200);
    expectStatus(await t.request('POST', `${API}/${post.name}:publish`, { token: alice.token, body: {} }), 200);
    expect(await publishedEvents(post.name)).toHaveLength(1);
  });

  it('fires once when the scheduled publish makes the post live, written by the system', async () => {
    const post = await newPost('By schedule');
    const publishTime = new Date(Date.now() + 1_500).toISOString();
    expectStatus(await t.request('PATCH', `${API}/${post.name}`, { token: alice.token, body: { state: 'SCHEDULED', publish_time: publishTime } }), 200);
    expect(await publishedEvents(post.name)).toHaveLength(0);
    const events = await eventually(async () => {
      const found = await publishedEvents(post.name);
      return found.length ? found : undefined;
    }, 'the scheduled publish', 20_000);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: { type: 'SYSTEM' }, data: { state: 'PUBLISHED', publish_time: publishTime }, previous: { state: 'SCHEDULED' } });
    // The Operation ran once; a second run (a rerun after a crash) would find it published and write nothing.
    expect((await t.request('GET', `${API}/${post.name}`, { token: alice.token })).json().state).toBe('PUBLISHED');
    expect(await publishedEvents(post.name)).toHaveLength(1);
  });

  it('fires once when the editorial calendar publishes its entry', async () => {
    const days = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];
    expectStatus(
      await t.request('PATCH', `${site()}/editorial_plan`, {
        token: alice.token,
        body: { slots: days.map((weekday) => ({ weekday, time: '10:00' })), horizon_days: 7, require_passing_verdict: false },
      }),
      200,
    );
    expectStatus(await t.request('POST', `${site()}/editorial_backlog_items`, { token: alice.token, body: { topic: 'Events', brief: 'Brief', keywords: ['bread'], priority: 90 } }), 201);
    const [entry] = expectStatus(await t.request('POST', `${site()}/editorial_plan:refill`, { token: alice.token, body: {} }), 200).editorial_calendar_entries;
    // Setup only: the booked slot has passed, so :publish publishes now instead of scheduling.
    await t.platform.deps.database.db.updateTable('editorial_calendar_entries').set({ slot_time: Date.now() - 60_000 }).where('website_id', '=', alice.websiteId).where('id', '=', entry.id).execute();
    const entries = `${site()}/editorial_calendar_entries`;
    const materialized = expectStatus(await t.request('POST', `${entries}/${entry.id}:materialize`, { token: alice.token, body: {} }), 200);
    const published = expectStatus(await t.request('POST', `${entries}/${entry.id}:publish`, { token: alice.token, body: {} }), 200);
    expect(published.state).toBe('PUBLISHED');
    const post = `websites/${alice.websiteId}/blog_posts/${materialized.post_id}`;
    expect(await publishedEvents(post)).toHaveLength(1);
    expect((await t.request('GET', `${API}/${post}`, { token: alice.token })).json().state).toBe('PUBLISHED');
  });
});
