/**
 * Script in page and block content is stripped on write (issue 6, bad input): a list of known XSS
 * vectors (OWASP filter-evasion cheat sheet, html5sec.org, mXSS classics) goes through Create,
 * Update and view overlays of pages and blocks; what is stored never contains anything that runs
 * script, while ordinary rich text survives unchanged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectInvalid, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let viewId: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  viewId = (await list(t, alice.token, `${API}/websites/${alice.websiteId}/views`)).views[0].id;
});
afterAll(() => t?.close());

const XSS_VECTORS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://xss.example/xss.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</scr</script>ipt>',
  '<img src=x onerror=alert(1)>',
  '<IMG SRC="javascript:alert(\'XSS\');">',
  '<IMG SRC=JaVaScRiPt:alert(1)>',
  '<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;&#97;&#108;&#101;&#114;&#116;&#40;&#39;&#88;&#83;&#83;&#39;&#41;>',
  '<IMG SRC="jav&#x09;ascript:alert(1);">',
  '<IMG SRC=" &#14;  javascript:alert(1);">',
  '<a href="javascript:alert(1)">click</a>',
  '<a href="  JAVASCRIPT:alert(1)">click</a>',
  '<a href="vbscript:msgbox(1)">click</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">click</a>',
  '<svg onload=alert(1)>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<body onload=alert(1)>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<iframe src="https://evil.example/phish"></iframe>',
  '<object data="javascript:alert(1)"></object>',
  '<embed src="javascript:alert(1)">',
  '<form action="javascript:alert(1)"><input type=submit></form>',
  '<button formaction="javascript:alert(1)">x</button>',
  '<details open ontoggle=alert(1)>',
  '<div style="background-image: url(javascript:alert(1))">x</div>',
  '<div style="width: expression(alert(1))">x</div>',
  '<style>@import "https://evil.example/x.css";</style>',
  '<link rel=stylesheet href="https://evil.example/x.css">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<base href="https://evil.example/">',
  '<video><source onerror="alert(1)"></video>',
  '<input autofocus onfocus=alert(1)>',
  '<marquee onstart=alert(1)>x</marquee>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<!--<img src="--><img src=x onerror=alert(1)//">',
  '<a href="#" onclick="alert(1)">x</a>',
  '<p onmouseover="alert(1)">hover</p>',
  '<img src="x` `<script>alert(1)</script>"` `>',
  '<xss onafterscriptexecute=alert(1)><script>1</script>',
  '<template><script>alert(1)</script></template>',
  '"><script>alert(1)</script>',
  '<img srcset="javascript:alert(1) 1x">',
  '<a href="//evil.example/">x</a>',
];

/** Whether sanitised HTML could still run script when rendered. */
function runsScript(html: string): string | undefined {
  const checks: Array<[RegExp, string]> = [
    [/<\s*script/i, 'script element'],
    [/<\s*(iframe|object|embed|form|input|button|base|meta|link|style|svg|math|body|template|noscript)\b/i, 'dangerous element'],
    [/\son[a-z]+\s*=/i, 'event handler attribute'],
    [/(javascript|vbscript|data)\s*:/i, 'script URL'],
    [/expression\s*\(/i, 'CSS expression'],
    [/url\s*\(/i, 'CSS url()'],
    [/srcdoc/i, 'srcdoc'],
    [/href="\/\//i, 'protocol-relative link'],
  ];
  for (const [pattern, what] of checks) if (pattern.test(html)) return what;
  return undefined;
}

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
