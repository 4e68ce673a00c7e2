/**
 * A method a path does not support answers 405 with `Allow` (RUNTIME; issue 23 defect 10): on the
 * API surfaces the canonical error with status UNIMPLEMENTED, derived over every path of the three
 * OpenAPI documents; on a rendered site (Host `{code}.localhost`) the site's own error shape — the
 * canonical JSON error where a JSON route lives (`/_site/event`, the read API, `/mcp`), the site's
 * HTML error page elsewhere — never Fastify's default answer, and with the Allow of what the site
 * serves there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let host: string;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: 'http://localhost:8080', PLATFORM_DOMAIN: 'localhost' });
  alice = await t.signUpProvisioned();
  const website = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
  host = new URL(website.website_url).host;
}, 60_000);
afterAll(() => t?.close());

const allowOf = (res: { headers: Record<string, unknown> }) => String(res.headers.allow ?? '').split(/,\s*/).filter(Boolean).sort();

describe('405 Method Not Allowed', () => {
  it('every path of the three API surfaces answers an unsupported method with 405 UNIMPLEMENTED and the Allow of its documented methods', async () => {
    const wrong: string[] = [];
    let checked = 0;
    for (const surface of ['tenant', 'site', 'engine']) {
      const doc = expectStatus(await t.request('GET', `/${surface}-api/v1/openapi.json`), 200);
      for (const [template, item] of Object.entries<any>(doc.paths)) {
        const documented = Object.keys(item).filter((k) => ['get', 'post', 'patch', 'delete', 'put'].includes(k)).map((m) => m.toUpperCase());
        const expected = [...new Set([...documented, ...(documented.includes('GET') ? ['HEAD'] : [])])].sort();
        const url = template.replace(/\{[a-z_]+\}/g, 'zzzzzzzzzznotthere00');
        // PATCH/DELETE on `{name}:{verb}` reach the item's Update/Delete (the id route takes `x:verb`), which answer 401/404.
        const verb = /:[a-z_]+$/.test(template);
        for (const method of ['PUT', 'TRACE', 'PROPFIND', ...(verb ? [] : ['PATCH', 'DELETE'])].filter((m) => !documented.includes(m))) {
          const res = await t.app.inject({ method: method as never, url });
          checked++;
          const body = res.headers['content-type']?.toString().startsWith('application/json') ? res.json() : undefined;
          if (res.statusCode !== 405 || body?.error?.status !== 'UNIMPLEMENTED' || JSON.stringify(allowOf(res)) !== JSON.stringify(expected)) {
            wrong.push(`${method} ${template} → ${res.statusCode} allow=${res.headers.allow} ${res.body.slice(0, 100)} (expected Allow ${expected.join(', ')})`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(300);
  }, 120_000);

  const site = (method: string, url: string) => t.app.inject({ method: method as never, url, headers: { host } });

  it("PUT /_site/event on a rendered site answers the site's canonical 405 (JSON, UNIMPLEMENTED) with Allow naming POST", async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE', 'TRACE', 'PROPFIND']) {
      const res = await site(method, '/_site/event');
      expect(res.statusCode, method).toBe(405);
      expect(res.headers['content-type'], method).toMatch(/^application\/json/);
      expect(res.json().error, method).toMatchObject({ code: 405, status: 'UNIMPLEMENTED' });
      expect(allowOf(res), method).toContain('POST');
    }
  });

  it('the JSON routes of a site (read API, /mcp) answer 405 in the canonical JSON with their own Allow', async () => {
    const search = await site('PROPFIND', '/api/v1/search');
    expect(search.statusCode).toBe(405);
    expect(search.json().error.status).toBe('UNIMPLEMENTED');
    expect(allowOf(search)).toEqual(['GET', 'HEAD']);
    for (const method of ['PUT', 'TRACE', 'PROPFIND']) {
      const mcp = await site(method, '/mcp');
      expect(mcp.statusCode, method).toBe(405);
      expect(mcp.json().error.status, method).toBe('UNIMPLEMENTED');
      expect(allowOf(mcp), method).toEqual(['POST']);
    }
  });

  it("a site's pages answer any other method with the site's HTML 405 page and Allow: GET, HEAD", async () => {
    for (const [method, url] of [
      ['PUT', '/'],
      ['POST', '/'],
      ['DELETE', '/sitemap.xml'],
      ['PATCH', '/some/page'],
      ['TRACE', '/'],
      ['PROPFIND', '/'],
    ]) {
      const res = await site(method, url);
      expect(res.statusCode, `${method} ${url}`).toBe(405);
      expect(res.headers['content-type'], `${method} ${url}`).toMatch(/^text\/html/);
      expect(res.body, `${method} ${url}`).toContain('405');
      expect(allowOf(res), `${method} ${url}`).toEqual(['GET', 'HEAD']);
      expect(res.headers['x-request-id'], `${method} ${url}`).toBeDefined();
    }
  });
});
