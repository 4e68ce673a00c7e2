/**
 * The admin web app is served by the platform process on the platform host (RUNTIME "Fixed
 * surface points"): `/` and every client route answer its index.html (history fallback), hashed
 * assets are cached immutable, index.html is revalidated; the API prefixes, /healthz, /readyz and
 * unknown paths keep their JSON answers, and a website's host never reaches the admin.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAdminBuilt, adminDistDir, repositoryRoot } from '../../src/admin-app/build.js';
import { ADMIN_CLIENT_PATHS } from '../../src/admin-app/admin-app.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  await ensureAdminBuilt();
  t = await startTestApp();
  alice = await t.signUpProvisioned();
});
afterAll(async () => t?.close());

const isAdminHtml = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) =>
  res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/html') && res.body.includes('<div id="root"></div>');

describe('the admin web app on the platform host', () => {
  it('answers its HTML at / and at every client route (history fallback)', async () => {
    for (const path of ['/', '/sign-in', '/sign-up', '/reset-password', '/confirm-email', '/accept-invitation', '/handoff', '/websites', `/w/${alice.websiteId}`, `/w/${alice.websiteId}/r/cms_pages`, `/a/${alice.accountId}/r/members`]) {
      const res = await t.request('GET', path);
      expect(isAdminHtml(res), path).toBe(true);
    }
  });

  it('marks index.html no-cache and hashed assets immutable for a year', async () => {
    const index = await t.request('GET', '/reset-password');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toContain("default-src 'self'");
    const again = await t.request('GET', '/', { headers: { 'if-none-match': String(index.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const assets = await readdir(join(adminDistDir(), 'assets'));
    const script = assets.find((f) => f.endsWith('.js'))!;
    expect(index.body).toMatch(/\/assets\/[\w-]+\.js/);
    const res = await t.request('GET', `/assets/${script}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('keeps JSON answers for the API prefixes, health checks, OpenAPI and unknown paths', async () => {
    for (const path of [`${API}/no-such-route`, '/site-api/v1/nothing', '/engine-api/v1/nothing', '/nowhere', '/assets/no-such-file.js']) {
      const res = await t.request('GET', path);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().error.status, path).toBe('NOT_FOUND');
    }
    expect(expectStatus(await t.request('GET', '/healthz'), 200)).toEqual({ status: 'ok' });
    expect(expectStatus(await t.request('GET', '/readyz'), 200)).toEqual({ status: 'ready' });
    expect(expectStatus(await t.request('GET', `${API}/openapi.json`), 200).openapi).toBe('3.1.0');
  });

  it('is not served on a website host', async () => {
    const code = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200).code;
    for (const path of ['/', '/sign-in']) {
      const res = await t.request('GET', path, { headers: { host: `${code}.localhost` } });
      expect(res.body, path).not.toContain('<div id="root"></div>');
    }
  });

  it('lists every first path segment of the admin routes among the served client paths', async () => {
    const served = new Set(ADMIN_CLIENT_PATHS.map((p) => p.replace('/*', '')));
    const root = repositoryRoot();
    const sources = (await readFile(join(root, 'admin/src/routes.tsx'), 'utf8')) + (await readFile(join(root, 'admin/src/resource-routes.tsx'), 'utf8'));
    const paths = [...sources.matchAll(/path: '(\/[^']*)'/g)].map((m) => m[1]).filter((p) => p !== '/');
    expect(paths.length).toBeGreaterThan(5);
    for (const path of paths) expect(served, path).toContain(`/${path.split('/')[1]}`.replace(/\$.*$/, ''));
  });
});
