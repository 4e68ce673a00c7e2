/**
 * The events Lists (issue 27): `websites/{w}/events` and `accounts/{a}/events` with filters on type,
 * resource and time, newest first, the standard envelope and page tokens; what another tenant and a
 * member without rights on a section see; retention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { addMember } from '../support/access.js';
import { API, expectError, expectInvalid, expectStatus, list, walk, withQuery } from '../support/fixtures.js';
import { EVENT_RETENTION_MS } from '../../src/platform/events/events.js';
import { newId } from '../../src/platform/resource/ids.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const site = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;
const events = (u: TestUser = alice) => `${site(u)}/events`;
const make = async (path: string, body: unknown, u: TestUser = alice) => expectStatus(await t.request('POST', `${site(u)}/${path}`, { token: u.token, body }), 201);

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
});
afterAll(() => t?.close());

describe('events List', () => {
  it('requires a signed-in user', async () => {
    expectError(await t.request('GET', events()), 401, 'UNAUTHENTICATED');
  });

  it('lists newest first by default, pages with page_token, and orders oldest first on request', async () => {
    for (let i = 0; i < 5; i++) await make('blog_tags', { display_name: `Paged ${i}` });
    const filter = 'type = "blog_tag.created"';
    const pages = await walk(t, alice.token, events(), { filter, page_size: 2 });
    expect(pages.length).toBeGreaterThanOrEqual(3);
    const all = pages.flatMap((p) => p.events);
    expect(pages[0].total_size).toBe(all.length);
    const times = all.map((e: any) => `${e.occur_time}|${e.id}`);
    expect(times).toEqual([...times].sort().reverse());
    const ascending = (await list(t, alice.token, events(), { filter, order_by: 'occur_time asc', page_size: 100 })).events.map((e: any) => e.id);
    expect(ascending).toEqual(all.map((e: any) => e.id).reverse());
  });

  it('filters by exact type, by a type prefix (every event of a resource kind), by resource and by time', async () => {
    const post = await make('blog_posts', { title: 'Filtered', state: 'PUBLISHED' });
    const tag = await make('blog_tags', { display_name: 'Filter tag' });
    const exact = await list(t, alice.token, events(), { filter: 'type = "blog_post.published"' });
    expect(exact.events.map((e: any) => e.type)).toEqual(exact.events.map(() => 'blog_post.published'));
    expect(exact.events.map((e: any) => e.resource)).toContain(post.name);
    const prefix = await list(t, alice.token, events(), { filter: 'type:"blog_post."', page_size: 100 });
    expect(new Set(prefix.events.map((e: any) => e.type))).toEqual(new Set(['blog_post.created', 'blog_post.published']));
    const byResource = await list(t, alice.token, events(), { filter: `resource = "${tag.name}"` });
    expect(byResource.events.map((e: any) => e.type)).toEqual(['blog_tag.created']);
    const [event] = byResource.events;
    const at = event.occur_time;
    expect((await list(t, alice.token, events(), { filter: `resource = "${tag.name}" AND occur_time >= "${at}"` })).events).toHaveLength(1);
    expect((await list(t, alice.token, events(), { filter: `resource = "${tag.name}" AND occur_time < "${at}"` })).events).toHaveLength(0);
  });

  it('refuses a bad filter or order with INVALID_ARGUMENT naming the field', async () => {
    expectInvalid(await t.request('GET', withQuery(events(), { filter: 'data = "x"' }), { token: alice.token }), 'data');
    expectInvalid(await t.request('GET', withQuery(events(), { filter: 'occur_time > "yesterday"' }), { token: alice.token }), 'occur_time');
    expectInvalid(await t.request('GET', withQuery(events(), { order_by: 'type desc' }), { token: alice.token }), 'order_by');
  });

  it("another tenant's events answer NOT_FOUND, listed or one by one", async () => {
    const tag = await make('blog_tags', { display_name: 'Private' });
    const [event] = (await list(t, alice.token, events(), { filter: `resource = "${tag.name}"` })).events;
    expectError(await t.request('GET', events(), { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${event.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${events(bob)}/${event.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/accounts/${alice.accountId}/events`, { token: bob.token }), 404, 'NOT_FOUND');
    expect((await list(t, bob.token, events(bob), { filter: `resource = "${tag.name}"` })).events).toEqual([]);
  });

  it('a member without read rights on a section does not see its events', async () => {
    const carol = await t.signUp();
    // Carol reads the blog of Alice's account, nothing else.
    await addMember(t, carol, alice.accountId, { role: 'restricted', grants: [{ section: 'website.blog', access: 'READ' }] });
    const tag = await make('blog_tags', { display_name: 'Visible to the blog reader' });
    const customer = await make('customers', { email: 'hidden@example.com', password: 'hidden-pass-1' });
    const seen = await walk(t, carol.token, events(), { page_size: 100 });
    const resources = seen.flatMap((p) => p.events.map((e: any) => e.resource));
    expect(resources).toContain(tag.name);
    expect(resources).not.toContain(customer.name);
    expect(seen.flatMap((p) => p.events.map((e: any) => e.collection)).every((c: string) => c.startsWith('blog_'))).toBe(true);
    const [hidden] = (await list(t, alice.token, events(), { filter: `resource = "${customer.name}"` })).events;
    expectError(await t.request('GET', `${API}/${hidden.name}`, { token: carol.token }), 404, 'NOT_FOUND');
    // The account's events of sections Carol cannot read (projects: account) are not hers either.
    expect((await list(t, carol.token, `${API}/accounts/${alice.accountId}/events`)).events).toEqual([]);
  });

  it("a member limited to some websites does not see the account's events of its websites", async () => {
    const dave = await t.signUp();
    await addMember(t, dave, alice.accountId, { role: 'editor', websiteIds: [alice.websiteId] });
    const all = await walk(t, alice.token, `${API}/accounts/${alice.accountId}/events`, { page_size: 100 });
    expect(all.flatMap((p) => p.events.map((e: any) => e.collection))).toContain('websites');
    const seen = await walk(t, dave.token, `${API}/accounts/${alice.accountId}/events`, { page_size: 100 });
    expect(seen.flatMap((p) => p.events.map((e: any) => e.collection))).not.toContain('websites');
  });

  it(`retention deletes events older than ${EVENT_RETENTION_MS / 86_400_000} days and keeps the others`, async () => {
    const old = await make('blog_tags', { display_name: 'Old' });
    const recent = await make('blog_tags', { display_name: 'Recent' });
    // Setup only: the first tag's event occurred 31 days ago (its time and its id, which begins with it).
    const db = t.platform.deps.database.db;
    const then = Date.now() - 31 * 86_400_000;
    const [event] = (await list(t, alice.token, events(), { filter: `resource = "${old.name}"` })).events;
    await db.updateTable('events').set({ create_time: then, id: newId(then).slice(0, 10) + event.id.slice(10) }).where('website_id', '=', alice.websiteId).where('id', '=', event.id).execute();
    expect(await t.platform.deps.events.purgeExpired(Date.now())).toBeGreaterThanOrEqual(1);
    expect((await list(t, alice.token, events(), { filter: `resource = "${old.name}"` })).events).toEqual([]);
    expect((await list(t, alice.token, events(), { filter: `resource = "${recent.name}"` })).events).toHaveLength(1);
  });
});
