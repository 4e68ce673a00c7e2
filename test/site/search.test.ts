import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { eventually, expectCanonical, siteUnderTest, type SiteUnderTest } from './agents-support.js';

/** Issue 16, "Search": ranked search on the site's own host (HTML page, read API, MCP tool). */
describe('site search', () => {
  let t: TestApp;
  let a: SiteUnderTest;
  let b: SiteUnderTest;
  let deViewId: string;
  let pg: boolean;

  const api = (q: string, extra = '', site = a) => site.site('GET', `/api/v1/search?q=${encodeURIComponent(q)}${extra}`);
  const paths = async (q: string, extra = '', site = a) => expectStatus(await api(q, extra, site), 200).results.map((r: any) => r.path);
  const mcp = (site: SiteUnderTest, method: string, params: unknown) =>
    site.site('POST', '/mcp', { headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method, params } });
  /** Waits until the background indexer has nothing left for the website. */
  const drained = (site = a) =>
    eventually(async () => {
      const index = expectStatus(await site.api('GET', '/search_index'), 200);
      expect(index.pending_count).toBe(0);
      return index;
    }, 15_000);

  beforeAll(async () => {
    t = await startTestApp();
    pg = t.platform.deps.database.dialect.name === 'postgres';
    a = await siteUnderTest(t, 'Alpha Bakery');
    b = await siteUnderTest(t, 'Beta Garage');
    deViewId = expectStatus(await a.api('POST', '/views', { display_name: 'Deutsch', locale: 'de-DE', url_prefix: 'de' }), 201).id;
    const page = (body: Record<string, unknown>, site = a) => site.api('POST', '/cms_pages', body).then((r) => expectStatus(r, 201));
    await page({ title: 'Sourdough basics', url_key: 'sourdough', content: '<p>How we bake our <strong>bread</strong> every morning.</p>' });
    await page({ title: 'Opening hours', url_key: 'hours', content: '<p>Our sourdough sells out by noon &amp; so do the rolls.</p>' });
    await page({ title: 'Hidden sourdough', url_key: 'hidden', content: '<p>sourdough</p>', is_active: false });
    await page({ title: 'Nur Deutsch', url_key: 'nur-deutsch', content: '<p>Die Häuser der Bäckerei</p>', visible_view_ids: [deViewId] });
    await page({ title: 'Rye loaf', url_key: 'rye', content: '<p>Dark rye.</p><div data-block="notice"></div>' });
    expectStatus(await a.api('POST', '/cms_blocks', { identifier: 'notice', title: 'Notice', content: '<p>Closed on holidays: marzipan week.</p>' }), 201);
    await page({ title: 'Beta sourdough', url_key: 'beta', content: '<p>sourdough</p>' }, b);
    const post = (body: Record<string, unknown>) => a.api('POST', '/blog_posts', body).then((r) => expectStatus(r, 201));
    await post({ title: 'Sourdough news', url_key: 'news', state: 'PUBLISHED', content: '<p>A new starter.</p>' });
    await post({ title: 'Sourdough draft', url_key: 'draft', content: '<p>not yet</p>' });
    await post({ title: 'Sourdough scheduled', url_key: 'later', state: 'SCHEDULED', publish_time: '2099-01-01T00:00:00Z', content: '<p>later</p>' });
    await drained();
    await drained(b);
  }, 60_000);
  afterAll(() => t?.close());

  it('a published page and post are found in their view, ranked (title match above body match), with highlighted snippets', async () => {
    const res = expectStatus(await api('sourdough'), 200);
    const found = res.results.map((r: any) => r.path);
    expect(found).toEqual(expect.arrayContaining(['/sourdough', '/hours', '/blog/news']));
    // Title matches first: the body-only match ranks last.
    expect(found[found.length - 1]).toBe('/hours');
    const hours = res.results.find((r: any) => r.path === '/hours');
    expect(hours.snippet_html).toContain('<mark>sourdough</mark>');
    expect(hours.snippet_html).toContain('&amp;');
    expect(hours.url).toBe(`http://${a.host}/hours`);
    expect(hours).toMatchObject({ kind: 'page', view_id: expect.any(String), title: 'Opening hours' });
    const news = res.results.find((r: any) => r.path === '/blog/news');
    expect(news).toMatchObject({ kind: 'post', title_html: '<mark>Sourdough</mark> news' });
  });

  it('never finds an inactive page, a draft or scheduled post, a page invisible in the view, or another website\'s content', async () => {
    const found = await paths('sourdough');
    for (const hidden of ['/hidden', '/blog/draft', '/blog/later', '/beta']) expect(found).not.toContain(hidden);
    expect(await paths('Häuser')).toEqual([]);
    expect(await paths('Häuser', `&view=${deViewId}`)).toEqual(['/de/nur-deutsch']);
    expect(await paths('sourdough', '', b)).toEqual(['/beta']);
  });

  it('an unpublish removes the document at once, before the background indexer runs', async () => {
    await t.stopWorker();
    try {
      const list = (await a.api('GET', '/blog_posts?filter=url_key%3D%22news%22')).json().blog_posts;
      expectStatus(await a.api('POST', `/blog_posts/${list[0].id}:unpublish`, {}), 200);
      expect(await paths('sourdough')).not.toContain('/blog/news');
      const pages = (await a.api('GET', '/cms_pages?filter=url_key%3D%22sourdough%22')).json().cms_pages;
      expectStatus(await a.api('PATCH', `/cms_pages/${pages[0].id}?update_mask=is_active`, { is_active: false }), 200);
      expect(await paths('sourdough')).not.toContain('/sourdough');
      expect(expectStatus(await a.api('GET', '/search_index'), 200).pending_count).toBeGreaterThan(0);
    } finally {
      t.startWorker();
    }
    await drained();
    expect(await paths('sourdough')).not.toContain('/sourdough');
  });

  it('an edit becomes findable once the background indexer has run', async () => {
    const pages = (await a.api('GET', '/cms_pages?filter=url_key%3D%22hours%22')).json().cms_pages;
    expectStatus(await a.api('PATCH', `/cms_pages/${pages[0].id}?update_mask=content`, { content: '<p>Now also croissants.</p>' }), 200);
    await eventually(async () => expect(await paths('croissants')).toEqual(['/hours']), 15_000);
    expect(await paths('noon')).toEqual([]);
  });

  it("a block's text is found on the pages embedding it, and a change of the block re-indexes them", async () => {
    expect(await paths('marzipan')).toEqual(['/rye']);
    const block = (await a.api('GET', '/cms_blocks?filter=identifier%3D%22notice%22')).json().cms_blocks[0];
    await t.stopWorker();
    try {
      expectStatus(await a.api('PATCH', `/cms_blocks/${block.id}?update_mask=is_active`, { is_active: false }), 200);
      // Gone at once with the block: the page's document went in the block's transaction.
      expect(await paths('marzipan')).toEqual([]);
    } finally {
      t.startWorker();
    }
    await drained();
    expect(await paths('marzipan')).toEqual([]);
    expect(await paths('rye')).toEqual(['/rye']);
  });

  it('a scheduled post is found once it goes live at its publish_time, not before', async () => {
    const at = new Date(Date.now() + 3_000).toISOString();
    expectStatus(await a.api('POST', '/blog_posts', { title: 'Pumpernickel launch', url_key: 'pumpernickel', state: 'SCHEDULED', publish_time: at, content: '<p>soon</p>' }), 201);
    await drained();
    expect(await paths('pumpernickel')).toEqual([]);
    await eventually(async () => expect(await paths('pumpernickel')).toEqual(['/blog/pumpernickel']), 15_000);
  });

  it('a German view is searched in German: PostgreSQL stems (Haus finds Häuser), SQLite folds diacritics (Hauser finds Häuser)', async () => {
    const view = `&view=${deViewId}`;
    expect(await paths('Häuser', view)).toEqual(['/de/nur-deutsch']);
    if (pg) {
      expect(await paths('Haus', view)).toEqual(['/de/nur-deutsch']);
      expect(await paths('Bäckereien', view)).toEqual(['/de/nur-deutsch']);
    } else {
      expect(await paths('Hauser', view)).toEqual(['/de/nur-deutsch']);
      expect(await paths('Haus', view)).toEqual([]);
    }
  });

  const NASTY = ['"', '""', "'", '*', 'sour*', 'NEAR(a b)', 'a NEAR b', '-bread', 'title:bread', '(bread', 'bread)', '^bread', 'a OR', 'AND', 'NOT', '{title}: x', 'x AND (', '\\', '%', '_', '<script>alert(1)</script>', 'ü'.repeat(150), 'a'.repeat(10_000), 'bread\u0001', '\u0000'];

  it('FTS syntax characters never answer 5xx (HTML page, read API, MCP tool)', async () => {
    for (const q of NASTY) {
      const html = await a.site('GET', `/search?q=${encodeURIComponent(q)}`);
      expect([200, 400], `HTML ${JSON.stringify(q.slice(0, 20))}`).toContain(html.statusCode);
      if (html.statusCode === 200) expect(html.body).not.toContain('<script>alert(1)</script>');
      const json = await api(q);
      expect([200, 400], `JSON ${JSON.stringify(q.slice(0, 20))}`).toContain(json.statusCode);
      const tool = await mcp(a, 'tools/call', { name: 'search', arguments: { q } });
      expect([200, 400], `MCP ${JSON.stringify(q.slice(0, 20))}`).toContain(tool.statusCode);
    }
    expectStatus(await api('"sourdough'), 200);
    expect(await paths('sour*')).toEqual([]);
  });

  it('refuses bad input on the read API naming the field; the HTML page answers politely', async () => {
    expectCanonical(await a.site('GET', '/api/v1/search'), 400, 'INVALID_ARGUMENT', 'q');
    expectCanonical(await api('   '), 400, 'INVALID_ARGUMENT', 'q');
    expectCanonical(await api('x'.repeat(201)), 400, 'INVALID_ARGUMENT', 'q');
    expectCanonical(await api('bread', '&page_size=-1'), 400, 'INVALID_ARGUMENT', 'page_size');
    expectCanonical(await api('bread', '&page_size=abc'), 400, 'INVALID_ARGUMENT', 'page_size');
    expectCanonical(await api('bread', '&page_token=forged'), 400, 'INVALID_ARGUMENT', 'page_token');
    expectCanonical(await api('bread', '&view=nope'), 400, 'INVALID_ARGUMENT', 'view');
    const blank = await a.site('GET', '/search?q=%20%20');
    expect(blank.statusCode).toBe(200);
    expect(blank.body).not.toContain('class="search-hits');
    const long = await a.site('GET', `/search?q=${'x'.repeat(201)}`);
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('at most 200 characters');
  });

  it('the HTML results page: title links, highlighted snippets, noindex, a labelled form, pages by ?page=N', async () => {
    const res = await a.site('GET', '/search?q=rye');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toContain('private');
    expect(res.body).toContain('<meta name="robots" content="noindex, follow">');
    expect(res.body).toMatch(/<label for="search-q">/);
    expect(res.body).toContain('value="rye"');
    expect(res.body).toContain('<a href="/rye"><mark>Rye</mark> loaf</a>');
    expect(res.body, res.body.slice(res.body.indexOf('search-hits'))).toContain('Dark <mark>rye</mark>');
    // Every page's header carries the search form of its view.
    const de = await a.site('GET', '/de');
    expect(de.body).toContain('action="/de/search"');
    for (let i = 0; i < 12; i++) expectStatus(await a.api('POST', '/blog_posts', { title: `Crumb ${i}`, url_key: `crumb-${i}`, state: 'PUBLISHED', content: '<p>crumb</p>' }), 201);
    await drained();
    const first = await a.site('GET', '/search?q=crumb');
    expect((first.body.match(/<li><h2>/g) ?? []).length).toBe(10);
    expect(first.body).toContain('href="/search?q=crumb&amp;page=2"');
    const second = await a.site('GET', '/search?q=crumb&page=2');
    expect((second.body.match(/<li><h2>/g) ?? []).length).toBe(2);
    expect(second.body).toContain('rel="prev"');
    // The JSON surface pages with signed tokens bound to q and view.
    const one = expectStatus(await api('crumb', '&page_size=5'), 200);
    expect(one.results).toHaveLength(5);
    const two = expectStatus(await api('crumb', `&page_size=5&page_token=${encodeURIComponent(one.next_page_token)}`), 200);
    expect(two.results).toHaveLength(5);
    expect(two.results.map((r: any) => r.path)).not.toEqual(expect.arrayContaining([one.results[0].path]));
    expectCanonical(await api('other', `&page_token=${encodeURIComponent(one.next_page_token)}`), 400, 'INVALID_ARGUMENT', 'page_token');
  });

  it('the MCP search tool answers the same hits', async () => {
    const listed = expectStatus(await mcp(a, 'tools/list', {}), 200);
    expect(listed.result.tools.map((tool: any) => tool.name)).toContain('search');
    const called = expectStatus(await mcp(a, 'tools/call', { name: 'search', arguments: { q: 'marzipan OR rye' } }), 200);
    const answer = JSON.parse(called.result.content[0].text);
    expect(answer.results.map((r: any) => r.path)).toEqual(pg ? ['/rye'] : []);
    const empty = expectStatus(await mcp(a, 'tools/call', { name: 'search', arguments: { q: ' ' } }), 200);
    expect(empty.result.isError).toBe(true);
    expect(empty.result.content[0].text).toContain('INVALID_ARGUMENT');
  });

  it('escapes first, then marks: a title or text with markup comes back whole and escaped, highlights intact (HTML page, read API, MCP tool)', async () => {
    await a.api('POST', '/cms_pages', { title: '<img src=x onerror=alert(1)> Tom & Jerry', url_key: 'cartoon', content: '<p>Notes: &lt;b&gt;Tom&lt;/b&gt; chases Jerry &amp; friends.</p>' }).then((r) => expectStatus(r, 201));
    await drained();
    const title = '&lt;img src=x onerror=alert(1)&gt; <mark>Tom</mark> &amp; Jerry';
    // An excerpt (each dialect picks its own fragment), escaped and marked.
    const snippet = 'Notes: &lt;b&gt;<mark>Tom</mark>&lt;/b&gt; chases Jerry &amp; friends';
    const json = await api('Tom');
    const hit = expectStatus(json, 200).results.find((r: any) => r.path === '/cartoon');
    expect(hit).toMatchObject({ title: '<img src=x onerror=alert(1)> Tom & Jerry', title_html: title });
    expect(hit.snippet_html, hit.snippet_html).toContain(snippet);
    expect(hit.title_html + hit.snippet_html).not.toMatch(/<(?!\/?mark>)/);
    const tool = expectStatus(await mcp(a, 'tools/call', { name: 'search', arguments: { q: 'Tom' } }), 200);
    const answer = JSON.parse(tool.result.content[0].text);
    const toolHit = answer.results.find((r: any) => r.path === '/cartoon');
    expect(toolHit.title_html).toBe(title);
    expect(toolHit.snippet_html).toContain(snippet);
    expect(toolHit.title_html + toolHit.snippet_html).not.toMatch(/<(?!\/?mark>)/);
    const html = await a.site('GET', '/search?q=Tom');
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain(`<a href="/cartoon">${title}</a>`);
    expect(html.body).toContain(snippet);
    expect(html.body).not.toContain('<img src=x');
    expect(html.body).not.toContain('<b>Tom');
  });

  it('search switched off (search.enabled false): the page and endpoint answer 404, the MCP tool is absent', async () => {
    await b.setting('search.enabled', false);
    await eventually(async () => expect((await b.site('GET', '/search?q=sourdough')).statusCode).toBe(404));
    expectCanonical(await api('sourdough', '', b), 404, 'NOT_FOUND');
    const listed = expectStatus(await mcp(b, 'tools/list', {}), 200);
    expect(listed.result.tools.map((tool: any) => tool.name)).not.toContain('search');
    expect((await b.site('GET', '/')).body).not.toContain('role="search"');
    expect((await a.site('GET', '/')).body).toContain('role="search"');
  });
});
