/**
 * Views' fallback (issue 13, "Views' fallback, for pages, blocks and the blog alike"): a view
 * without an overlay of its own shows its fallback chain's overlay, field by field — for each field
 * the nearest view in the chain whose overlay lists it in `overridden` wins, else the resource's own
 * value. Read through `:resolve` of pages and blocks, which share one resolution (`src/cms/view-overlays.ts`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectNoBody, expectShape, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let pagesUrl: string;
let blocksUrl: string;
let viewsUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
  blocksUrl = `${API}/websites/${alice.websiteId}/cms_blocks`;
  viewsUrl = `${API}/websites/${alice.websiteId}/views`;
});
afterAll(() => t?.close());

const post = (url: string, body: unknown) => t.request('POST', url, { token: alice.token, body });
const patch = (url: string, body: unknown) => t.request('PATCH', url, { token: alice.token, body });
const resolve = (resource: { name: string }, body: unknown = {}) => t.request('POST', `${API}/${resource.name}:resolve`, { token: alice.token, body });
const overlay = async (resource: { name: string }, viewId: string, body: Record<string, unknown>) =>
  expectStatus(await patch(`${API}/${resource.name}/views/${viewId}?allow_missing=true`, body), 201);

let n = 0;
/** A view (its own URL prefix) falling back to `fallback` when given. */
const createView = async (locale: string, fallback?: string): Promise<string> => {
  n += 1;
  const body = { display_name: `${locale} ${n}`, locale, url_prefix: `v${n}`, ...(fallback ? { fallback_view_id: fallback } : {}) };
  return expectStatus(await post(viewsUrl, body), 201).id;
};
const createPage = async (body: Record<string, unknown> = {}) => {
  n += 1;
  return expectStatus(await post(pagesUrl, { title: 'English title', url_key: `fb-${n}`, content: '<p>English</p>', meta_title: 'English meta', ...body }), 201);
};

describe('views fallback on pages', () => {
  it('fallback inherited: a view without an overlay of its own shows its fallback view\'s overlay', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel' });

    const res = expectStatus(await resolve(page, { view_id: at }), 200);
    await expectShape(t, 'ResolveCmsPage', 200, res);
    expect(res).toMatchObject({ view_id: at, title: 'Deutscher Titel', content: '<p>English</p>', overridden_fields: ['title'], field_sources: { title: `views/${de}` } });
  });

  it('own overlay wins: a field the view overrides itself hides the fallback\'s, the others still come from the fallback', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel', content: '<p>Deutsch</p>' });
    await overlay(page, at, { title: 'Österreichischer Titel' });

    const res = expectStatus(await resolve(page, { view_id: at }), 200);
    expect(res).toMatchObject({ title: 'Österreichischer Titel', content: '<p>Deutsch</p>' });
    expect(res.overridden_fields.sort()).toEqual(['content', 'title']);
    expect(res.field_sources).toEqual({ title: `views/${at}`, content: `views/${de}` });
    // The fallback view itself is unaffected by the views that fall back to it.
    expect(expectStatus(await resolve(page, { view_id: de }), 200)).toMatchObject({ title: 'Deutscher Titel', field_sources: { title: `views/${de}`, content: `views/${de}` } });
  });

  it('field by field along a 3-view chain: the nearest view whose overlay overrides a field supplies it, the rest show the page', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const vienna = await createView('de-AT', at);
    const page = await createPage({ meta_description: 'English description' });
    await overlay(page, de, { title: 'DE title', content: '<p>DE</p>', meta_title: 'DE meta' });
    await overlay(page, at, { content: '<p>AT</p>' });
    await overlay(page, vienna, { meta_title: 'Wien meta' });

    const res = expectStatus(await resolve(page, { view_id: vienna }), 200);
    expect(res).toMatchObject({ title: 'DE title', content: '<p>AT</p>', meta_title: 'Wien meta', meta_description: 'English description' });
    expect(res.field_sources).toEqual({ title: `views/${de}`, content: `views/${at}`, meta_title: `views/${vienna}` });
    expect(res.overridden_fields.sort()).toEqual(['content', 'meta_title', 'title']);
    expect(expectStatus(await resolve(page, { view_id: at }), 200)).toMatchObject({ title: 'DE title', content: '<p>AT</p>', meta_title: 'DE meta' });
  });

  it('a field not in `overridden` of the fallback overlay is not taken (its stored value stays hidden)', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel', meta_title: 'DE meta' });
    expectStatus(await patch(`${API}/${page.name}/views/${de}`, { overridden: ['meta_title'] }), 200);

    const res = expectStatus(await resolve(page, { view_id: at }), 200);
    expect(res).toMatchObject({ title: 'English title', meta_title: 'DE meta', overridden_fields: ['meta_title'], field_sources: { meta_title: `views/${de}` } });
    // An own overlay that lists nothing does not stop the chain: it overrides no field.
    await overlay(page, at, { overridden: [] });
    expect(expectStatus(await resolve(page, { view_id: at }), 200)).toMatchObject({ title: 'English title', meta_title: 'DE meta' });
  });

  it('deleting the fallback view (with force) stops inheritance; without force it is refused while a view falls back to it', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel' });
    expect(expectStatus(await resolve(page, { view_id: at }), 200).title).toBe('Deutscher Titel');

    const refused = expectError(await t.request('DELETE', `${viewsUrl}/${de}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(refused.message).toContain('views.fallback_view_id');
    expectNoBody(await t.request('DELETE', `${viewsUrl}/${de}?force=true`, { token: alice.token }), 204);
    const view = expectStatus(await t.request('GET', `${viewsUrl}/${at}`, { token: alice.token }), 200);
    expect(view.fallback_view_id).toBeUndefined();
    expect(expectStatus(await resolve(page, { view_id: at }), 200)).toMatchObject({ title: 'English title', overridden_fields: [], field_sources: {} });
  });

  it('changing a view\'s fallback changes what it inherits at once', async () => {
    const de = await createView('de');
    const fr = await createView('fr');
    const at = await createView('de-AT', de);
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel' });
    await overlay(page, fr, { title: 'Titre français' });
    expect(expectStatus(await resolve(page, { view_id: at }), 200).title).toBe('Deutscher Titel');
    expectStatus(await patch(`${viewsUrl}/${at}`, { fallback_view_id: fr }), 200);
    expect(expectStatus(await resolve(page, { view_id: at }), 200).title).toBe('Titre français');
    expectStatus(await t.request('PATCH', `${viewsUrl}/${at}?update_mask=fallback_view_id`, { token: alice.token, body: { fallback_view_id: null } }), 200);
    expect(expectStatus(await resolve(page, { view_id: at }), 200).title).toBe('English title');
  });

  it('visibility (`is_visible`) is decided by the view asked for, never by the fallback whose content shows', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const onlyDe = await createPage({ visible_view_ids: [de] });
    await overlay(onlyDe, de, { title: 'Nur Deutsch' });
    expect(expectStatus(await resolve(onlyDe, { view_id: at }), 200)).toMatchObject({ title: 'Nur Deutsch', is_visible: false });
    expect(expectStatus(await resolve(onlyDe, { view_id: de }), 200).is_visible).toBe(true);
    const onlyAt = await createPage({ visible_view_ids: [at] });
    await overlay(onlyAt, de, { title: 'Für Österreich' });
    expect(expectStatus(await resolve(onlyAt, { view_id: at }), 200)).toMatchObject({ title: 'Für Österreich', is_visible: true });
  });

  it('a customer-group version matches the view asked for; the fields it leaves alone show the fallback chain\'s overlay', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const group = expectStatus(await post(`${API}/websites/${alice.websiteId}/customer_groups`, { display_name: `Wholesale ${n}` }), 201).id;
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel', content: '<p>Deutsch</p>' });
    const version = expectStatus(await post(`${API}/${page.name}/groups`, { customer_group_ids: [group], content: '<p>Großhandel</p>' }), 201);

    const res = expectStatus(await resolve(page, { view_id: at, customer_group_id: group }), 200);
    expect(res).toMatchObject({ title: 'Deutscher Titel', content: '<p>Großhandel</p>', cms_page_group_id: version.id, overridden_fields: ['title'], field_sources: { title: `views/${de}` } });
    // A version limited to the fallback view does not apply to the view that falls back to it.
    const deOnly = await createPage();
    expectStatus(await post(`${API}/${deOnly.name}/groups`, { customer_group_ids: [group], content: '<p>Nur DE</p>', visible_view_ids: [de] }), 201);
    const other = expectStatus(await resolve(deOnly, { view_id: at, customer_group_id: group }), 200);
    expect(other.content).toBe('<p>English</p>');
    expect(other.cms_page_group_id).toBeUndefined();
  });

  it('the default view\'s fallback applies when no view_id is named', async () => {
    const de = await createView('de');
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel' });
    const defaultView = expectStatus(await t.request('GET', `${viewsUrl}?filter=is_default%20%3D%20true`, { token: alice.token }), 200).views[0];
    expectStatus(await patch(`${viewsUrl}/${defaultView.id}`, { fallback_view_id: de }), 200);
    try {
      expect(expectStatus(await resolve(page), 200)).toMatchObject({ view_id: defaultView.id, title: 'Deutscher Titel', field_sources: { title: `views/${de}` } });
    } finally {
      expectStatus(await t.request('PATCH', `${viewsUrl}/${defaultView.id}?update_mask=fallback_view_id`, { token: alice.token, body: { fallback_view_id: null } }), 200);
    }
  });

  it('a fallback loop (refused by the API, written here behind its back) cannot hang a read: the walk stops at the first repeated view', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    expectError(await patch(`${viewsUrl}/${de}`, { fallback_view_id: at }), 400, 'INVALID_ARGUMENT');
    await t.fresh.database.db.updateTable('views').set({ fallback_view_id: at }).where('website_id', '=', alice.websiteId).where('id', '=', de).execute();
    const page = await createPage();
    await overlay(page, de, { title: 'Deutscher Titel' });
    await overlay(page, at, { content: '<p>AT</p>' });
    expect(expectStatus(await resolve(page, { view_id: at }), 200)).toMatchObject({ title: 'Deutscher Titel', content: '<p>AT</p>' });
    expect(expectStatus(await resolve(page, { view_id: de }), 200)).toMatchObject({ title: 'Deutscher Titel', content: '<p>AT</p>' });
    await t.fresh.database.db.updateTable('views').set({ fallback_view_id: null }).where('website_id', '=', alice.websiteId).where('id', '=', de).execute();
  });
});

describe('views fallback on blocks', () => {
  it('blocks likewise: fallback inherited, own overlay wins, field by field', async () => {
    const de = await createView('de');
    const at = await createView('de-AT', de);
    const block = expectStatus(await post(blocksUrl, { identifier: `footer-${n}`, title: 'Footer', content: '<p>EN</p>' }), 201);
    await overlay(block, de, { title: 'Fußzeile', content: '<p>DE</p>' });

    const inherited = expectStatus(await resolve(block, { view_id: at }), 200);
    await expectShape(t, 'ResolveCmsBlock', 200, inherited);
    expect(inherited).toMatchObject({ view_id: at, title: 'Fußzeile', content: '<p>DE</p>', field_sources: { title: `views/${de}`, content: `views/${de}` } });
    await overlay(block, at, { content: '<p>AT</p>' });
    expect(expectStatus(await resolve(block, { view_id: at }), 200)).toMatchObject({ title: 'Fußzeile', content: '<p>AT</p>', field_sources: { title: `views/${de}`, content: `views/${at}` } });
  });
});
