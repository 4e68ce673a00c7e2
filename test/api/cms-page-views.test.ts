/**
 * Per-view overlays of pages and blocks (SPEC 1, 2.1: "the id of a view overlay is the view it
 * overlays"; "a field counts as overridden only while its name is in `overridden`"), written with
 * `PATCH ?allow_missing=true`, and `:resolve` (reading a page or block as a view sees it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { defaultViewIdOf, startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let pagesUrl: string;
let defaultViewId: string;
let deViewId: string;
let bobViewId: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
  const views = `${API}/websites/${alice.websiteId}/views`;
  defaultViewId = await defaultViewIdOf(t, alice);
  deViewId = expectStatus(await t.request('POST', views, { token: alice.token, body: { display_name: 'Deutsch', locale: 'de' } }), 201).id;
  bobViewId = (await list(t, bob.token, `${API}/websites/${bob.websiteId}/views`)).views[0].id;
});
afterAll(() => t?.close());

const patch = (url: string, body: unknown, headers: Record<string, string> = {}, token = alice.token) => t.request('PATCH', url, { token, body, headers });
const get = (url: string, token = alice.token) => t.request('GET', url, { token });
const resolve = (name: string, body: unknown = {}, token = alice.token) => t.request('POST', `${API}/${name}:resolve`, { token, body });
let n = 0;
const createPage = async (body: Record<string, unknown> = {}) => {
  n += 1;
  return expectStatus(await t.request('POST', pagesUrl, { token: alice.token, body: { title: `Page ${n}`, url_key: `p-${n}`, content: '<p>Base</p>', ...body } }), 201);
};

describe('page view overlays', () => {
  it('PATCH ?allow_missing=true creates the overlay (201), its id and name are the view id', async () => {
    const page = await createPage();
    const res = await patch(`${API}/${page.name}/views/${deViewId}?allow_missing=true`, { title: 'Seite', content: '<p>Hallo</p>' });
    const overlay = expectStatus(res, 201);
    await expectShape(t, 'UpdateCmsPageView', 201, overlay);
    expect(overlay).toMatchObject({ id: deViewId, name: `${page.name}/views/${deViewId}`, title: 'Seite', content: '<p>Hallo</p>', overridden: ['title', 'content'] });
    expect(res.headers.etag).toBe(`"${overlay.etag}"`);
    const again = expectStatus(await get(`${API}/${overlay.name}`), 200);
    await expectShape(t, 'GetCmsPageView', 200, again);
    expect(again).toEqual(overlay);
  });

  it('a second PATCH ?allow_missing=true updates the same overlay (200), merging fields', async () => {
    const page = await createPage();
    const url = `${API}/${page.name}/views/${deViewId}`;
    const first = expectStatus(await patch(`${url}?allow_missing=true`, { title: 'Eins' }), 201);
    const second = expectStatus(await patch(`${url}?allow_missing=true`, { meta_title: 'Meta' }, { 'if-match': `"${first.etag}"` }), 200);
    expect(second).toMatchObject({ title: 'Eins', meta_title: 'Meta', overridden: ['title', 'meta_title'] });
    expect(second.create_time).toBe(first.create_time);
    const listed = expectStatus(await get(`${API}/${page.name}/views`), 200);
    await expectShape(t, 'ListCmsPageViews', 200, listed);
    expect(listed.views.map((v: any) => v.id)).toEqual([deViewId]);
    expect(listed.total_size).toBe(1);
  });

  it('PATCH without allow_missing on a missing overlay answers NOT_FOUND and creates nothing', async () => {
    const page = await createPage();
    expectError(await patch(`${API}/${page.name}/views/${deViewId}`, { title: 'X' }), 404, 'NOT_FOUND');
    expect(expectStatus(await get(`${API}/${page.name}/views`), 200).total_size).toBe(0);
  });

  it('an overlay must reference a view of the same website: another website\'s view or an unknown id answers NOT_FOUND', async () => {
    const page = await createPage();
    expectError(await patch(`${API}/${page.name}/views/${bobViewId}?allow_missing=true`, { title: 'X' }), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/${page.name}/views/nope?allow_missing=true`, { title: 'X' }), 404, 'NOT_FOUND');
    expect(expectStatus(await get(`${API}/${page.name}/views`), 200).total_size).toBe(0);
  });

  it('an overlay of a missing page, or of another website\'s page, answers NOT_FOUND (upsert and list alike)', async () => {
    expectError(await patch(`${pagesUrl}/missing/views/${deViewId}?allow_missing=true`, { title: 'X' }), 404, 'NOT_FOUND');
    expectError(await get(`${pagesUrl}/missing/views`), 404, 'NOT_FOUND');
    const bobPage = expectStatus(await t.request('POST', `${API}/websites/${bob.websiteId}/cms_pages`, { token: bob.token, body: { title: 'Bob' } }), 201);
    // Alice's website path with Bob's page id: never followed.
    expectError(await patch(`${pagesUrl}/${bobPage.id}/views/${deViewId}?allow_missing=true`, { title: 'X' }), 404, 'NOT_FOUND');
    // Bob cannot reach Alice's overlays at all.
    const page = await createPage();
    expectStatus(await patch(`${API}/${page.name}/views/${deViewId}?allow_missing=true`, { title: 'Mine' }), 201);
    expectError(await get(`${API}/${page.name}/views/${deViewId}`, bob.token), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/${page.name}/views/${deViewId}`, { title: 'Hijack' }, {}, bob.token), 404, 'NOT_FOUND');
  });

  it('overlays of two pages for the same view are separate rows (update and delete touch only their own)', async () => {
    const a = await createPage();
    const b = await createPage();
    expectStatus(await patch(`${API}/${a.name}/views/${deViewId}?allow_missing=true`, { title: 'A de' }), 201);
    expectStatus(await patch(`${API}/${b.name}/views/${deViewId}?allow_missing=true`, { title: 'B de' }), 201);
    expectStatus(await patch(`${API}/${a.name}/views/${deViewId}`, { title: 'A de 2' }), 200);
    expect(expectStatus(await get(`${API}/${b.name}/views/${deViewId}`), 200).title).toBe('B de');
    expectNoBody(await t.request('DELETE', `${API}/${a.name}/views/${deViewId}`, { token: alice.token }), 204);
    expectError(await get(`${API}/${a.name}/views/${deViewId}`), 404, 'NOT_FOUND');
    expect(expectStatus(await get(`${API}/${b.name}/views/${deViewId}`), 200).title).toBe('B de');
  });

  it('a field counts as overridden only while its name is in `overridden`; removing it keeps the value for later', async () => {
    const page = await createPage({ title: 'English title' });
    const url = `${API}/${page.name}/views/${deViewId}`;
    expectStatus(await patch(`${url}?allow_missing=true`, { title: 'Deutscher Titel', meta_title: 'DE meta' }), 201);
    expect(expectStatus(await resolve(page.name, { view_id: deViewId }), 200)).toMatchObject({ title: 'Deutscher Titel', meta_title: 'DE meta' });

    const narrowed = expectStatus(await patch(url, { overridden: ['meta_title'] }), 200);
    expect(narrowed).toMatchObject({ overridden: ['meta_title'], title: 'Deutscher Titel' });
    const resolved = expectStatus(await resolve(page.name, { view_id: deViewId }), 200);
    expect(resolved).toMatchObject({ title: 'English title', meta_title: 'DE meta', overridden_fields: ['meta_title'] });

    expectStatus(await patch(url, { overridden: ['meta_title', 'title'] }), 200);
    expect(expectStatus(await resolve(page.name, { view_id: deViewId }), 200).title).toBe('Deutscher Titel');
  });

  it('clearing a field under update_mask removes it from `overridden`; listing a field without a value or an unknown name is refused', async () => {
    const page = await createPage();
    const url = `${API}/${page.name}/views/${deViewId}`;
    expectStatus(await patch(`${url}?allow_missing=true`, { title: 'T', meta_description: 'D' }), 201);
    const cleared = expectStatus(await patch(`${url}?update_mask=meta_description`, {}), 200);
    expect(cleared.overridden).toEqual(['title']);
    expect(cleared.meta_description).toBeUndefined();
    expectInvalid(await patch(url, { overridden: ['content'] }), 'overridden');
    expectInvalid(await patch(url, { overridden: ['url_key'] }), 'overridden');
    expectInvalid(await patch(url, { url_key: 'nope' }), 'url_key');
    expect(expectStatus(await get(url), 200)).toEqual(cleared);
  });

  it('a stale If-Match on an overlay answers ABORTED; validate_only writes nothing', async () => {
    const page = await createPage();
    const url = `${API}/${page.name}/views/${deViewId}`;
    const first = expectStatus(await patch(`${url}?allow_missing=true`, { title: 'One' }), 201);
    expectStatus(await patch(url, { title: 'Two' }), 200);
    expectError(await patch(url, { title: 'Three' }, { 'if-match': `"${first.etag}"` }), 409, 'ABORTED');
    expectStatus(await patch(`${url}?validate_only=true`, { title: 'Four' }), 200);
    expect(expectStatus(await get(url), 200).title).toBe('Two');
    const other = await createPage();
    expectStatus(await patch(`${API}/${other.name}/views/${deViewId}?allow_missing=true&validate_only=true`, { title: 'Nope' }), 200);
    expectError(await get(`${API}/${other.name}/views/${deViewId}`), 404, 'NOT_FOUND');
  });

  it('deleting the page deletes its overlays', async () => {
    const page = await createPage();
    expectStatus(await patch(`${API}/${page.name}/views/${deViewId}?allow_missing=true`, { title: 'X' }), 201);
    expectNoBody(await t.request('DELETE', `${API}/${page.name}`, { token: alice.token }), 204);
    expectError(await get(`${API}/${page.name}/views/${deViewId}`), 404, 'NOT_FOUND');
  });

  it('deleting a view is refused while overlays use it, and with force deletes those overlays', async () => {
    const views = `${API}/websites/${alice.websiteId}/views`;
    const nl = expectStatus(await t.request('POST', views, { token: alice.token, body: { display_name: 'NL', locale: 'nl' } }), 201).id;
    const page = await createPage();
    expectStatus(await patch(`${API}/${page.name}/views/${nl}?allow_missing=true`, { title: 'NL' }), 201);
    const error = expectError(await t.request('DELETE', `${views}/${nl}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.message).toContain('cms_page_views');
    expectNoBody(await t.request('DELETE', `${views}/${nl}?force=true`, { token: alice.token }), 204);
    expect(expectStatus(await get(`${API}/${page.name}/views`), 200).total_size).toBe(0);
  });
});

describe(':resolve reads a page as a view sees it', () => {
  it('without view_id the default view applies; with one, its overlay; a view without an overlay shows the page', async () => {
    const page = await createPage({ title: 'Base', meta_description: 'base desc' });
    expectStatus(await patch(`${API}/${page.name}/views/${defaultViewId}?allow_missing=true`, { meta_description: 'default desc' }), 201);
    expectStatus(await patch(`${API}/${page.name}/views/${deViewId}?allow_missing=true`, { title: 'Basis', content: '<p>DE</p>' }), 201);

    const plain = expectStatus(await resolve(page.name), 200);
    await expectShape(t, 'ResolveCmsPage', 200, plain);
    expect(plain).toMatchObject({ name: page.name, id: page.id, view_id: defaultViewId, title: 'Base', meta_description: 'default desc', is_visible: true });

    const de = expectStatus(await resolve(page.name, { view_id: deViewId }), 200);
    expect(de).toMatchObject({ view_id: deViewId, title: 'Basis', content: '<p>DE</p>', meta_description: 'base desc', url_key: page.url_key });
    expect(de.overridden_fields.sort()).toEqual(['content', 'title']);
  });

  it('is_visible follows is_active and visible_view_ids', async () => {
    const page = await createPage({ visible_view_ids: [deViewId] });
    expect(expectStatus(await resolve(page.name, { view_id: deViewId }), 200).is_visible).toBe(true);
    expect(expectStatus(await resolve(page.name, { view_id: defaultViewId }), 200).is_visible).toBe(false);
    const off = await createPage({ is_active: false });
    expect(expectStatus(await resolve(off.name), 200).is_visible).toBe(false);
  });

  it("another website's view answers INVALID_ARGUMENT naming view_id; another tenant's page NOT_FOUND; unknown fields are refused", async () => {
    const page = await createPage();
    expectInvalid(await resolve(page.name, { view_id: bobViewId }), 'view_id');
    expectInvalid(await resolve(page.name, { colour: 'red' }), 'colour');
    expectError(await resolve(page.name, {}, bob.token), 404, 'NOT_FOUND');
    expectError(await resolve(`websites/${alice.websiteId}/cms_pages/missing`), 404, 'NOT_FOUND');
  });
});

describe('block view overlays', () => {
  it('upsert, overridden and :resolve work for blocks like for pages', async () => {
    const blocks = `${API}/websites/${alice.websiteId}/cms_blocks`;
    const block = expectStatus(await t.request('POST', blocks, { token: alice.token, body: { identifier: 'footer', title: 'Footer', content: '<p>EN</p>' } }), 201);
    const url = `${API}/${block.name}/views/${deViewId}`;
    const overlay = expectStatus(await patch(`${url}?allow_missing=true`, { content: '<p>DE</p>' }), 201);
    await expectShape(t, 'UpdateCmsBlockView', 201, overlay);
    expect(overlay).toMatchObject({ id: deViewId, overridden: ['content'] });
    const de = expectStatus(await resolve(block.name, { view_id: deViewId }), 200);
    await expectShape(t, 'ResolveCmsBlock', 200, de);
    expect(de).toMatchObject({ identifier: 'footer', title: 'Footer', content: '<p>DE</p>', is_visible: true });
    expectStatus(await patch(url, { overridden: [] }), 200);
    expect(expectStatus(await resolve(block.name, { view_id: deViewId }), 200).content).toBe('<p>EN</p>');
    expectInvalid(await patch(url, { overridden: ['identifier'] }), 'overridden');
    expectError(await patch(`${API}/${block.name}/views/${bobViewId}?allow_missing=true`, { title: 'X' }), 404, 'NOT_FOUND');
  });
});
