import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_SESSION_LIFETIME_MS } from '../../src/customers/customer-sessions.service.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { Browser, setCookies, sessionCookieOf, siteHostOf } from '../support/site-browser.js';

const password = 'garden-gnome-42';

async function world(env: Record<string, string> = {}) {
  const t = await startTestApp(env);
  const alice = await t.signUpProvisioned();
  const host = await siteHostOf(t, alice);
  const email = `visitor-${randomUUID().slice(0, 8)}@example.com`;
  expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/customers`, { token: alice.token, body: { email, password } }), 201);
  return { t, alice, host, email };
}

/** Issue 15, "Visitors as customers": the session cookie's lifetime and its flags. */
describe('visitor sessions', () => {
  let t: TestApp;
  let alice: TestUser;
  let host: string;
  let email: string;

  beforeAll(async () => {
    ({ t, alice, host, email } = await world());
  });
  afterAll(() => t.close());

  const sessionRow = () => t.platform.deps.database.db.selectFrom('customer_sessions as s').innerJoin('customers as c', 'c.id', 's.customer_id').select(['s.token_hash', 's.expire_time']).where('c.email', '=', email).executeTakeFirstOrThrow();

  it('reading pages does not write the session while more than half its lifetime is left', async () => {
    const browser = new Browser(t, host);
    expect((await browser.signIn(email, password)).statusCode).toBe(303);
    const before = await sessionRow();
    for (const path of ['/account', '/', '/account/password']) {
      const res = await browser.get(path);
      expect(sessionCookieOf(res), path).toBeUndefined();
    }
    expect(Number((await sessionRow()).expire_time)).toBe(Number(before.expire_time));
    await browser.signOut();
  });

  it('a session with less than half its lifetime left is renewed, and the cookie with it', async () => {
    const browser = new Browser(t, host);
    expect((await browser.signIn(email, password)).statusCode).toBe(303);
    const { token_hash } = await sessionRow();
    const soon = Date.now() + CUSTOMER_SESSION_LIFETIME_MS / 2 - 60_000;
    await t.platform.deps.database.db.updateTable('customer_sessions').set({ expire_time: soon }).where('token_hash', '=', token_hash).execute();
    const res = await browser.get('/');
    const cookie = sessionCookieOf(res)!;
    expect(cookie.value).toBe(browser.session);
    const maxAge = Number(cookie.attributes.find((a) => a.startsWith('max-age='))!.slice('max-age='.length));
    expect(maxAge).toBeGreaterThan(CUSTOMER_SESSION_LIFETIME_MS / 1000 - 3600);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(Number((await sessionRow()).expire_time)).toBeGreaterThan(soon + 3600_000);
    await browser.signOut();
  });

  it('an expired session is an anonymous visitor whose cookie is cleared', async () => {
    const browser = new Browser(t, host);
    expect((await browser.signIn(email, password)).statusCode).toBe(303);
    const { token_hash } = await sessionRow();
    await t.platform.deps.database.db.updateTable('customer_sessions').set({ expire_time: Date.now() - 1 }).where('token_hash', '=', token_hash).execute();
    const res = await browser.get('/account');
    expect(res.statusCode).toBe(303);
    expect(sessionCookieOf(res)!.attributes).toContain('max-age=0');
  });

  it('without a trusted proxy, X-Forwarded-Proto does not make the cookie Secure', async () => {
    const browser = new Browser(t, host, { 'x-forwarded-proto': 'https' });
    const res = await browser.signIn(email, password);
    expect(res.statusCode).toBe(303);
    expect(sessionCookieOf(res)!.attributes).not.toContain('secure');
    expect(alice.websiteId).toBeTruthy();
  });

  describe('behind a trusted proxy (TRUST_PROXY=true)', () => {
    let proxied: Awaited<ReturnType<typeof world>>;
    beforeAll(async () => {
      proxied = await world({ TRUST_PROXY: 'true' });
    });
    afterAll(() => proxied.t.close());

    it('an https request gets Secure cookies (session and CSRF secret); http ones do not', async () => {
      const https = new Browser(proxied.t, proxied.host, { 'x-forwarded-proto': 'https' });
      const form = await https.get('/account/sign-in');
      expect(setCookies(form).find((c) => c.name === '_csrf')!.attributes).toContain('secure');
      const res = await https.post('/account/sign-in', { _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1], email: proxied.email, password }, { origin: `https://${proxied.host}` });
      expect(res.statusCode).toBe(303);
      expect(sessionCookieOf(res)!.attributes).toEqual(expect.arrayContaining(['secure', 'httponly', 'samesite=lax', 'path=/']));
      expect((await https.get('/account')).statusCode).toBe(200);

      const plain = new Browser(proxied.t, proxied.host);
      const answer = await plain.signIn(proxied.email, password);
      expect(sessionCookieOf(answer)!.attributes).not.toContain('secure');
    });

    it('an http Origin posting to the https site is foreign', async () => {
      const https = new Browser(proxied.t, proxied.host, { 'x-forwarded-proto': 'https' });
      const form = await https.get('/account/sign-in');
      const res = await https.post('/account/sign-in', { _csrf: /name="_csrf" value="([^"]+)"/.exec(form.body)![1], email: proxied.email, password }, { origin: `http://${proxied.host}` });
      expect(res.statusCode).toBe(403);
      expect(https.session).toBeUndefined();
    });
  });
});
