/**
 * Issue 15, "Rendering": CMS pages, blocks, theme chrome and sitemap.xml on the rendered site,
 * read through `:resolve`'s resolution (views' fallback chains, `is_active`, `visible_view_ids`,
 * customer-group versions), driven through HTTP with the site's Host.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areas as platformAreas } from '../../src/areas.js';
import type { Area } from '../../src/platform/area.js';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectStatus } from '../support/fixtures.js';
import { png, upload } from '../support/media.js';

/**
 * A template using the `block_content` tag, as a theme would. (Customer-group versions for a
 * signed-in visitor are tested with the real sign-in: test/site/visitors-group-pages.test.ts.)
 */
const testSiteArea: Area = {
  name: 'test-site',
  site: () => ({
    templates: { 'test/blocks': `{% layout 'layout' %}{% block content %}<h1>Blocks</h1>{% block_content 'promo' %}|{% block_content name %}|{% block_content 'missing' %}{% endblock %}` },
    pages: [{ pattern: '/test-blocks', handler: async (ctx) => ({ kind: 'html', template: 'test/blocks', data: { name: 'promo-de' }, meta: { title: 'Blocks', canonicalPath: ctx.href('/test-blocks') } }) }],
  }),
};

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let host: string;
let bobHost: string;
let deView: string;
let atView: string;
let n = 0;

const codeOf = async (user: TestUser) => expectStatus(await t.request('GET', `${API}/websites/${user.websiteId}`, { token: user.token }), 200).code as string;
const site = (path: string, headers: Record<string, string> = {}, on = host) => t.request('GET', path, { headers: { host: on, ...headers } });
const post = (url: string, body: unknown, user = alice) => t.request('POST', url, { token: user.token, body });
const patch = (url: string, body: unknown, user = alice) => t.request('PATCH', url, { token: user.token, body });
const pagesUrl = (user = alice) => `${API}/websites/${user.websiteId}/cms_pages`;
const createPage = async (body: Record<string, unknown>, user = alice) => {
  n += 1;
  return expectStatus(await post(pagesUrl(user), { title: `Page ${n}`, url_key: `page-${n}`, content: `<p>Body ${n}</p>`, ...body }, user), 201);
};
const createBlock = async (body: Record<string, unknown>, user = alice) =>
  expectStatus(await post(`${API}/websites/${user.websiteId}/cms_blocks`, { title: 'Block', ...body }, user), 201);
/** The site follows a write within SITE_VERSION_TTL_MS: fetch until the page shows what it must (SPEC 6). */
const eventually = async (path: string, until: (body: string, status: number) => boolean, headers: Record<string, string> = {}, on = host) => {
  let last = { body: '', status: 0 };
  for (let i = 0; i < 200; i++) {
    const res = await site(path, headers, on);
    last = { body: res.body, status: res.statusCode };
    if (until(res.body, res.statusCode)) return last;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${path} never showed the expected content; last answer ${last.status}: ${last.body.slice(0, 500)}`);
};

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants({}, { areas: [...platformAreas, testSiteArea] }));
  host = `${await codeOf(alice)}.localhost`;
  bobHost = `${await codeOf(bob)}.localhost`;
  const views = `${API}/websites/${alice.websiteId}/views`;
  deView = expectStatus(await post(views, { display_name: 'Deutsch', locale: 'de', url_prefix: 'de' }), 201).id;
  atView = expectStatus(await post(views, { display_name: 'Österreich', locale: 'de-AT', url_prefix: 'at', fallback_view_id: deView }), 201).id;
});
afterAll(() => t?.close());

describe('pages on the site', () => {
  it('the home page: / shows the page with url_key home (the provisioned one), canonical /', async () => {
    const res = await site('/');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<p>Welcome to');
    expect(res.body).toMatch(new RegExp(`<link rel="canonical" href="http://${host}/">`));
    const prefixed = await site('/de');
    expect(prefixed.statusCode).toBe(200);
    expect(prefixed.body).toContain('<html lang="de">');
    expect(prefixed.body).toMatch(new RegExp(`<link rel="canonical" href="http://${host}/de">`));
  });

  it('a page by url_key, which may hold /, answers under every view it is visible in; an unknown key is the 404 page', async () => {
    await createPage({ url_key: 'company/team', title: 'Our team', content: '<h2>People</h2><ul><li>Ada</li></ul>' });
    const res = await eventually('/company/team', (_b, s) => s === 200);
    expect(res.body).toContain('<h1>Our team</h1>');
    expect(res.body).toContain('<h2>People</h2><ul><li>Ada</li></ul>');
    const slash = await site('/company/team/');
    expect(slash.statusCode).toBe(301);
    expect(slash.headers.location).toBe('/company/team');
    expect((await site('/de/company/team')).statusCode).toBe(200);
    const missing = await site('/company/nobody');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).toContain('Page not found');
    expect((await site('/Company/Team')).statusCode).toBe(404);
  });

  it('an inactive page, or one not visible in the view, is the 404 page there; the view it is visible in serves it', async () => {
    const inactive = await createPage({ title: 'Hidden draft', is_active: false });
    const deOnly = await createPage({ title: 'Nur Deutsch', visible_view_ids: [deView] });
    await eventually(`/de/${deOnly.url_key}`, (_b, s) => s === 200);
    for (const path of [`/${inactive.url_key}`, `/de/${inactive.url_key}`, `/${deOnly.url_key}`, `/at/${deOnly.url_key}`]) {
      const res = await site(path);
      expect(res.statusCode, path).toBe(404);
      expect(res.body, path).not.toContain('Hidden draft');
      expect(res.body, path).not.toContain('Nur Deutsch');
    }
  });

  it("a view shows its overlays along its fallback chain, field by field (the view's own, then its fallback's, then the page's)", async () => {
    const page = await createPage({ title: 'English', content: '<p>English body</p>' });
    expectStatus(await patch(`${API}/${page.name}/views/${deView}?allow_missing=true`, { title: 'Deutsch', content: '<p>Deutscher Text</p>' }), 201);
    expectStatus(await patch(`${API}/${page.name}/views/${atView}?allow_missing=true`, { title: 'Österreichisch' }), 201);
    const at = await eventually(`/at/${page.url_key}`, (b) => b.includes('Österreichisch'));
    expect(at.body).toContain('<p>Deutscher Text</p>');
    expect((await site(`/de/${page.url_key}`)).body).toContain('<h1>Deutsch</h1>');
    expect((await site(`/${page.url_key}`)).body).toContain('<h1>English</h1>');
  });

  it('meta: title from meta_title, description, robots, canonical and hreflang alternates of the views the page is visible in', async () => {
    const page = await createPage({ title: 'Prices', meta_title: 'Our prices', meta_description: 'What bread costs', meta_robots: 'NOINDEX_FOLLOW', visible_view_ids: [] });
    const res = await eventually(`/de/${page.url_key}`, (_b, s) => s === 200);
    expect(res.body).toContain('<title>Our prices</title>');
    expect(res.body).toContain('<meta name="description" content="What bread costs">');
    expect(res.body).toContain('<meta name="robots" content="noindex, follow">');
    expect(res.body).toContain(`<link rel="canonical" href="http://${host}/de/${page.url_key}">`);
    expect(res.body).toContain(`<link rel="alternate" hreflang="en" href="http://${host}/${page.url_key}">`);
    expect(res.body).toContain(`<link rel="alternate" hreflang="de-AT" href="http://${host}/at/${page.url_key}">`);
    const deOnly = await createPage({ visible_view_ids: [deView] });
    const one = await eventually(`/de/${deOnly.url_key}`, (_b, s) => s === 200);
    expect(one.body).not.toContain('<link rel="alternate" hreflang="en"');
  });

  it('stored content cannot inject script: what the sanitiser dropped on write never reaches the page', async () => {
    const page = await createPage({ content: '<p>ok</p><script>alert(1)</script><img src="x" onerror="alert(2)" alt="x">' });
    const res = await eventually(`/${page.url_key}`, (_b, s) => s === 200);
    expect(res.body).not.toContain('alert(1)');
    expect(res.body).not.toContain('onerror');
  });

  it("another website's page is never served, even under the same url_key", async () => {
    const bobs = await createPage({ url_key: 'bobs-secret', title: 'Bob only' }, bob);
    await eventually(`/${bobs.url_key}`, (_b, s) => s === 200, {}, bobHost);
    const res = await site('/bobs-secret');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('Bob only');
  });
});

describe('blocks by identifier', () => {
  it('a data-block placeholder in page content shows the block as the view sees it; an invisible or unknown block shows nothing', async () => {
    const block = await createBlock({ identifier: 'promo', content: '<p>Sale today</p>' });
    expectStatus(await patch(`${API}/${block.name}/views/${deView}?allow_missing=true`, { content: '<p>Heute Angebot</p>' }), 201);
    await createBlock({ identifier: 'off', content: '<p>Switched off</p>', is_active: false });
    await createBlock({ identifier: 'promo-de', content: '<p>Nur DE</p>', visible_view_ids: [deView] });
    const page = await createPage({ content: '<p>Intro</p><div data-block="promo"></div><div data-block="off"></div><div data-block="promo-de"></div><div data-block="nope"></div>' });
    const en = await eventually(`/${page.url_key}`, (_b, s) => s === 200);
    expect(en.body).toContain('<p>Sale today</p>');
    expect(en.body).not.toContain('Switched off');
    expect(en.body).not.toContain('Nur DE');
    const at = await site(`/at/${page.url_key}`);
    expect(at.body).toContain('<p>Heute Angebot</p>');
    expect(at.body).not.toContain('Nur DE');
    const de = await site(`/de/${page.url_key}`);
    expect(de.body).toContain('<p>Nur DE</p>');
  });

  it("the block_content tag places a block in a template, in the rendered view; another website's block of that identifier never shows", async () => {
    await createBlock({ identifier: 'bob-promo', content: '<p>Bob block</p>' }, bob);
    const res = await eventually('/test-blocks', (b) => b.includes('Sale today'));
    expect(res.body).not.toContain('Nur DE');
    const de = await site('/de/test-blocks');
    expect(de.body).toContain('<p>Heute Angebot</p>|<p>Nur DE</p>|');
    expect(de.body).not.toContain('Bob block');
  });
});

describe('theme chrome', () => {
  const themeUrl = () => `${API}/websites/${alice.websiteId}/theme`;

  it('CSS variables become a :root block; the default theme is in every page', async () => {
    expectStatus(await patch(themeUrl(), { variables: { '--color-primary': '#aa0000', '--brand-font': '"Open Sans", sans-serif' } }), 200);
    const res = await eventually('/', (b) => b.includes('--color-primary:#aa0000'));
    expect(res.body).toContain('--brand-font:"Open Sans", sans-serif');
    expect(res.body).toMatch(/<style>:root\{[^<]*\}/);
  });

  it('a variable that would break out of the style element is never rendered (written behind the API)', async () => {
    const hostile = { '--ok': 'red', '--x': 'red}</style><script>alert(1)</script>', '--y': 'a;b:c', '--z': '"open', 'color': 'red', '--c': 'x/*' };
    await t.platform.deps.database.db
      .updateTable('themes')
      .set({ variables: t.platform.deps.database.dialect.json(hostile) })
      .where('id', '=', alice.websiteId)
      .execute();
    const res = await eventually('/', (b) => b.includes('--ok:red'));
    expect(res.body).not.toContain('alert(1)');
    expect(res.body).not.toContain('a;b:c');
    expect(res.body).not.toContain('"open');
    expect(res.body).not.toContain('x/*');
    expect(res.body).not.toMatch(/[{;]color:red/);
    expectStatus(await patch(themeUrl(), { variables: {} }), 200);
  });

  it('the main menu: items link to their pages in the view, URLs as stored; inactive items, items of invisible pages and their sub-items are left out', async () => {
    const about = await createPage({ title: 'About', url_key: 'about-us' });
    const deOnly = await createPage({ title: 'Impressum', visible_view_ids: [deView] });
    const items = `${API}/websites/${alice.websiteId}/navigation_menus/main/items`;
    const aboutItem = expectStatus(await post(items, { label: 'About us', cms_page_id: about.id }), 201);
    expectStatus(await post(items, { label: 'Team sub', url: '/company/team', parent_id: aboutItem.id }), 201);
    expectStatus(await post(items, { label: 'Docs', url: 'https://docs.example.org/', open_in_new_tab: true }), 201);
    expectStatus(await post(items, { label: 'Hidden item', url: '/hidden', is_active: false }), 201);
    const legal = expectStatus(await post(items, { label: 'Legal', cms_page_id: deOnly.id }), 201);
    expectStatus(await post(items, { label: 'Legal sub', url: '/legal-sub', parent_id: legal.id }), 201);

    const en = await eventually(`/${about.url_key}`, (b) => b.includes('About us</a>'));
    expect(en.body).toContain(`<a href="/about-us" aria-current="page">About us</a>`);
    expect(en.body).toContain('<a href="/company/team">Team sub</a>');
    expect(en.body).toContain('<a href="https://docs.example.org/" target="_blank" rel="noopener noreferrer">Docs</a>');
    expect(en.body).not.toContain('Hidden item');
    expect(en.body).not.toContain('Legal');
    const de = await site('/de');
    expect(de.body).toContain('<a href="/de/about-us">About us</a>');
    expect(de.body).toContain(`<a href="/de/${deOnly.url_key}">Legal</a>`);
    expect(de.body).toContain('Legal sub');
  });

  it('logo and favicon come from the media library as transformed, signed URLs with srcset; the logo keeps its alt text and its shown size', async () => {
    const logo = await upload(t, alice.token, alice.websiteId, 'logo.png', await png(800, 200), { alt_text: 'Bakery logo: a wheat sheaf' });
    const icon = await upload(t, alice.token, alice.websiteId, 'icon.png', await png(64, 64));
    expectStatus(await patch(themeUrl(), { logo_media_id: logo.id, favicon_media_id: icon.id }), 200);
    const res = await eventually('/', (b) => b.includes(`${icon.id}/icon.png`));
    const base = `${t.config.publicBaseUrl}/engine-api/v1/websites/${alice.websiteId}/media/`;
    expect(res.body).toMatch(
      new RegExp(`<img src="${base}${logo.id}/logo\\.png\\?w=640&amp;fmt=auto&amp;sig=[^"]+" srcset="[^"]+ 320w, [^"]+ 640w, [^"]+ 800w" sizes="176px" alt="Bakery logo: a wheat sheaf" width="176" height="44">`),
    );
    expect(res.body).toMatch(new RegExp(`<link rel="icon" href="${base}${icon.id}/icon\\.png\\?w=48&amp;h=48&amp;crop=1&amp;fmt=png&amp;sig=[^"]+" type="image/png">`));
  });

  it('the footer block renders in the view', async () => {
    const footer = await createBlock({ identifier: 'footer', content: '<p>© Bakery</p>' });
    expectStatus(await patch(`${API}/${footer.name}/views/${deView}?allow_missing=true`, { content: '<p>© Bäckerei</p>' }), 201);
    expectStatus(await patch(themeUrl(), { footer_block_id: footer.id }), 200);
    const en = await eventually('/', (b) => b.includes('© Bakery'));
    expect(en.body).toMatch(/<footer class="site-footer">[\s\S]*<div class="footer-block"><p>© Bakery<\/p><\/div>/);
    expect((await site('/at')).body).toContain('<p>© Bäckerei</p>');
  });
});

describe('sitemap.xml', () => {
  it("lists every visible page of every active view with hreflang alternates and lastmod; nothing inactive, invisible, noindex or of another website", async () => {
    const shared = await createPage({ title: 'Shared' });
    const inactive = await createPage({ is_active: false });
    const deOnly = await createPage({ visible_view_ids: [deView] });
    const noindex = await createPage({ meta_robots: 'NOINDEX_FOLLOW' });
    const res = await eventually('/sitemap.xml', (b) => b.includes(`/${deOnly.url_key}<`));
    expect(res.status).toBe(200);
    const xml = res.body;
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9" xmlns:xhtml="http:\/\/www.w3.org\/1999\/xhtml">/);
    expect(xml).toContain(`<loc>http://${host}/</loc>`);
    expect(xml).toContain(`<loc>http://${host}/de</loc>`);
    const entry = new RegExp(`<url><loc>http://${host}/${shared.url_key}</loc><lastmod>[0-9T:.-]+Z</lastmod>(<xhtml:link [^>]+/>)+</url>`);
    expect(xml).toMatch(entry);
    expect(xml).toContain(`<xhtml:link rel="alternate" hreflang="de-AT" href="http://${host}/at/${shared.url_key}"/>`);
    expect(xml).toContain(`<loc>http://${host}/de/${deOnly.url_key}</loc>`);
    expect(xml).not.toContain(`<loc>http://${host}/${deOnly.url_key}</loc>`);
    expect(xml).not.toContain(`/${inactive.url_key}<`);
    // Served, but it asks search engines not to index it: not in the sitemap.
    expect(xml).not.toContain(`/${noindex.url_key}<`);
    expect(xml).not.toContain('bobs-secret');
    const etag = (await t.request('GET', '/sitemap.xml', { headers: { host } })).headers.etag as string;
    expect((await t.request('GET', '/sitemap.xml', { headers: { host, 'if-none-match': etag } })).statusCode).toBe(304);
  });
});

describe('general.site.status', () => {
  const statusUrl = () => `${API}/websites/${bob.websiteId}/settings/general.site.status`;

  it('MAINTENANCE answers every page, the sitemap and unknown paths with 503, Retry-After and a maintenance page; LIVE serves again', async () => {
    expectStatus(await patch(statusUrl(), { value: 'MAINTENANCE' }, bob), 200);
    await eventually('/', (_b, s) => s === 503, {}, bobHost);
    for (const path of ['/', '/bobs-secret', '/sitemap.xml', '/nope']) {
      const res = await site(path, {}, bobHost);
      expect(res.statusCode, path).toBe(503);
      expect(res.headers['retry-after'], path).toMatch(/^\d+$/);
      expect(res.body, path).toContain('down for maintenance');
      expect(res.body, path).not.toContain('Bob only');
    }
    expect((await site('/')).statusCode).toBe(200);
    expectStatus(await patch(statusUrl(), { value: 'LIVE' }, bob), 200);
    await eventually('/bobs-secret', (_b, s) => s === 200, {}, bobHost);
  });

  it('PASSWORD_PROTECTED (no site password exists yet) answers like MAINTENANCE: nothing of the site is shown', async () => {
    expectStatus(await patch(statusUrl(), { value: 'PASSWORD_PROTECTED' }, bob), 200);
    const res = await eventually('/bobs-secret', (_b, s) => s === 503, {}, bobHost);
    expect(res.body).not.toContain('Bob only');
    expectStatus(await patch(statusUrl(), { value: 'LIVE' }, bob), 200);
  });
});
