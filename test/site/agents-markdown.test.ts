import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';
import { eventually, siteUnderTest, type SiteUnderTest } from './agents-support.js';

/**
 * Issue 15, "Markdown twins" and the inventory-driven llms files, on CMS pages. Needs the CMS's
 * site pages and page inventory (another part of issue 15): until they are merged, `/about` is not
 * rendered and these tests fail.
 */
describe('site Markdown twins and llms files over CMS pages', () => {
  let t: TestApp;
  let a: SiteUnderTest;
  let b: SiteUnderTest;

  beforeAll(async () => {
    t = await startTestApp();
    a = await siteUnderTest(t, 'Alpha Bakery');
    b = await siteUnderTest(t, 'Beta Garage');
    expectStatus(await a.api('POST', '/cms_pages', { title: 'About us', url_key: 'about', content: '<h2>Our story</h2><p>We <strong>bake</strong>.</p>', meta_description: 'Who we are' }), 201);
    expectStatus(await a.api('POST', '/cms_pages', { title: 'Secret', url_key: 'secret', is_active: false, content: '<p>hidden words</p>' }), 201);
    expectStatus(await b.api('POST', '/cms_pages', { title: 'Beta page', url_key: 'beta-page' }), 201);
  });
  afterAll(() => t.close());

  it('{path}.md answers the page as Markdown with frontmatter, a token count and the content signals', async () => {
    const res = await eventually(async () => {
      const r = await a.site('GET', '/about.md');
      expect(r.statusCode).toBe(200);
      return r;
    });
    expect(res.headers['content-type']).toMatch(/^text\/markdown/);
    expect(res.headers.vary).toContain('Accept');
    expect(Number(res.headers['x-markdown-tokens'])).toBeGreaterThan(0);
    expect(res.headers['content-signal']).toBe('search=yes, ai-input=yes, ai-train=no');
    expect(res.body).toMatch(/^---\ntitle: "About us"\n/);
    expect(res.body).toContain(`url: "http://${a.host}/about"`);
    expect(res.body).toContain('## Our story');
    expect(res.body).toContain('We **bake**.');
  });

  it('Accept: text/markdown on the page URL answers the same twin; the HTML links it and the view\'s llms.txt', async () => {
    const md = await a.site('GET', '/about', { headers: { accept: 'text/markdown' } });
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.headers['content-signal']).toBe('search=yes, ai-input=yes, ai-train=no');
    const html = await a.site('GET', '/about', { headers: { accept: 'text/html' } });
    expect(html.headers['content-type']).toMatch(/^text\/html/);
    expect(html.headers.vary).toContain('Accept');
    expect(html.headers.link).toContain(`<http://${a.host}/about.md>; rel="alternate"; type="text/markdown"`);
    expect(html.headers.link).toContain(`<http://${a.host}/llms.txt>; rel="describedby"; type="text/markdown"`);
    expect(html.headers.link).toContain(`<http://${a.host}/.well-known/api-catalog>; rel="api-catalog"`);
  });

  it('the content-signal header follows the settings', async () => {
    await a.setting('seo.content_signals.ai_input', false);
    await eventually(async () => expect((await a.site('GET', '/about.md')).headers['content-signal']).toBe('search=yes, ai-input=no, ai-train=no'));
    await a.setting('seo.content_signals.ai_input', true);
  });

  it('llms.txt lists the published pages by their twins; llms-full.txt inlines them; nothing inactive or of another website', async () => {
    const llms = await eventually(async () => {
      const r = await a.site('GET', '/llms.txt');
      expect(r.body).toContain('## Pages');
      return r;
    });
    expect(llms.body).toContain(`- [About us](http://${a.host}/about.md): Who we are`);
    expect(llms.body).not.toContain('Secret');
    expect(llms.body).not.toContain('Beta page');
    const full = await a.site('GET', '/llms-full.txt');
    expect(full.body).toContain('We **bake**.');
    expect(full.body).toContain(`Source: http://${a.host}/about`);
    expect(full.body).not.toContain('hidden words');
  });

  it('twins switched off: {path}.md is 404, Accept: text/markdown gets HTML, the HTML no longer links a twin', async () => {
    await b.setting('agents.markdown.enabled', false);
    await eventually(async () => expect((await b.site('GET', '/beta-page.md')).statusCode).toBe(404));
    const negotiated = await b.site('GET', '/beta-page', { headers: { accept: 'text/markdown' } });
    expect(negotiated.headers['content-type']).toMatch(/^text\/html/);
    expect(String(negotiated.headers.link ?? '')).not.toContain('text/markdown"; rel');
    expect(String(negotiated.headers.link ?? '')).not.toContain('.md>');
    // The other website keeps its twins.
    expect((await a.site('GET', '/about.md')).statusCode).toBe(200);
  });

  it('inactive pages and other websites\' pages have no twin', async () => {
    expect((await a.site('GET', '/secret.md')).statusCode).toBe(404);
    expect((await a.site('GET', '/beta-page.md')).statusCode).toBe(404);
  });
});
