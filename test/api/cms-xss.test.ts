/**
 * Script in page and block content is stripped on write (issue 6, bad input): a list of known XSS
 * vectors (OWASP filter-evasion cheat sheet, html5sec.org, mXSS classics) goes through Create,
 * Update and view overlays of pages and blocks; what is stored never contains anything that runs
 * script, while ordinary rich text survives unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectInvalid, expectStatus, list } from '../support/fixtures.js';
import { runsScript, XSS_VECTORS } from '../support/xss.js';

let t: TestApp;
let alice: TestUser;
let viewId: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  viewId = (await list(t, alice.token, `${API}/websites/${alice.websiteId}/views`)).views[0].id;
});
afterAll(() => t?.close());

const pagesUrl = () => `${API}/websites/${alice.websiteId}/cms_pages`;
const blocksUrl = () => `${API}/websites/${alice.websiteId}/cms_blocks`;

describe('script in page and block content is stripped', () => {
  it('every known XSS vector is neutralised in page content on Create', async () => {
    for (const [i, vector] of XSS_VECTORS.entries()) {
      const page = expectStatus(await t.request('POST', pagesUrl(), { token: alice.token, body: { title: `X${i}`, url_key: `xss-${i}`, content: vector } }), 201);
      expect({ vector, stored: page.content, problem: runsScript(page.content ?? '') }).toEqual({ vector, stored: page.content, problem: undefined });
      // What Get answers is what was stored, not a re-sanitised copy.
      const read = expectStatus(await t.request('GET', `${API}/${page.name}`, { token: alice.token }), 200);
      expect(read.content).toBe(page.content);
    }
  });

  it('every known XSS vector is neutralised in block content on Create and Update', async () => {
    for (const [i, vector] of XSS_VECTORS.entries()) {
      const block = expectStatus(await t.request('POST', blocksUrl(), { token: alice.token, body: { title: `B${i}`, identifier: `xss-${i}`, content: 'ok' } }), 201);
      const updated = expectStatus(await t.request('PATCH', `${API}/${block.name}`, { token: alice.token, body: { content: vector } }), 200);
      expect({ vector, problem: runsScript(updated.content ?? '') }).toEqual({ vector, problem: undefined });
    }
  });

  it('a NUL hidden in a URL scheme (jav\\0ascript:) never reaches the sanitiser: 400 naming content (no database stores NUL)', async () => {
    expectInvalid(await t.request('POST', pagesUrl(), { token: alice.token, body: { title: 'Nul', url_key: 'xss-nul', content: '<a href="jav\u0000ascript:alert(1)">x</a>' } }), 'content');
  });

  it('view overlays of pages and blocks are sanitised too', async () => {
    const page = expectStatus(await t.request('POST', pagesUrl(), { token: alice.token, body: { title: 'Overlay XSS', url_key: 'overlay-xss' } }), 201);
    const block = expectStatus(await t.request('POST', blocksUrl(), { token: alice.token, body: { title: 'Overlay XSS', identifier: 'overlay-xss' } }), 201);
    for (const vector of XSS_VECTORS) {
      const pvRes = await t.request('PATCH', `${API}/${page.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { content: vector } });
      expect([200, 201]).toContain(pvRes.statusCode);
      const pv = pvRes.json();
      expect(runsScript(pv.content ?? '')).toBeUndefined();
      const bv = await t.request('PATCH', `${API}/${block.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { content: vector } });
      expect([200, 201]).toContain(bv.statusCode);
      expect(runsScript(bv.json().content ?? '')).toBeUndefined();
    }
  });

  it('ordinary rich text survives: headings, lists, links, images, tables, safe styles, video embeds', async () => {
    const html =
      '<h2 id="intro" class="lead">Intro</h2><p style="text-align:center">Hi <em>there</em> <a href="https://example.com/x" title="X">link</a> ' +
      '<a href="/contact">contact</a> <a href="mailto:a@example.com">mail</a></p><ul><li>One</li><li>Two</li></ul>' +
      '<img src="https://cdn.example.com/a.png" alt="A" width="100" height="50" />' +
      '<table><thead><tr><th scope="col">H</th></tr></thead><tbody><tr><td colspan="2">D</td></tr></tbody></table>' +
      '<iframe src="https://www.youtube.com/embed/abc" width="560" height="315" allowfullscreen></iframe>';
    const page = expectStatus(await t.request('POST', pagesUrl(), { token: alice.token, body: { title: 'Rich', url_key: 'rich', content: html } }), 201);
    expect(page.content).toBe(html);
  });

  it('a link opening a new tab gets rel="noopener noreferrer"', async () => {
    const page = expectStatus(
      await t.request('POST', pagesUrl(), { token: alice.token, body: { title: 'Tab', url_key: 'tab', content: '<a href="https://example.com" target="_blank">x</a>' } }),
      201,
    );
    expect(page.content).toBe('<a href="https://example.com" target="_blank" rel="noopener noreferrer">x</a>');
  });
});
