/**
 * CMS pages (SPEC 1, 2.2, 4.2, 4.3): fields, url_key uniqueness per website and view scope,
 * visible_view_ids, filters and refused sort keys, tenancy, etags, the home page of provisioning.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { defaultViewIdOf, startTwoTenants } from '../support/tenants.js';
import { API, expectCommonFields, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, idsOf, list, snapshot } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let pagesUrl: string;
let defaultViewId: string;
let deViewId: string;
let frViewId: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
  const views = `${API}/websites/${alice.websiteId}/views`;
  defaultViewId = await defaultViewIdOf(t, alice);
  deViewId = expectStatus(await t.request('POST', views, { token: alice.token, body: { display_name: 'Deutsch', locale: 'de' } }), 201).id;
  frViewId = expectStatus(await t.request('POST', views, { token: alice.token, body: { display_name: 'Français', locale: 'fr' } }), 201).id;
});
afterAll(() => t?.close());

const post = (url: string, body: unknown, token = alice.token) => t.request('POST', url, { token, body });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}, token = alice.token) => t.request('PATCH', url, { token, body, headers });
let counter = 0;
const createPage = async (body: Record<string, unknown> = {}) => {
  counter += 1;
  const page = expectStatus(await post(pagesUrl, { title: `Page ${counter}`, url_key: `page-${counter}`, ...body }), 201);
  await expectShape(t, 'CreateCmsPage', 201, page);
  return page;
};

describe('provisioning', () => {
  it('every new website has a home page (cms_pages/home, url_key home)', async () => {
    const home = expectStatus(await t.request('GET', `${pagesUrl}/home`, { token: alice.token }), 200);
    await expectShape(t, 'GetCmsPage', 200, home);
    expect(home).toMatchObject({ id: 'home', url_key: 'home', title: 'Home', is_active: true, visible_view_ids: [] });
    expect(home.name).toBe(`websites/${alice.websiteId}/cms_pages/home`);
  });

  it('the provisioning Operation names the home page and main menu steps and ran them once', async () => {
    const op = await t.waitForOperation(alice.operation, alice.token);
    expect(op.done).toBe(true);
    const homes = await list(t, alice.token, pagesUrl, { filter: 'url_key = "home"' });
    expect(homes.total_size).toBe(1);
  });
});

describe('create and read', () => {
  it('creates a page with every field and answers 201 with Location and the resource', async () => {
    const res = await post(pagesUrl, {
      title: ' About us ',
      url_key: 'about/team',
      content_heading: 'Who we are',
      content: '<p>Hello <strong>world</strong></p>',
      meta_title: 'About',
      meta_description: 'All about us',
      meta_keywords: 'about,team',
      meta_robots: 'NOINDEX_FOLLOW',
      visible_view_ids: [deViewId],
      is_active: false,
    });
    const page = expectStatus(res, 201);
    expect(res.headers.location).toBe(`http://api.test/tenant-api/v1/${page.name}`);
    expectCommonFields(page, `websites/${alice.websiteId}/cms_pages`);
    expect(page).toMatchObject({
      title: 'About us',
      url_key: 'about/team',
      content: '<p>Hello <strong>world</strong></p>',
      meta_robots: 'NOINDEX_FOLLOW',
      visible_view_ids: [deViewId],
      is_active: false,
    });
    expect(expectStatus(await t.request('GET', `${API}/${page.name}`, { token: alice.token }), 200)).toEqual(page);
  });

  it('defaults: is_active true, visible_view_ids empty (every view), url_key from the title', async () => {
    const page = expectStatus(await post(pagesUrl, { title: 'Über Café & Bar!' }), 201);
    expect(page).toMatchObject({ is_active: true, visible_view_ids: [], url_key: 'uber-cafe-bar', meta_robots: 'INDEX_FOLLOW' });
    // Other scripts are transliterated, so the key stays readable.
    expect(expectStatus(await post(pagesUrl, { title: 'Ελληνικά νέα' }), 201).url_key).toBe('ellinika-nea');
  });

  it('title is required and not blank; bad url_key, unknown fields and oversize values name the field', async () => {
    const before = await snapshot(t, alice.token, pagesUrl, 'cms_pages');
    expectInvalid(await post(pagesUrl, { url_key: 'x' }), 'title');
    expectInvalid(await post(pagesUrl, { title: '   ' }), 'title');
    expectInvalid(await post(pagesUrl, { title: 'T', url_key: 'Has Spaces' }), 'url_key');
    expectInvalid(await post(pagesUrl, { title: 'T', url_key: '/leading' }), 'url_key');
    expectInvalid(await post(pagesUrl, { title: 'T', colour: 'red' }), 'colour');
    expectInvalid(await post(pagesUrl, { title: 'x'.repeat(256) }), 'title');
    expectInvalid(await post(pagesUrl, { title: 'T', content: 'x'.repeat(500_001) }), 'content');
    expectInvalid(await post(pagesUrl, { title: 'T', is_active: 'yes' }), 'is_active');
    expectInvalid(await post(pagesUrl, { title: 'T', meta_robots: 'NOPE' }), 'meta_robots');
    expectInvalid(await post(pagesUrl, { title: 'T', visible_view_ids: 'all' }), 'visible_view_ids');
    expect(await snapshot(t, alice.token, pagesUrl, 'cms_pages')).toEqual(before);
  });

  it('visible_view_ids must name views of the same website (INVALID_ARGUMENT), duplicates kept once', async () => {
    const bobView = (await list(t, bob.token, `${API}/websites/${bob.websiteId}/views`)).views[0].id;
    expectInvalid(await post(pagesUrl, { title: 'T', visible_view_ids: [bobView] }), 'visible_view_ids');
    expectInvalid(await post(pagesUrl, { title: 'T', visible_view_ids: ['nope'] }), 'visible_view_ids');
    const page = await createPage({ visible_view_ids: [deViewId, deViewId, frViewId] });
    expect(page.visible_view_ids).toEqual([deViewId, frViewId]);
  });

  it('client-chosen ids are unique per website: ?id= taken answers ALREADY_EXISTS, the same id on another website is fine', async () => {
    expectStatus(await post(`${pagesUrl}?id=contact`, { title: 'Contact' }), 201);
    expectError(await post(`${pagesUrl}?id=contact`, { title: 'Contact 2', url_key: 'contact-2' }), 409, 'ALREADY_EXISTS');
    expectStatus(await post(`${API}/websites/${bob.websiteId}/cms_pages?id=contact`, { title: 'Contact' }, bob.token), 201);
    // Each website's page is its own: updating one leaves the other alone.
    expectStatus(await patch(`${pagesUrl}/contact`, { title: 'Alice contact' }), 200);
    const bobs = expectStatus(await t.request('GET', `${API}/websites/${bob.websiteId}/cms_pages/contact`, { token: bob.token }), 200);
    expect(bobs.title).toBe('Contact');
  });
});

describe('url_key is unique per website and view scope', () => {
  it('a duplicate url_key on pages visible everywhere answers ALREADY_EXISTS naming url_key', async () => {
    await createPage({ url_key: 'dup' });
    const before = await snapshot(t, alice.token, pagesUrl, 'cms_pages');
    const error = expectError(await post(pagesUrl, { title: 'Dup', url_key: 'dup' }), 409, 'ALREADY_EXISTS');
    expect(error.message).toContain('url_key');
    expect(await snapshot(t, alice.token, pagesUrl, 'cms_pages')).toEqual(before);
  });

  it('pages in disjoint views may share a url_key; an overlapping or all-views page may not', async () => {
    await createPage({ url_key: 'impressum', visible_view_ids: [deViewId] });
    await createPage({ url_key: 'impressum', visible_view_ids: [frViewId] });
    expectError(await post(pagesUrl, { title: 'X', url_key: 'impressum', visible_view_ids: [frViewId, defaultViewId] }), 409, 'ALREADY_EXISTS');
    expectError(await post(pagesUrl, { title: 'X', url_key: 'impressum' }), 409, 'ALREADY_EXISTS');
    await createPage({ url_key: 'impressum', visible_view_ids: [defaultViewId] });
  });

  it('an update that moves a page onto a taken url_key or widens its views into a clash is refused', async () => {
    await createPage({ url_key: 'taken' });
    const other = await createPage({ url_key: 'free-one' });
    expectError(await patch(`${API}/${other.name}`, { url_key: 'taken' }), 409, 'ALREADY_EXISTS');
    const de = await createPage({ url_key: 'kontakt', visible_view_ids: [deViewId] });
    await createPage({ url_key: 'kontakt', visible_view_ids: [frViewId] });
    expectError(await patch(`${API}/${de.name}`, { visible_view_ids: [] }), 409, 'ALREADY_EXISTS');
    const unchanged = expectStatus(await t.request('GET', `${API}/${de.name}`, { token: alice.token }), 200);
    expect(unchanged).toEqual(de);
  });

  it('concurrent creates of one url_key: exactly one wins, the others answer ALREADY_EXISTS', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(pagesUrl, { title: `Race ${i}`, url_key: 'race' })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    for (const r of answers.filter((x) => x.statusCode === 409)) expectError(r, 409, 'ALREADY_EXISTS');
    expect((await list(t, alice.token, pagesUrl, { filter: 'url_key = "race"' })).total_size).toBe(1);
  });

  it('the same url_key on another website is fine', async () => {
    await createPage({ url_key: 'shared-key' });
    expectStatus(await post(`${API}/websites/${bob.websiteId}/cms_pages`, { title: 'S', url_key: 'shared-key' }, bob.token), 201);
  });
});

describe('update, etag, delete', () => {
  it('PATCH merges, raises the etag, and a stale If-Match answers ABORTED with the current page', async () => {
    const page = await createPage({ meta_description: 'old' });
    const updated = expectStatus(await patch(`${API}/${page.name}`, { meta_title: 'New' }, { 'if-match': `"${page.etag}"` }), 200);
    await expectShape(t, 'UpdateCmsPage', 200, updated);
    expect(updated).toMatchObject({ meta_title: 'New', meta_description: 'old', title: page.title });
    expect(updated.etag).not.toBe(page.etag);
    const error = expectError(await patch(`${API}/${page.name}`, { meta_title: 'Stale' }, { 'if-match': `"${page.etag}"` }), 409, 'ABORTED');
    expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource).toEqual(updated);
  });

  it('clearing url_key with update_mask derives it from the title again; title cannot be cleared', async () => {
    const page = await createPage({ title: 'Fresh Start', url_key: 'custom' });
    const cleared = expectStatus(await patch(`${API}/${page.name}?update_mask=url_key`, {}), 200);
    expect(cleared.url_key).toBe('fresh-start');
    expectInvalid(await patch(`${API}/${page.name}?update_mask=title`, {}), 'title');
  });

  it('Get with If-None-Match answers 304; Delete answers 204 and the page is gone', async () => {
    const page = await createPage();
    expectNoBody(await t.request('GET', `${API}/${page.name}`, { token: alice.token, headers: { 'if-none-match': `"${page.etag}"` } }), 304);
    expectNoBody(await t.request('DELETE', `${API}/${page.name}`, { token: alice.token }), 204);
    expectError(await t.request('GET', `${API}/${page.name}`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('validate_only runs the checks and writes nothing', async () => {
    const before = await snapshot(t, alice.token, pagesUrl, 'cms_pages');
    const would = expectStatus(await post(`${pagesUrl}?validate_only=true`, { title: 'Would be', url_key: 'would-be' }), 200);
    expect(would.url_key).toBe('would-be');
    expect(await snapshot(t, alice.token, pagesUrl, 'cms_pages')).toEqual(before);
  });
});

describe('list: filters and order', () => {
  it('filters by is_active and title (equality and contains), sorts by title', async () => {
    await createPage({ title: 'Zebra filter', is_active: false });
    await createPage({ title: 'Aardvark filter' });
    const inactive = await list(t, alice.token, pagesUrl, { filter: 'is_active = false AND title:"filter"' });
    expect(inactive.cms_pages.map((p: any) => p.title)).toEqual(['Zebra filter']);
    const byTitle = await list(t, alice.token, pagesUrl, { filter: 'title:"filter"', order_by: 'title asc' });
    expect(byTitle.cms_pages.map((p: any) => p.title)).toEqual(['Aardvark filter', 'Zebra filter']);
    const exact = await list(t, alice.token, pagesUrl, { filter: 'title = "Aardvark filter"' });
    expect(exact.total_size).toBe(1);
  });

  it('filters by visible_view_ids membership and url_key', async () => {
    const page = await createPage({ url_key: 'only-fr', visible_view_ids: [frViewId] });
    const fr = await list(t, alice.token, pagesUrl, { filter: `visible_view_ids:"${frViewId}" AND url_key = "only-fr"` });
    expect(idsOf(fr, 'cms_pages')).toEqual([page.id]);
  });

  it('sorting by content is refused with INVALID_ARGUMENT naming the field; filtering by content too', async () => {
    const error = expectInvalid(await t.request('GET', `${pagesUrl}?order_by=content`, { token: alice.token }), 'order_by');
    expect(error.message).toContain('content');
    const filterError = expectInvalid(await t.request('GET', `${pagesUrl}?filter=${encodeURIComponent('content:"x"')}`, { token: alice.token }), 'content');
    expect(filterError.message).toContain('content');
  });
});

describe('tenancy', () => {
  it("another tenant's page answers NOT_FOUND for Get, Update, Delete and under the caller's own website path", async () => {
    const page = await createPage();
    expectError(await t.request('GET', `${API}/${page.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/${page.name}`, { title: 'Hijack' }, {}, bob.token), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${API}/${page.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/${bob.websiteId}/cms_pages/${page.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', pagesUrl, { token: bob.token }), 404, 'NOT_FOUND');
    expect(expectStatus(await t.request('GET', `${API}/${page.name}`, { token: alice.token }), 200).title).toBe(page.title);
  });

  it('requires authentication', async () => {
    expectError(await t.request('GET', pagesUrl), 401, 'UNAUTHENTICATED');
  });
});

describe('view deletion', () => {
  it('deleting a view with force removes it from visible_view_ids; a page only in that view is switched off, not shown everywhere', async () => {
    const views = `${API}/websites/${alice.websiteId}/views`;
    const it1 = expectStatus(await post(views, { display_name: 'Italiano', locale: 'it' }), 201).id;
    const only = await createPage({ url_key: 'solo-it', visible_view_ids: [it1] });
    const both = await createPage({ url_key: 'it-and-de', visible_view_ids: [it1, deViewId] });
    const refused = expectError(await t.request('DELETE', `${views}/${it1}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(refused.message).toContain('cms_pages.visible_view_ids');
    expectNoBody(await t.request('DELETE', `${views}/${it1}?force=true`, { token: alice.token }), 204);
    const onlyAfter = expectStatus(await t.request('GET', `${API}/${only.name}`, { token: alice.token }), 200);
    expect(onlyAfter).toMatchObject({ visible_view_ids: [], is_active: false });
    const bothAfter = expectStatus(await t.request('GET', `${API}/${both.name}`, { token: alice.token }), 200);
    expect(bothAfter).toMatchObject({ visible_view_ids: [deViewId], is_active: true });
  });
});

describe('request_id (idempotent create)', () => {
  it('a repeated request_id answers the first page instead of creating another', async () => {
    const body = { title: 'Once', url_key: 'once-only', request_id: 'page-req-1' };
    const first = expectStatus(await post(pagesUrl, body), 201);
    const again = expectStatus(await post(pagesUrl, body), 201);
    expect(again.id).toBe(first.id);
    expect((await list(t, alice.token, pagesUrl, { filter: 'url_key = "once-only"' })).total_size).toBe(1);
  });

  it('a replay never answers another website’s page that carries the same id (ids are unique per website only)', async () => {
    const created = expectStatus(await post(`${pagesUrl}?id=shared-page&request_id=page-req-2`, { title: 'Mine', url_key: 'mine-shared' }), 201);
    expect((await t.request('DELETE', `${pagesUrl}/shared-page`, { token: alice.token })).statusCode).toBe(204);
    const bobs = `${API}/websites/${bob.websiteId}/cms_pages`;
    expectStatus(await post(`${bobs}?id=shared-page`, { title: 'Bob secret', url_key: 'bob-shared' }, bob.token), 201);

    const replayed = expectStatus(await post(`${pagesUrl}?id=shared-page&request_id=page-req-2`, { title: 'Mine', url_key: 'mine-shared' }), 201);
    expect(replayed.name).toBe(`websites/${alice.websiteId}/cms_pages/shared-page`);
    expect(replayed.title).toBe('Mine');
    expect(replayed.name).toBe(created.name);
  });
});
