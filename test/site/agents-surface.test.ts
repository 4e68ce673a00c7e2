import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { eventually, expectCanonical, siteUnderTest, type SiteUnderTest } from './agents-support.js';

/** Issue 15, "Agent surface": robots.txt with content signals, llms.txt, the API catalogue, their switches. */
describe('site agent surface', () => {
  let t: TestApp;
  let a: SiteUnderTest;
  let b: SiteUnderTest;
  let deViewId: string;

  beforeAll(async () => {
    t = await startTestApp();
    a = await siteUnderTest(t, 'Alpha Bakery');
    b = await siteUnderTest(t, 'Beta Garage');
    await a.setting('general.site.tagline', 'Bread since 1998');
    const de = expectStatus(await a.api('POST', '/views', { display_name: 'Deutsch', locale: 'de-DE', url_prefix: 'de' }), 201);
    deViewId = de.id;
    await a.api('PATCH', `/views/${deViewId}/settings/general.site.name`, { value: 'Alpha Bäckerei' });
  });
  afterAll(() => t.close());

  it('robots.txt: one group for every crawler, the default content signals, Allow, and the sitemap by absolute URL', async () => {
    const res = await a.site('GET', '/robots.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const lines = res.body.split('\n');
    expect(lines).toContain('User-agent: *');
    expect(lines).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    expect(lines).toContain('Allow: /');
    expect(lines).toContain(`Sitemap: http://${a.host}/sitemap.xml`);
    expect(lines.indexOf('User-agent: *')).toBeLessThan(lines.indexOf('Content-Signal: search=yes, ai-input=yes, ai-train=no'));
  });

  it('robots.txt follows the website settings: content signals, disallowed paths, indexing switched off', async () => {
    await b.setting('seo.content_signals.ai_train', true);
    await b.setting('seo.content_signals.search', false);
    await b.setting('seo.robots.disallow_paths', ['/private', '/cart']);
    await eventually(async () => {
      const lines = (await b.site('GET', '/robots.txt')).body.split('\n');
      expect(lines).toContain('Content-Signal: search=no, ai-input=yes, ai-train=yes');
      expect(lines).toContain('Disallow: /private');
      expect(lines).toContain('Disallow: /cart');
    });
    await b.setting('seo.robots.allow_indexing', false);
    await eventually(async () => {
      const lines = (await b.site('GET', '/robots.txt')).body.split('\n');
      expect(lines).toContain('Disallow: /');
      expect(lines).not.toContain('Allow: /');
    });
    // The other website keeps its own.
    expect((await a.site('GET', '/robots.txt')).body).toContain('ai-train=no');
  });

  it('llms.txt: H1 site name, blockquote tagline, what it is, the machine interfaces and the other views, as Markdown', async () => {
    const res = await eventually(async () => {
      const r = await a.site('GET', '/llms.txt');
      expect(r.body).toContain('> Bread since 1998');
      return r;
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    const lines = res.body.split('\n');
    expect(lines[0]).toBe('# Alpha Bakery');
    expect(lines[2]).toBe('> Bread since 1998');
    expect(res.body).toContain(`http://${a.host}/llms-full.txt`);
    expect(res.body).toContain('## Optional');
    expect(res.body).toContain(`- [Read API (OpenAPI 3.1)](http://${a.host}/api/v1/openapi.json)`);
    expect(res.body).toContain(`- [MCP server](http://${a.host}/mcp)`);
    expect(res.body).toContain(`(http://${a.host}/de/llms.txt)`);
    expect(res.body).not.toContain('Beta Garage');
  });

  it('each view has its own llms.txt under its prefix, with the name the view reads', async () => {
    const res = await eventually(async () => {
      const r = await a.site('GET', '/de/llms.txt');
      expect(r.body.split('\n')[0]).toBe('# Alpha Bäckerei');
      return r;
    });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Deutsch (de-DE)');
    expect(res.body).toContain(`(http://${a.host}/llms.txt)`);
    expect((await a.site('GET', '/xx/llms.txt')).statusCode).toBe(404);
  });

  it('llms-full.txt starts with the same header and states its bounds only when it stops early', async () => {
    const res = await a.site('GET', '/llms-full.txt');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.body.split('\n')[0]).toBe('# Alpha Bakery');
    expect(res.body).not.toContain('Beta Garage');
  });

  it('/.well-known/api-catalog (RFC 9727): a linkset with the read API\'s OpenAPI, on GET and HEAD, with its Link header', async () => {
    const res = await a.site('GET', '/.well-known/api-catalog');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"');
    expect(res.headers.link).toBe(`<http://${a.host}/.well-known/api-catalog>; rel="api-catalog"; type="application/linkset+json"`);
    const { linkset } = res.json();
    const api = linkset.find((l: any) => l.anchor === `http://${a.host}/api/v1`);
    expect(api['service-desc']).toEqual([{ href: `http://${a.host}/api/v1/openapi.json`, type: 'application/openapi+json;version=3.1' }]);
    expect(api['service-doc'][0].href).toBe(`http://${a.host}/llms.txt`);
    expect(linkset.some((l: any) => l.anchor === `http://${a.host}/mcp`)).toBe(true);
    const described = await a.site('GET', '/api/v1/openapi.json');
    expect(described.statusCode).toBe(200);
    expect(described.json().openapi).toBe('3.1.0');

    const head = await a.site('HEAD', '/.well-known/api-catalog');
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.link).toContain('rel="api-catalog"');
    expect(head.headers['content-type']).toBe(res.headers['content-type']);
  });

  it('each part switched off by its website setting answers 404, and only on that website', async () => {
    const s = await siteUnderTest(t, 'Switch Site');
    await s.setting('agents.llms_txt.enabled', false);
    await s.setting('agents.api_catalog.enabled', false);
    await s.setting('agents.api.enabled', false);
    await s.setting('agents.mcp.enabled', false);
    await eventually(async () => expect((await s.site('GET', '/llms.txt')).statusCode).toBe(404));
    expect((await s.site('GET', '/llms-full.txt')).statusCode).toBe(404);
    expectCanonical(await s.site('GET', '/.well-known/api-catalog'), 404, 'NOT_FOUND');
    expectCanonical(await s.site('GET', '/api/v1/pages'), 404, 'NOT_FOUND');
    expectCanonical(await s.site('GET', '/api/v1/openapi.json'), 404, 'NOT_FOUND');
    expectCanonical(
      await s.site('POST', '/mcp', { headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } }),
      404,
      'NOT_FOUND',
    );
    // Another website keeps everything.
    expect((await a.site('GET', '/llms.txt')).statusCode).toBe(200);
    expect((await a.site('GET', '/api/v1/pages')).statusCode).toBe(200);
    expect((await a.site('GET', '/.well-known/api-catalog')).statusCode).toBe(200);
    // llms.txt is view-overridable: off on the website, on in a view that says so.
    const fr = expectStatus(await s.api('POST', '/views', { display_name: 'Français', locale: 'fr-FR', url_prefix: 'fr' }), 201);
    expectStatus(await s.api('PATCH', `/views/${fr.id}/settings/agents.llms_txt.enabled`, { value: true }), 200);
    await eventually(async () => expect((await s.site('GET', '/fr/llms.txt')).statusCode).toBe(200));
    expect((await s.site('GET', '/llms.txt')).statusCode).toBe(404);
  });

  it('the API catalogue leaves out the parts that are off', async () => {
    const s = await siteUnderTest(t, 'Catalogue Site');
    await s.setting('agents.mcp.enabled', false);
    await eventually(async () => {
      const { linkset } = (await s.site('GET', '/.well-known/api-catalog')).json();
      expect(linkset.map((l: any) => l.anchor)).toEqual([`http://${s.host}/api/v1`]);
    });
  });

  it('hostile requests get clean 4xx: unknown hosts, traversal, writes to agent files', async () => {
    const unknown = await t.request('GET', '/llms.txt', { headers: { host: 'no-such-site.localhost' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).not.toContain('Alpha');
    for (const path of ['/%00/llms.txt', '/llms.txt%0a', '/..%5cllms.txt', `/${'a'.repeat(3000)}/llms.txt`]) {
      const res = await a.site('GET', path);
      expect(res.statusCode, path).toBeGreaterThanOrEqual(300);
      expect(res.statusCode, path).toBeLessThan(500);
    }
    const write = await a.site('POST', '/llms.txt', { headers: { 'content-type': 'application/json' }, body: {} });
    expect(write.statusCode).toBe(405);
  });
});
