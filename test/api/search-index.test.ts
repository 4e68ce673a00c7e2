/** Issue 16, "Search": `websites/{w}/search_index` and `:reindex` on the tenant API. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let index: string;

const documentsOf = async (websiteId: string) =>
  Number((await sql<{ n: number }>`select count(*) as n from search_documents where website_id = ${websiteId}`.execute(t.platform.deps.database.db)).rows[0].n);

async function drained(user: TestUser) {
  for (let i = 0; i < 300; i++) {
    const res = expectStatus(await t.request('GET', `${API}/websites/${user.websiteId}/search_index`, { token: user.token }), 200);
    if (res.pending_count === 0) return res;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the search index did not catch up');
}

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  index = `${API}/websites/${alice.websiteId}/search_index`;
  const create = (path: string, body: unknown) => t.request('POST', `${API}/websites/${alice.websiteId}/${path}`, { token: alice.token, body });
  for (let i = 0; i < 7; i++) expectStatus(await create('cms_pages', { title: `Page ${i}`, url_key: `page-${i}`, content: `<p>walnut ${i}</p>` }), 201);
  for (let i = 0; i < 5; i++) expectStatus(await create('blog_posts', { title: `Post ${i}`, url_key: `post-${i}`, state: 'PUBLISHED', content: '<p>walnut</p>' }), 201);
  await drained(alice);
}, 60_000);
afterAll(() => t?.close());

describe('search_index', () => {
  it('requires a signed-in user', async () => {
    expectError(await t.request('GET', index), 401, 'UNAUTHENTICATED');
    expectError(await t.request('POST', `${index}:reindex`, { body: {} }), 401, 'UNAUTHENTICATED');
  });

  it('answers the document and pending counts of the website', async () => {
    const res = expectStatus(await t.request('GET', index, { token: alice.token }), 200);
    await expectShape(t, 'GetSearchIndex', 200, res);
    // 7 pages + the provisioned home page, and 5 posts, in the one default view.
    expect(res).toMatchObject({ name: `websites/${alice.websiteId}/search_index`, pending_count: 0, state: 'CURRENT' });
    expect(res.document_count).toBe(await documentsOf(alice.websiteId));
    expect(res.document_count).toBeGreaterThanOrEqual(12);
    expect(res.last_reindex_time).toBeUndefined();
  });

  it(':reindex answers an Operation that ends done at progress 100 with the documents rebuilt', async () => {
    const before = await documentsOf(alice.websiteId);
    // Corruption: documents lost behind the triggers' back, and one that belongs to nothing.
    await sql`delete from search_documents where website_id = ${alice.websiteId}`.execute(t.platform.deps.database.db);
    expect(await documentsOf(alice.websiteId)).toBe(0);
    const res = await t.request('POST', `${index}:reindex`, { token: alice.token, body: {} });
    const started = expectStatus(res, 202);
    await expectShape(t, 'ReindexSearchIndex', 202, started);
    expect(res.headers.location).toBe(`${t.config.publicBaseUrl}${API}/${started.name}`);
    expect(started.name).toMatch(new RegExp(`^websites/${alice.websiteId}/operations/`));
    expect(started.metadata.type).toBe('REINDEX_SEARCH');
    const done = await t.waitForOperation(started.name, alice.token);
    expect(done).toMatchObject({ done: true, metadata: { progress_percent: 100, step: 'DONE' } });
    expect(done.error).toBeUndefined();
    expect(done.response.document_count).toBe(before);
    expect(await documentsOf(alice.websiteId)).toBe(before);
    const site = await t.request('GET', `/api/v1/search?q=walnut&page_size=50`, { headers: { host: `${(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token })).json().code}.localhost` } });
    expect(expectStatus(site, 200).results).toHaveLength(12);
    const after = expectStatus(await t.request('GET', index, { token: alice.token }), 200);
    expect(after).toMatchObject({ document_count: before, last_reindex_documents: before, last_reindex_operation: started.name });
    expect(Date.parse(after.last_reindex_time)).toBeGreaterThan(0);
  });

  it(':reindex is safe to run again and refuses unknown fields and a stale etag', async () => {
    const again = expectStatus(await t.request('POST', `${index}:reindex`, { token: alice.token }), 202);
    expect((await t.waitForOperation(again.name, alice.token)).metadata.progress_percent).toBe(100);
    expectInvalid(await t.request('POST', `${index}:reindex`, { token: alice.token, body: { force: true } }), 'force');
    expectError(await t.request('POST', `${index}:reindex`, { token: alice.token, body: { etag: '"999"' } }), 409, 'ABORTED');
    expectError(await t.request('PATCH', index, { token: alice.token, body: {} }), 405, 'UNIMPLEMENTED');
  });

  it("answers 404 to another tenant's website, as to one that does not exist", async () => {
    expectError(await t.request('GET', index, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${index}:reindex`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/missing/search_index`, { token: alice.token }), 404, 'NOT_FOUND');
  });
});
