/**
 * Issue 15, "Bad input and safety", audited from outside: every site route probed with hostile
 * input (garbage and repeated query parameters, odd cookies and headers, HEAD, form fields as
 * arrays and oversized, JSON-RPC garbage), and content that must not show reached by path tricks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { Browser, csrfOf } from '../support/site-browser.js';
import { eventually, siteUnderTest, type SiteUnderTest } from './agents-support.js';

let t: TestApp;
let a: SiteUnderTest;
let b: SiteUnderTest;

const ROUTES = [
  '/', '/home', '/home.md', '/audit-page', '/blog', '/blog/rss.xml', '/blog/atom.xml', '/blog/feed.json', '/blog/category/x', '/blog/tag/x',
  '/blog/author/x', '/blog/no-post', '/sitemap.xml', '/robots.txt', '/llms.txt', '/llms-full.txt', '/.well-known/api-catalog', '/api/v1/views',
  '/api/v1/pages', '/api/v1/pages/home', '/api/v1/posts', '/api/v1/posts/x', '/api/v1/navigation/main', '/api/v1/openapi.json', '/mcp', '/account',
  '/account/sign-up', '/account/sign-in', '/account/sign-out', '/account/password', '/account/password-reset', '/account/password-reset/confirm',
  '/_site/insights.js', '/_site/event',
];
const GARBAGE_QUERIES = [
  '?page=1&page=2&view=a&view=b&page_size=1&page_size=2&page_token=x&page_token=y&token=a&token=b',
  '?page[]=1&view[x]=y&page_size[]=1&page_token[a]=b&token[]=t&welcome[]=1&saved[]=profile&reset[]=1',
  '?saved=constructor&view=__proto__&page=__proto__&welcome=1',
  '?saved=__proto__&view=constructor&page=toString',
  '?page=%ZZ&view=%00&token=%E0%A4%A',
  `?page=${'9'.repeat(400)}&page_size=-1e400&view=${'v'.repeat(5000)}`,
];

beforeAll(async () => {
  t = await startTestApp();
  a = await siteUnderTest(t, 'Audit Site A');
  b = await siteUnderTest(t, 'Audit Site B');
  expectStatus(await a.api('POST', '/cms_pages', { title: 'Audit page', url_key: 'audit-page', content: '<p>Audit body</p>' }), 201);
});
afterAll(() => t?.close());

describe('hostile input on every site route is a clean answer, never a 5xx', () => {
  it('GET and HEAD with garbage and repeated query parameters, anonymous and signed in', async () => {
    const visitor = new Browser(t, a.host);
    expect((await visitor.signUp({ email: `audit-${Date.now()}@example.org`, password: 'audit-pass-1' })).statusCode).toBeLessThan(400);
    expect(visitor.session).toBeTruthy();
    for (const route of ROUTES) {
      for (const query of GARBAGE_QUERIES) {
        for (const method of ['GET', 'HEAD']) {
          const anon = await a.site(method, `${route}${query}`);
          expect(anon.statusCode, `${method} ${route}${query}`).toBeLessThan(500);
          const signedIn = await t.request(method, `${route}${query}`, { headers: { host: a.host, cookie: `customer_session=${encodeURIComponent(visitor.session!)}` } });
          expect(signedIn.statusCode, `${method} ${route}${query} signed in`).toBeLessThan(500);
          // Nothing that is not a notice (an Object.prototype member) is ever rendered as one.
          expect(signedIn.body, `${route}${query}`).not.toMatch(/\[native code\]|\[object Object\]|function Object/);
        }
      }
    }
  });

  it('odd cookies and headers on every route: garbage, huge, encoded, repeated', async () => {
    const headerSets: Record<string, string>[] = [
      { cookie: 'customer_session=%ZZ; _csrf=%00%01; ===;;; =x' },
      { cookie: `customer_session=${'a'.repeat(4000)}` },
      { cookie: 'customer_session=a.b.c; customer_session=d; __proto__=1; constructor=2' },
      { cookie: 'customer_session=%00%00; _csrf=%ED%A0%80' },
      { accept: 'text/markdown;q=abc, */*;q=, ;;;', 'accept-language': '*;q=x,,,', 'if-none-match': 'W/"", *, "x' },
      { accept: 'text/markdown', 'if-modified-since': 'not a date', range: 'bytes=9-1' },
      { origin: 'null', referer: '::::', 'x-forwarded-proto': 'javascript', 'x-forwarded-host': 'evil.example', 'x-forwarded-for': 'garbage' },
      { 'x-long': 'x'.repeat(8000), 'content-type': 'application/json; charset=nope' },
    ];
    for (const route of ROUTES) {
      for (const headers of headerSets) {
        for (const method of ['GET', 'HEAD']) {
          const res = await a.site(method, route, { headers });
          expect(res.statusCode, `${method} ${route} ${JSON.stringify(headers).slice(0, 120)}`).toBeLessThan(500);
        }
      }
    }
  });

  it('every method with odd bodies and content types, and malformed percent-encoding, on every route', async () => {
    const bodies: { type: string; body: string }[] = [
      { type: 'application/json', body: '{"a":' },
      { type: 'application/json', body: JSON.stringify({ __proto__: { x: 1 }, constructor: { prototype: 1 }, a: ['x'.repeat(10_000)] }) },
      { type: 'application/x-www-form-urlencoded', body: 'a=%ZZ&b[]=1&b[x]=2&_csrf=%00' },
      { type: 'multipart/form-data; boundary=x', body: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--' },
      { type: 'text/xml', body: '<?xml version="1.0"?><!DOCTYPE a [<!ENTITY e SYSTEM "file:///etc/passwd">]><a>&e;</a>' },
      { type: 'garbage/(((', body: '\u0000\u0001' },
    ];
    for (const route of ROUTES) {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
        for (const { type, body } of bodies) {
          const res = await a.site(method, route, { headers: { 'content-type': type }, body });
          expect(res.statusCode, `${method} ${route} ${type}`).toBeLessThan(500);
        }
      }
      for (const suffix of ['%ZZ', '%', '%00', '%C0%AF', '%2F..%2F..%2Fetc', `/${'%41'.repeat(3000)}`]) {
        const res = await a.site('GET', `${route === '/' ? '' : route}/${suffix}`);
        expect(res.statusCode, `${route}/${suffix}`).toBeLessThan(500);
      }
    }
  });

  it('forms with fields as arrays, of odd names and oversized: a clean answer, never a 5xx', async () => {
    const visitor = new Browser(t, a.host);
    const email = `forms-${Date.now()}@example.org`;
    expect((await visitor.signUp({ email, password: 'audit-pass-1' })).statusCode).toBeLessThan(400);
    const big = 'x'.repeat(200_000);
    const bodies = [
      { email: [email, email], password: ['a', 'b'], display_name: ['x', 'y'], current_password: ['a', 'b'], new_password: ['a', 'b'], token: ['a', 'b'] },
      { email: big, password: big, display_name: big, current_password: big, new_password: big, token: big },
      { 'attributes.__proto__': '1', 'attributes.constructor': 'x', 'attributes.': 'y', '__proto__.x': '1', 'attributes.a.b.c': 'z' },
      { email: '\u0000@\u0000', password: '\u0000', display_name: '\ud800', new_password: '\ud800x1' },
    ];
    const forms = ['/account/sign-up', '/account/sign-in', '/account', '/account/password', '/account/password-reset', '/account/password-reset/confirm', '/account/sign-out'];
    for (const form of forms) {
      for (const fields of bodies) {
        const from = form === '/account/password-reset/confirm' ? '/account/password-reset' : form;
        const page = await visitor.get(from);
        const csrf = page.statusCode === 200 && page.body.includes('name="_csrf"') ? csrfOf(page.body) : 'none';
        const res = await visitor.post(form, { _csrf: [csrf, csrf], ...fields });
        expect(res.statusCode, `${form} ${Object.keys(fields).join(',')}`).toBeLessThan(500);
        const single = await visitor.post(form, { _csrf: csrf, ...fields });
        expect(single.statusCode, `${form} ${Object.keys(fields).join(',')}`).toBeLessThan(500);
        if (!visitor.session) expect((await visitor.signIn(email, 'audit-pass-1')).statusCode).toBeLessThan(400);
      }
    }
  });

  it('JSON-RPC garbage on /mcp: batches, wrong types, odd ids, unknown tools and wrong arguments', async () => {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (name: unknown, args: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const bodies: unknown[] = [
      [{ jsonrpc: '2.0' }],
      [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
      { jsonrpc: '2.0', id: {}, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 123 },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: null },
      { jsonrpc: '1.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: 42, capabilities: 'x', clientInfo: [] } },
      call('get_page', { url_key: ['a'] }),
      call('get_page', { url_key: 'x'.repeat(100_000) }),
      call('get_page', { url_key: '../../etc/passwd', view: { $ne: 1 } }),
      call('list_pages', { page_size: -1, page_token: 'garbage' }),
      call('list_pages', { page_size: 1e308, page_token: 42 }),
      call('list_posts', { view: '__proto__' }),
      call('get_post', { url_key: 'A/B' }),
      call('get_navigation', { identifier: '__proto__' }),
      call('get_navigation', { identifier: 'x'.repeat(1000) }),
      call('no_such_tool', {}),
      call(['get_page'], 'not an object'),
      call('get_page', null, '\u0000'),
      call('get_page', { url_key: 'a\u0000b', view: '\u0000' }),
      call('get_post', { url_key: '\u0000' }),
      call('get_navigation', { identifier: 'main\u0000' }),
      call('list_posts', { page_token: '\u0000', view: '\ud800' }),
    ];
    for (const body of bodies) {
      const res = await a.site('POST', '/mcp', { headers, body });
      expect(res.statusCode, JSON.stringify(body).slice(0, 200)).toBeLessThan(500);
    }
  });
});

describe('nothing that must not show is reachable (path tricks, cached renderings, deactivation), and every answer is the one its request names', () => {
  it("case, trailing slashes, doubled and encoded slashes: another website's or an inactive page never answers", async () => {
    expectStatus(await b.api('POST', '/cms_pages', { title: 'Only B', url_key: 'only-b', content: '<p>Secret of B</p>' }), 201);
    expectStatus(await a.api('POST', '/cms_pages', { title: 'Hidden', url_key: 'hidden-a', content: '<p>Hidden body</p>', is_active: false }), 201);
    const tricks = (key: string) => [`/${key}`, `/${key}/`, `/${key.toUpperCase()}`, `//${key}`, `/%2F${key}`, `/.%2F${key}`, `/x/..%2F${key}`, `/${key}%2F`, `/${key}.md`, `/${key}/.md`, `/${key}%2Emd`, `/api/v1/pages/${key}`, `/api/v1/pages/%2F${key}`];
    for (const path of [...tricks('only-b'), ...tricks('hidden-a')]) {
      for (const accept of ['text/html', 'text/markdown']) {
        const res = await a.site('GET', path, { headers: { accept } });
        // A trailing slash redirects (301) to the canonical path, which is the 404 above; nothing answers 200.
        expect(res.statusCode, path).not.toBe(200);
        expect(res.statusCode, path).toBeLessThan(500);
        expect(res.body, path).not.toMatch(/Secret of B|Hidden body/);
      }
    }
  });

  it('a page deactivated after being cached leaves every surface within the staleness bound', async () => {
    const page = expectStatus(await a.api('POST', '/cms_pages', { title: 'Soon gone', url_key: 'soon-gone', content: '<p>Soon gone body</p>' }), 201);
    const surfaces = ['/soon-gone', '/soon-gone.md', '/llms.txt', '/llms-full.txt', '/sitemap.xml', '/api/v1/pages', '/api/v1/pages/soon-gone'];
    await eventually(async () => {
      for (const path of surfaces) expect((await a.site('GET', path)).body, path).toContain('soon-gone');
    });
    expectStatus(await a.api('PATCH', `/cms_pages/${page.id}?update_mask=is_active`, { is_active: false }), 200);
    await eventually(async () => {
      for (const path of surfaces) expect((await a.site('GET', path)).body, path).not.toMatch(/\/soon-gone|Soon gone/);
    });
  });

  it('a post unpublished after being cached leaves the blog, its archives, feeds and every agent surface', async () => {
    const tag = expectStatus(await a.api('POST', '/blog_tags', { display_name: 'Fleeting' }), 201);
    const post = expectStatus(await a.api('POST', '/blog_posts', { title: 'Fleeting post', url_key: 'fleeting', content: '<p>Fleeting body</p>', state: 'PUBLISHED', tag_ids: [tag.id] }), 201);
    const surfaces = ['/blog', '/blog/fleeting', '/blog/fleeting.md', `/blog/tag/${tag.url_key}`, '/blog/rss.xml', '/blog/atom.xml', '/blog/feed.json', '/sitemap.xml', '/llms.txt', '/llms-full.txt', '/api/v1/posts', '/api/v1/posts/fleeting'];
    await eventually(async () => {
      for (const path of surfaces) expect((await a.site('GET', path)).body, path).toMatch(/blog\/fleeting|Fleeting post/);
    });
    expectStatus(await a.api('POST', `/blog_posts/${post.id}:unpublish`, {}), 200);
    await eventually(async () => {
      for (const path of surfaces) expect((await a.site('GET', path)).body, path).not.toMatch(/blog\/fleeting|Fleeting post|Fleeting body/);
    });
  });

  it('a view deactivated after its pages were cached: its prefix, twins, llms.txt, sitemap alternates, read API and MCP no longer serve it', async () => {
    const view = expectStatus(await a.api('POST', '/views', { display_name: 'Shortlived', locale: 'fr', url_prefix: 'fr' }), 201);
    expectStatus(await a.api('POST', '/cms_pages', { title: 'Page FR', url_key: 'seulement', content: '<p>Seulement fr</p>', visible_view_ids: [view.id] }), 201);
    const mcp = () =>
      a.site('POST', '/mcp', {
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_page', arguments: { url_key: 'seulement', view: view.id } } },
      });
    await eventually(async () => {
      for (const path of ['/fr/seulement', '/fr/seulement.md', '/fr/llms.txt', '/sitemap.xml', `/api/v1/pages/seulement?view=${view.id}`]) expect((await a.site('GET', path)).body, path).toContain('seulement');
      expect((await mcp()).body).toContain('Seulement fr');
    });
    expectStatus(await a.api('PATCH', `/views/${view.id}?update_mask=is_active`, { is_active: false }), 200);
    await eventually(async () => {
      for (const path of ['/fr/seulement', '/fr/seulement.md', '/fr/llms.txt', '/sitemap.xml', '/llms.txt', `/api/v1/pages/seulement?view=${view.id}`, '/api/v1/views']) {
        const res = await a.site('GET', path);
        expect(res.statusCode, path).toBeLessThan(500);
        expect(res.body, path).not.toMatch(/Seulement fr|\/fr\/seulement|Shortlived/);
      }
      expect((await mcp()).body).not.toContain('Seulement fr');
    });
  });

  it("a group's rendering cached first never reaches anonymous visitors on any surface, nor a customer removed from the group", async () => {
    const group = expectStatus(await a.api('POST', '/customer_groups', { display_name: 'Insiders', type: 'MANUAL' }), 201);
    const page = expectStatus(await a.api('POST', '/cms_pages', { title: 'Deals', url_key: 'deals', content: '<p>Public deals</p>' }), 201);
    expectStatus(await a.api('POST', `/cms_pages/${page.id}/groups`, { customer_group_ids: [group.id], content: '<p>Insider deals</p>' }), 201);
    const email = `insider-${Date.now()}@example.org`;
    const customer = expectStatus(await a.api('POST', '/customers', { email, password: 'insider-pass-1', manual_group_ids: [group.id] }), 201);
    const member = new Browser(t, a.host);
    expect((await member.signIn(email, 'insider-pass-1')).statusCode).toBe(303);
    // The member first: their renderings (HTML, twin, both by Accept) are cached before anyone else asks.
    await eventually(async () => {
      for (const [path, accept] of [['/deals', 'text/html'], ['/deals.md', '*/*'], ['/deals', 'text/markdown']]) expect((await member.get(path, { accept })).body, path).toContain('Insider deals');
    });
    for (const path of ['/deals', '/deals.md', '/llms-full.txt', '/api/v1/pages/deals', '/api/v1/pages']) {
      for (const accept of ['text/html', 'text/markdown']) {
        const res = await a.site('GET', path, { headers: { accept } });
        expect(res.body, path).not.toContain('Insider deals');
      }
    }
    const mcp = await a.site('POST', '/mcp', {
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_page', arguments: { url_key: 'deals' } } },
    });
    expect(mcp.body).toContain('Public deals');
    expect(mcp.body).not.toContain('Insider deals');
    // Removed from the group, the same signed-in customer reads the page itself.
    expectStatus(await a.api('PATCH', `/customers/${customer.id}?update_mask=manual_group_ids`, { manual_group_ids: [] }), 200);
    await eventually(async () => {
      for (const path of ['/deals', '/deals.md']) {
        const body = (await member.get(path)).body;
        expect(body, path).toContain('Public deals');
        expect(body, path).not.toContain('Insider deals');
      }
    });
    expect(member.session).toBeTruthy();
  });

  it("a rendering cached for one Host spelling (another port) never gives other visitors that origin's absolute URLs", async () => {
    // A fresh content version: nothing of it is cached yet, so the odd Host below renders first.
    expectStatus(await a.api('POST', '/cms_pages', { title: 'Origin page', url_key: 'origin-page', content: '<p>Origin body</p>' }), 201);
    expectStatus(await a.api('POST', '/blog_posts', { title: 'Origin post', url_key: 'origin-post', content: '<p>Origin post</p>', state: 'PUBLISHED' }), 201);
    const odd = `${a.host}:4444`;
    const paths = ['/origin-page', '/origin-page.md', '/blog', '/blog/origin-post', '/blog/rss.xml', '/blog/feed.json', '/sitemap.xml', '/llms.txt'];
    await eventually(async () => {
      for (const path of paths) expect((await t.request('GET', path, { headers: { host: odd } })).body, path).toContain(`http://${odd}/`);
    });
    for (const path of paths) {
      const res = await a.site('GET', path);
      expect(res.statusCode, path).toBe(200);
      expect(res.body, path).not.toContain(odd);
      expect(res.body, path).toContain(`http://${a.host}/`);
    }
  });

  it('Accept: text/markdown (as agents send it) on answers that have no twin serves them as they are: llms.txt, feeds', async () => {
    expectStatus(await a.api('POST', '/blog_posts', { title: 'Feed post', url_key: 'feed-post', content: '<p>Feed</p>', state: 'PUBLISHED' }), 201);
    for (const accept of ['text/markdown', 'text/markdown, text/html;q=0.5, */*;q=0.1']) {
      for (const [path, type] of [['/llms.txt', /^text\/markdown/], ['/llms-full.txt', /^text\/markdown/], ['/blog/rss.xml', /xml/], ['/blog/atom.xml', /xml/], ['/blog/feed.json', /json/]] as const) {
        const res = await eventually(async () => {
          const r = await a.site('GET', path, { headers: { accept } });
          expect(r.statusCode, `${path} ${accept}`).toBe(200);
          return r;
        });
        expect(String(res.headers['content-type']), path).toMatch(type);
      }
    }
    // A path named as a twin still needs one: a feed has none.
    expect((await a.site('GET', '/blog/rss.xml.md')).statusCode).toBe(404);
  });
});
