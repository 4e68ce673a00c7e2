/**
 * Events from the resource engine (issue 27): every write records its event in its own transaction,
 * exactly once; a write that rolls back leaves none. Driven through HTTP; the events are read back
 * through the events List.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectStatus, list, withQuery } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
const site = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  // A subscriber that fails inside the write's transaction, after the row and its event were written.
  t.platform.deps.events.onEvent(async (_trx, event) => {
    if ((event.data as { display_name?: string }).display_name === 'fail after write') throw new Error('refused by a test subscriber');
  });
});
afterAll(() => t?.close());

/** Types of the events of one resource, oldest first. */
async function typesOf(resource: string, u: TestUser = alice): Promise<string[]> {
  const page = await list(t, u.token, `${site(u)}/events`, { filter: `resource = "${resource}"`, order_by: 'occur_time asc', page_size: 100 });
  return page.events.map((e: any) => e.type);
}
const eventsOfType = async (type: string, u: TestUser = alice) =>
  (await list(t, u.token, `${site(u)}/events`, { filter: `type = "${type}"`, page_size: 100 })).events as any[];

describe('events of engine writes', () => {
  it('records exactly one event per write: created, updated, deleted', async () => {
    const tag = expectStatus(await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'Bread' } }), 201);
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created']);
    expectStatus(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'Sourdough' } }), 200);
    expectStatus(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'Rye' } }), 200);
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created', 'blog_tag.updated', 'blog_tag.updated']);
    expectStatus(await t.request('DELETE', `${API}/${tag.name}`, { token: alice.token }), 204);
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created', 'blog_tag.updated', 'blog_tag.updated', 'blog_tag.deleted']);
  });

  it('an event carries the resource as Get answers it after the write, the caller, the website and the account', async () => {
    const tag = expectStatus(await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'Crust' } }), 201);
    const updated = expectStatus(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'Crumb' } }), 200);
    const got = expectStatus(await t.request('GET', `${API}/${tag.name}`, { token: alice.token }), 200);
    const page = await list(t, alice.token, `${site()}/events`, { filter: `resource = "${tag.name}" AND type = "blog_tag.updated"` });
    expect(page.events).toHaveLength(1);
    const [event] = page.events;
    expect(event).toMatchObject({ type: 'blog_tag.updated', resource: tag.name, collection: 'blog_tags', actor: { type: 'USER', user: `users/${alice.userId}`, role: 'roles/administrator' } });
    expect(event.data).toEqual(got);
    expect(event.data.etag).toBe(updated.etag);
    expect(event.name).toBe(`websites/${alice.websiteId}/events/${event.id}`);
    expect(expectStatus(await t.request('GET', `${API}/${event.name}`, { token: alice.token }), 200)).toEqual(event);
    const deleted = expectStatus(await t.request('DELETE', `${API}/${tag.name}`, { token: alice.token }), 204);
    void deleted;
    const [gone] = await eventsOfType('blog_tag.deleted').then((events) => events.filter((e) => e.resource === tag.name));
    expect(gone.data).toEqual(got);
  });

  it('a custom method that writes records updated and its transitions once', async () => {
    const post = expectStatus(await t.request('POST', `${site()}/blog_posts`, { token: alice.token, body: { title: 'Custom' } }), 201);
    expectStatus(await t.request('POST', `${API}/${post.name}:publish`, { token: alice.token, body: {} }), 200);
    expectStatus(await t.request('POST', `${API}/${post.name}:unpublish`, { token: alice.token, body: {} }), 200);
    expect(await typesOf(post.name)).toEqual(['blog_post.created', 'blog_post.updated', 'blog_post.published', 'blog_post.updated', 'blog_post.unpublished']);
    const [published] = (await eventsOfType('blog_post.published')).filter((e) => e.resource === post.name);
    expect(published.previous).toMatchObject({ state: 'DRAFT' });
    expect(published.data).toMatchObject({ state: 'PUBLISHED' });
  });

  it('account-scoped resources record their events in the account events', async () => {
    const project = expectStatus(await t.request('POST', `${API}/accounts/${alice.accountId}/projects`, { token: alice.token, body: { display_name: 'Events project' } }), 201);
    const page = await list(t, alice.token, `${API}/accounts/${alice.accountId}/events`, { filter: `resource = "${project.name}"` });
    expect(page.events.map((e: any) => e.type)).toEqual(['project.created']);
    expect(page.events[0].name).toBe(`accounts/${alice.accountId}/events/${page.events[0].id}`);
    // Not a website's event.
    expect((await list(t, alice.token, `${site()}/events`, { filter: `resource = "${project.name}"` })).events).toEqual([]);
  });

  it('never records an event for a rolled-back write: validate_only', async () => {
    const checked = expectStatus(await t.request('POST', withQuery(`${site()}/blog_tags`, { validate_only: true }), { token: alice.token, body: { display_name: 'Only checked' } }), 200);
    expect(await typesOf(checked.name)).toEqual([]);
    const tag = expectStatus(await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'Kept' } }), 201);
    expectStatus(await t.request('PATCH', withQuery(`${API}/${tag.name}`, { validate_only: true }), { token: alice.token, body: { display_name: 'Not kept' } }), 200);
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created']);
  });

  it('never records an event for a write that fails after it wrote, in the same transaction', async () => {
    const before = (await list(t, alice.token, `${site()}/events`, { filter: 'type = "blog_tag.created"', page_size: 100 })).total_size;
    const failed = await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'fail after write' } });
    expectError(failed, 500, 'INTERNAL');
    const tags = await list(t, alice.token, `${site()}/blog_tags`, { page_size: 100 });
    expect(tags.blog_tags.map((x: any) => x.display_name)).not.toContain('fail after write');
    expect((await list(t, alice.token, `${site()}/events`, { filter: 'type = "blog_tag.created"', page_size: 100 })).total_size).toBe(before);
    // An update failing the same way keeps the previous state and its events.
    const tag = expectStatus(await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'Stays' } }), 201);
    expectError(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'fail after write' } }), 500, 'INTERNAL');
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created']);
  });

  it('never records an event for a refused write (stale etag)', async () => {
    const tag = expectStatus(await t.request('POST', `${site()}/blog_tags`, { token: alice.token, body: { display_name: 'Etag' } }), 201);
    expectStatus(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'Etag 2' } }), 200);
    expectError(await t.request('PATCH', `${API}/${tag.name}`, { token: alice.token, body: { display_name: 'Etag 3', etag: tag.etag } }), 409, 'ABORTED');
    expect(await typesOf(tag.name)).toEqual(['blog_tag.created', 'blog_tag.updated']);
  });

  it('a customer Create records customer.created, never the password', async () => {
    const customer = expectStatus(await t.request('POST', `${site()}/customers`, { token: alice.token, body: { email: 'events@example.com', password: 'correct-horse-9-staple' } }), 201);
    expect(await typesOf(customer.name)).toEqual(['customer.created']);
    expect(JSON.stringify((await eventsOfType('customer.created'))[0].data)).not.toContain('correct-horse');
  });
});
