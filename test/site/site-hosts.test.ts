import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';

/** Issue 15, "Serving": which Host reaches a rendered website, and what any other Host reaches. */
describe('site hosts', () => {
  let t: TestApp;
  let alice: TestUser;
  let code: string;

  beforeAll(async () => {
    t = await startTestApp();
    alice = await t.signUpProvisioned();
    const website = await t.request('GET', `/tenant-api/v1/websites/${alice.websiteId}`, { token: alice.token });
    code = website.json().code;
  });
  afterAll(() => t.close());

  it('a platform host {code}.{PLATFORM_DOMAIN} answers with the site, never the tenant API', async () => {
    const home = await t.request('GET', '/', { headers: { host: `${code}.localhost:8080` } });
    expect(home.headers['content-type']).toMatch(/^text\/html/);
    expect(home.headers['content-security-policy']).toContain("default-src 'self'");
    const api = await t.request('GET', `/tenant-api/v1/websites/${alice.websiteId}`, { token: alice.token, headers: { host: `${code}.localhost` } });
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-type']).toMatch(/^text\/html/);
    expect(api.body).not.toContain(alice.websiteId);
  });

  it('an unknown code under the platform domain gets a plain 404 page naming no tenant', async () => {
    const res = await t.request('GET', '/', { headers: { host: 'no-such-site.localhost' } });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('No website answers at this address');
  });

  it('any other host reaches the platform surfaces as before', async () => {
    for (const host of ['127.0.0.1:8080', 'localhost:8080', 'api.example.org', '[::1]:8080', 'bad host']) {
      const res = await t.request('GET', '/healthz', { headers: { host } });
      expect(res.statusCode, host).toBe(200);
    }
  });

  it('hostile Host headers get a clean answer: a site 404 page or the platform surfaces, never a 5xx', async () => {
    const hosts = [
      `${'a'.repeat(300)}.localhost`,
      'a.b.localhost',
      '..localhost',
      '-x-.localhost',
      `${code}.localhost:99999999`,
      `${code}.localhost:abc`,
      'evil.example/../x',
      'exa mple.org',
      '%00.localhost',
      'ünïcode.localhost',
      `${code.toUpperCase()}.LOCALHOST.`,
    ];
    for (const host of hosts) {
      const res = await t.request('GET', '/', { headers: { host } });
      expect(res.statusCode, host).toBeLessThan(500);
      expect(res.body, host).not.toContain(alice.websiteId);
    }
    // Case and a trailing dot do not make another host.
    const upper = await t.request('GET', '/', { headers: { host: `${code.toUpperCase()}.LOCALHOST.` } });
    expect(upper.body).not.toContain('No website answers at this address');
  });

  it("the platform's own host never reaches a site's routes: their paths are unknown there (404, not 405)", async () => {
    for (const [method, path] of [['GET', '/sitemap.xml'], ['GET', '/robots.txt'], ['POST', '/mcp'], ['GET', '/account/sign-in'], ['GET', '/api/v1/pages'], ['GET', '/llms.txt']] as const) {
      const res = await t.request(method, path, { headers: { host: '127.0.0.1:8080' } });
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().error.status).toBe('NOT_FOUND');
    }
  });

  it('a verified custom domain answers with its website', async () => {
    await t.platform.deps.database.db.insertInto('custom_domains').values({ id: alice.websiteId, account_id: alice.accountId, domain: 'shop.example.org', status: 'CONNECTED', revision: 1, create_time: 0, update_time: 0 }).onConflict((oc) => oc.column('id').doUpdateSet({ domain: 'shop.example.org', status: 'CONNECTED' })).execute();
    const res = await t.request('GET', '/healthz', { headers: { host: 'shop.example.org' } });
    expect(res.headers['content-type']).toMatch(/^text\/html/);
  });
});
