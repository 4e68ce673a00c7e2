import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { eventually, expectCanonical, siteUnderTest, type SiteUnderTest } from './agents-support.js';

/** Issue 15, "Read API": published pages, posts and menus of a site as JSON on its own host. */
describe('site read API', () => {
  let t: TestApp;
  let a: SiteUnderTest;
  let b: SiteUnderTest;
  let deViewId: string;

  beforeAll(async () => {
    t = await startTestApp();
    a = await siteUnderTest(t, 'Alpha Bakery');
    b = await siteUnderTest(t, 'Beta Garage');
    deViewId = expectStatus(await a.api('POST', '/views', { display_name: 'Deutsch', locale: 'de-DE', url_prefix: 'de' }), 201).id;
    const page = (body: Record<string, unknown>) => a.api('POST', '/cms_pages', body).then((r) => expectStatus(r, 201));
    const about = await page({ title: 'About us', url_key: 'about', content: '<p>We bake.</p>', meta_description: 'Who we are' });
    await page({ title: 'Secret', url_key: 'secret', is_active: false });
    await page({ title: 'Nur Deutsch', url_key: 'nur-deutsch', visible_view_ids: [deViewId] });
    await page({ title: 'Team', url_key: 'company/team' });
    expect([200, 201]).toContain((await a.api('PATCH', `/cms_pages/${about.id}/views/${deViewId}?allow_missing=true`, { title: 'Über uns' })).statusCode);
    expectStatus(await b.api('POST', '/cms_pages', { title: 'Beta about', url_key: 'about' }), 201);

    const post = (body: Record<string, unknown>) => a.api('POST', '/blog_posts', body).then((r) => expectStatus(r, 201));
    await post({ title: 'Old news', url_key: 'old', state: 'PUBLISHED', publish_time: '2020-01-01T00:00:00Z', content: '<p>Old</p>' });
    await post({ title: 'New loaf', url_key: 'new-loaf', state: 'PUBLISHED', publish_time: '2024-01-01T00:00:00Z', content: '<p>Fresh</p>' });
    await post({ title: 'Draft', url_key: 'draft' });
    await post({ title: 'Nur hier', url_key: 'nur-hier', state: 'PUBLISHED', visible_view_ids: [deViewId] });
    expectStatus(await b.api('POST', '/blog_posts', { title: 'Beta post', url_key: 'beta', state: 'PUBLISHED' }), 201);

    const secret = (await a.api('GET', '/cms_pages?filter=url_key%3D%22secret%22')).json().cms_pages[0];
    expectStatus(await a.api('POST', '/navigation_menus/main/items', { label: 'About', cms_page_id: about.id }), 201);
    expectStatus(await a.api('POST', '/navigation_menus/main/items', { label: 'Hidden page', cms_page_id: secret.id }), 201);
    expectStatus(await a.api('POST', '/navigation_menus/main/items', { label: 'Off', url: '/off', is_active: false }), 201);
    expectStatus(await a.api('POST', '/navigation_menus/main/items', { label: 'Shop', url: 'https://shop.example.org/' }), 201);
  });
  afterAll(() => t.close());

  const keys = (res: any, what: string) => res.json()[what].map((x: any) => x.url_key);

  it('GET /api/v1/pages lists the pages the view serves, by url_key; inactive and other views\' pages are absent', async () => {
    const res = await eventually(async () => {
      const r = await a.site('GET', '/api/v1/pages');
      expect(keys(r, 'pages')).toContain('company/team');
      return r;
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(keys(res, 'pages')).toEqual(['about', 'company/team', 'home']);
    const about = res.json().pages[0];
    expect(about).toMatchObject({ url_key: 'about', title: 'About us', path: '/about', url: `http://${a.host}/about`, markdown_url: `http://${a.host}/about.md`, meta_description: 'Who we are' });
    expect(about.content).toBeUndefined();
    const home = res.json().pages.find((p: any) => p.url_key === 'home');
    expect(home).toMatchObject({ path: '/', url: `http://${a.host}/` });

    const de = await a.site('GET', `/api/v1/pages?view=${deViewId}`);
    expect(keys(de, 'pages')).toEqual(['about', 'company/team', 'home', 'nur-deutsch']);
    expect(de.json().pages[0]).toMatchObject({ title: 'Über uns', url: `http://${a.host}/de/about`, view_id: deViewId });
  });

  it('GET /api/v1/pages/{url_key} answers the page with its content; unknown, inactive and invisible keys are NOT_FOUND', async () => {
    const about = expectStatus(await a.site('GET', '/api/v1/pages/about'), 200);
    expect(about).toMatchObject({ url_key: 'about', title: 'About us', content: '<p>We bake.</p>' });
    expect(expectStatus(await a.site('GET', `/api/v1/pages/about?view=${deViewId}`), 200).title).toBe('Über uns');
    expect(expectStatus(await a.site('GET', '/api/v1/pages/company/team'), 200).title).toBe('Team');
    expect(expectStatus(await a.site('GET', '/api/v1/pages/company%2Fteam'), 200).title).toBe('Team');
    expectCanonical(await a.site('GET', '/api/v1/pages/secret'), 404, 'NOT_FOUND');
    expectCanonical(await a.site('GET', '/api/v1/pages/nur-deutsch'), 404, 'NOT_FOUND');
    expectCanonical(await a.site('GET', '/api/v1/pages/no-such-page'), 404, 'NOT_FOUND');
    expect(expectStatus(await a.site('GET', `/api/v1/pages/nur-deutsch?view=${deViewId}`), 200).title).toBe('Nur Deutsch');
  });

  it('nothing of another website: each site answers its own pages and posts only', async () => {
    const beta = expectStatus(await b.site('GET', '/api/v1/pages/about'), 200);
    expect(beta.title).toBe('Beta about');
    expect(keys(await b.site('GET', '/api/v1/pages'), 'pages')).toEqual(['about', 'home']);
    expect(keys(await b.site('GET', '/api/v1/posts'), 'posts')).toEqual(['beta']);
    expectCanonical(await b.site('GET', '/api/v1/posts/new-loaf'), 404, 'NOT_FOUND');
    // A view id of another website is no view here.
    expectCanonical(await b.site('GET', `/api/v1/pages?view=${deViewId}`), 400, 'INVALID_ARGUMENT', 'view');
  });

  it('keyset pagination: page_size and page_token walk every page once; a token is bound to its collection and view', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const res = expectStatus(await a.site('GET', `/api/v1/pages?page_size=1${token ? `&page_token=${encodeURIComponent(token)}` : ''}`), 200);
      expect(res.pages.length).toBeLessThanOrEqual(1);
      seen.push(...res.pages.map((p: any) => p.url_key));
      token = res.next_page_token;
      pages++;
    } while (token && pages < 10);
    expect(seen).toEqual(['about', 'company/team', 'home']);

    const first = expectStatus(await a.site('GET', '/api/v1/pages?page_size=1'), 200);
    expectCanonical(await a.site('GET', `/api/v1/pages?page_size=1&view=${deViewId}&page_token=${encodeURIComponent(first.next_page_token)}`), 400, 'INVALID_ARGUMENT', 'page_token');
    expectCanonical(await a.site('GET', `/api/v1/posts?page_token=${encodeURIComponent(first.next_page_token)}`), 400, 'INVALID_ARGUMENT', 'page_token');
    expectCanonical(await b.site('GET', `/api/v1/pages?page_token=${encodeURIComponent(first.next_page_token)}`), 400, 'INVALID_ARGUMENT', 'page_token');
  });

  it('bad page_token, page_size and view are INVALID_ARGUMENT naming the parameter', async () => {
    expectCanonical(await a.site('GET', '/api/v1/pages?page_token=garbage'), 400, 'INVALID_ARGUMENT', 'page_token');
    expectCanonical(await a.site('GET', '/api/v1/pages?page_token=a.b'), 400, 'INVALID_ARGUMENT', 'page_token');
    expectCanonical(await a.site('GET', '/api/v1/pages?page_size=-1'), 400, 'INVALID_ARGUMENT', 'page_size');
    expectCanonical(await a.site('GET', '/api/v1/posts?page_size=abc'), 400, 'INVALID_ARGUMENT', 'page_size');
    expectCanonical(await a.site('GET', '/api/v1/posts?page_size=1e2'), 400, 'INVALID_ARGUMENT', 'page_size');
    expectCanonical(await a.site('GET', '/api/v1/pages?view=nope'), 400, 'INVALID_ARGUMENT', 'view');
    expectCanonical(await a.site('GET', `/api/v1/pages?view=${'x'.repeat(100)}`), 400, 'INVALID_ARGUMENT', 'view');
    expectCanonical(await a.site('GET', '/api/v1/pages/NOT_A_KEY'), 400, 'INVALID_ARGUMENT', 'url_key');
    expectCanonical(await a.site('GET', `/api/v1/pages/${'a'.repeat(300)}`), 400, 'INVALID_ARGUMENT');
    expect(expectStatus(await a.site('GET', '/api/v1/pages?page_size=100000'), 200).pages.length).toBe(3);
    expectCanonical(await a.site('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND');
    expectCanonical(await a.site('POST', '/api/v1/pages', { headers: { 'content-type': 'application/json' }, body: {} }), 405, 'UNIMPLEMENTED');
  });

  it('GET /api/v1/posts lists PUBLISHED posts visible in the view, newest first; drafts are never there', async () => {
    const res = expectStatus(await a.site('GET', '/api/v1/posts'), 200);
    expect(res.posts.map((p: any) => p.url_key)).toEqual(['new-loaf', 'old']);
    expect(res.posts[0]).toMatchObject({ title: 'New loaf', excerpt: 'Fresh', publish_time: '2024-01-01T00:00:00.000Z', path: '/blog/new-loaf' });
    const de = expectStatus(await a.site('GET', `/api/v1/posts?view=${deViewId}`), 200);
    expect(de.posts.map((p: any) => p.url_key)).toContain('nur-hier');
    expect(expectStatus(await a.site('GET', '/api/v1/posts/new-loaf'), 200).content).toBe('<p>Fresh</p>');
    expectCanonical(await a.site('GET', '/api/v1/posts/draft'), 404, 'NOT_FOUND');
    expectCanonical(await a.site('GET', '/api/v1/posts/nur-hier'), 404, 'NOT_FOUND');
    const page1 = expectStatus(await a.site('GET', '/api/v1/posts?page_size=1'), 200);
    const page2 = expectStatus(await a.site('GET', `/api/v1/posts?page_size=1&page_token=${encodeURIComponent(page1.next_page_token)}`), 200);
    expect([...page1.posts, ...page2.posts].map((p: any) => p.url_key)).toEqual(['new-loaf', 'old']);
  });

  it('GET /api/v1/navigation/{identifier}: the menu as the view shows it, without inactive items or links to pages it does not serve', async () => {
    const menu = expectStatus(await a.site('GET', '/api/v1/navigation/main'), 200);
    expect(menu.identifier).toBe('main');
    expect(menu.items.map((i: any) => [i.label, i.href])).toEqual([
      ['Home', '/'],
      ['About', '/about'],
      ['Shop', 'https://shop.example.org/'],
    ]);
    const de = expectStatus(await a.site('GET', `/api/v1/navigation/main?view=${deViewId}`), 200);
    expect(de.items.map((i: any) => i.href)).toEqual(['/de', '/de/about', 'https://shop.example.org/']);
    expectCanonical(await a.site('GET', '/api/v1/navigation/footer'), 404, 'NOT_FOUND');
    expectCanonical(await a.site('GET', '/api/v1/navigation/Bad%20Id'), 400, 'INVALID_ARGUMENT', 'identifier');
    expect(expectStatus(await b.site('GET', '/api/v1/navigation/main'), 200).items.map((i: any) => i.label)).toEqual(['Home']);
  });

  it('GET /api/v1/views lists the active views; /api/v1/openapi.json describes the API with the site as server', async () => {
    const views = expectStatus(await a.site('GET', '/api/v1/views'), 200).views;
    expect(views.map((v: any) => v.url_prefix)).toEqual(['', 'de']);
    const doc = expectStatus(await a.site('GET', '/api/v1/openapi.json'), 200);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0].url).toBe(`http://${a.host}/api/v1`);
    expect(Object.keys(doc.paths).sort()).toEqual(['/api/v1/navigation/{identifier}', '/api/v1/pages', '/api/v1/pages/{url_key}', '/api/v1/posts', '/api/v1/posts/{url_key}', '/api/v1/search', '/api/v1/views']);
    expect(doc.paths['/api/v1/pages'].get.operationId).toBe('ListSitePages');
    expect(expectStatus(await b.site('GET', '/api/v1/openapi.json'), 200).servers[0].url).toBe(`http://${b.host}/api/v1`);
  });
});
