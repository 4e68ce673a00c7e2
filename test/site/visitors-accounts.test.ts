import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectStatus } from '../support/fixtures.js';
import { Browser, csrfOf, formBody, sessionCookieOf, siteHostOf } from '../support/site-browser.js';

/** Issue 15, "Visitors as customers": sign-up, sign-in, sign-out, profile and password on the website itself. */
describe('visitors as customers', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let host: string;
  let bobHost: string;
  let customersUrl: string;
  const password = 'garden-gnome-42';
  const newEmail = () => `visitor-${randomUUID().slice(0, 8)}@example.com`;
  const api = (method: string, url: string, body?: unknown) => t.request(method, url, { token: alice.token, body });
  const customers = async () => expectStatus(await api('GET', `${customersUrl}?page_size=100`), 200).customers as any[];
  const customerByEmail = async (email: string) => (await customers()).find((c) => c.email === email);

  /** A customer made through the tenant API, and a browser signed in as them. */
  async function signedIn(fields: Record<string, unknown> = {}) {
    const email = newEmail();
    const customer = expectStatus(await api('POST', customersUrl, { email, password, attributes: { shoe_size: 40 }, ...fields }), 201);
    const browser = new Browser(t, host);
    const res = await browser.signIn(email, password);
    expect(res.statusCode).toBe(303);
    expect(browser.session).toBeDefined();
    return { email, customer, browser };
  }

  beforeAll(async () => {
    ({ t, alice, bob } = await startTwoTenants());
    host = await siteHostOf(t, alice);
    bobHost = await siteHostOf(t, bob);
    customersUrl = `${API}/websites/${alice.websiteId}/customers`;
    expectStatus(
      await api('POST', `${API}/websites/${alice.websiteId}/customer_attributes`, { key: 'shoe_size', display_name: 'Shoe size', type: 'NUMBER', is_required: true, show_in_registration: true, min_value: 20, max_value: 60 }),
      201,
    );
    expectStatus(
      await api('POST', `${API}/websites/${alice.websiteId}/customer_attributes`, { key: 'newsletter', display_name: 'Newsletter', type: 'BOOLEAN', show_in_registration: true }),
      201,
    );
    expectStatus(await api('POST', `${API}/websites/${alice.websiteId}/customer_attributes`, { key: 'internal_note', display_name: 'Internal note', type: 'TEXT' }), 201);
  });
  afterAll(() => t.close());

  describe('sign-up', () => {
    it('the form asks for email, password, name and every registration attribute, with labels, and is never cached', async () => {
      const browser = new Browser(t, host);
      const res = await browser.get('/account/sign-up');
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('private, no-store');
      for (const id of ['field-email', 'field-password', 'field-display_name', 'field-attributes-shoe_size']) expect(res.body).toContain(`<label for="${id}">`);
      expect(res.body).toContain('<legend>Newsletter</legend>');
      expect(res.body).not.toContain('internal_note');
      expect(res.body).toContain('name="_csrf"');
    });

    it('a required registration attribute left out: the form comes back with the error, the entered values (never the password), nothing created', async () => {
      const email = newEmail();
      const browser = new Browser(t, host);
      const res = await browser.signUp({ email, password: 'Secret-pass-77', display_name: 'Ada <b>', 'attributes.shoe_size': '' });
      expect(res.statusCode).toBe(400);
      expect(res.headers['cache-control']).toBe('private, no-store');
      expect(res.body).toContain('class="error-summary" role="alert"');
      expect(res.body).toContain('href="#field-attributes-shoe_size"');
      expect(res.body).toMatch(/id="field-attributes-shoe_size"[^>]*aria-describedby="field-attributes-shoe_size-error"[^>]*aria-invalid="true"/);
      expect(res.body).toContain('is required');
      expect(res.body).toContain(`value="${email}"`);
      expect(res.body).toContain('value="Ada &lt;b&gt;"');
      expect(res.body).not.toContain('Secret-pass-77');
      expect(browser.session).toBeUndefined();
      expect(await customerByEmail(email)).toBeUndefined();
    });

    it('an attribute value outside its range is refused as the tenant API refuses it', async () => {
      const email = newEmail();
      const res = await new Browser(t, host).signUp({ email, password, 'attributes.shoe_size': '99' });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('must be at most 60');
      expect(res.body).toContain('value="99"');
      expect(await customerByEmail(email)).toBeUndefined();
    });

    it('a complete sign-up creates the customer with its attributes, signs the visitor in with a safe cookie', async () => {
      const email = newEmail();
      const browser = new Browser(t, host);
      const res = await browser.signUp({ email: `  ${email.toUpperCase()} `, password, display_name: 'Grace', 'attributes.shoe_size': '41.5', 'attributes.newsletter': 'true', 'attributes.internal_note': 'smuggled' });
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account?welcome=1');
      const cookie = sessionCookieOf(res)!;
      expect(cookie.attributes).toEqual(expect.arrayContaining(['httponly', 'samesite=lax', 'path=/']));
      expect(cookie.attributes).not.toContain('secure');
      const customer = await customerByEmail(email);
      expect(customer).toMatchObject({ email, display_name: 'Grace', attributes: { shoe_size: 41.5, newsletter: true }, is_active: true });
      expect(customer.attributes.internal_note).toBeUndefined();
      const account = await browser.get('/account?welcome=1');
      expect(account.statusCode).toBe(200);
      expect(account.headers['cache-control']).toBe('private, no-store');
      expect(account.body).toContain(email);
      expect(account.body).toContain('Your account is ready.');
      expect(account.body).toContain('value="Grace"');
    });

    it('a password the website finds too short (customer.password.min_length) is refused', async () => {
      expectStatus(await api('PATCH', `${API}/websites/${alice.websiteId}/settings/customer.password.min_length`, { value: 12 }), 200);
      try {
        const email = newEmail();
        const res = await new Browser(t, host).signUp({ email, password: 'short-pw-1', 'attributes.shoe_size': '40' });
        expect(res.statusCode).toBe(400);
        expect(res.body).toContain('must be at least 12 characters');
        expect(await customerByEmail(email)).toBeUndefined();
      } finally {
        expectStatus(await api('PATCH', `${API}/websites/${alice.websiteId}/settings/customer.password.min_length`, { value: 8 }), 200);
      }
    });

    it('a taken email is refused on the field, and nothing changes', async () => {
      const email = newEmail();
      expectStatus(await api('POST', customersUrl, { email, password, attributes: { shoe_size: 40 } }), 201);
      const before = await customers();
      const res = await new Browser(t, host).signUp({ email, password, 'attributes.shoe_size': '40' });
      expect(res.statusCode).toBe(409);
      expect(res.body).toContain('An account with this email address already exists');
      expect(res.body).toMatch(/id="field-email"[^>]*aria-invalid="true"/);
      expect(await customers()).toEqual(before);
    });

    it('registration disabled: the form is closed and a POST creates nothing', async () => {
      const setting = `${API}/websites/${alice.websiteId}/settings/customer.account.registration_enabled`;
      const browser = new Browser(t, host);
      const form = await browser.get('/account/sign-up');
      expectStatus(await api('PATCH', setting, { value: false }), 200);
      try {
        const page = await browser.get('/account/sign-up');
        expect(page.statusCode).toBe(403);
        expect(page.body).toContain('Registration is closed');
        const email = newEmail();
        const res = await browser.post('/account/sign-up', { _csrf: csrfOf(form.body), email, password, 'attributes.shoe_size': '40' });
        expect(res.statusCode).toBe(403);
        expect(await customerByEmail(email)).toBeUndefined();
      } finally {
        expectStatus(await api('PATCH', setting, { value: true }), 200);
      }
    });
  });

  describe('sign-in and sign-out', () => {
    it('a customer signs in and out; the ended session no longer counts', async () => {
      const { browser, email } = await signedIn();
      const token = browser.session!;
      const account = await browser.get('/account');
      expect(account.statusCode).toBe(200);
      expect(account.body).toContain(email);
      const home = await browser.get('/');
      expect(home.body).toContain('href="/account/sign-out"');
      const out = await browser.signOut();
      expect(out.statusCode).toBe(303);
      expect(sessionCookieOf(out)!.attributes).toContain('max-age=0');
      expect(browser.session).toBeUndefined();
      expect((await browser.get('/account')).statusCode).toBe(303);
      // The old cookie sent again: anonymous, and told to go.
      const replay = new Browser(t, host);
      replay.cookies.set('customer_session', token);
      const res = await replay.get('/account');
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account/sign-in');
      expect(sessionCookieOf(res)!.attributes).toContain('max-age=0');
    });

    it('anonymous visitors see sign-in and sign-up links; /account sends them to sign in', async () => {
      const browser = new Browser(t, host);
      const home = await browser.get('/');
      expect(home.body).toContain('href="/account/sign-in"');
      expect(home.body).toContain('href="/account/sign-up"');
      const res = await browser.get('/account');
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account/sign-in');
    });

    it('a wrong password and an unknown email get one generic answer, and no session', async () => {
      const { email } = await signedIn();
      for (const [who, pw] of [[email, 'wrong-password-1'], [newEmail(), password]]) {
        const browser = new Browser(t, host);
        const res = await browser.signIn(who, pw);
        expect(res.statusCode).toBe(400);
        expect(res.body).toContain('The email or password is wrong.');
        expect(res.body).not.toContain(pw);
        expect(res.body).toContain(`value="${who}"`);
        expect(browser.session).toBeUndefined();
      }
    });

    it('an inactive customer is refused with the same message as a wrong password, and its live sessions end', async () => {
      const { browser, email, customer } = await signedIn();
      expectStatus(await api('PATCH', `${customersUrl}/${customer.id}`, { is_active: false }), 200);
      const res = await new Browser(t, host).signIn(email, password);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('The email or password is wrong.');
      const account = await browser.get('/account');
      expect(account.statusCode).toBe(303);
      expect(browser.session).toBeUndefined();
    });

    it('failed sign-ins are limited per address and email: then even the right password waits', async () => {
      const { email } = await signedIn();
      const browser = new Browser(t, host);
      for (let i = 0; i < 10; i++) expect((await browser.signIn(email, `wrong-${i}-password`)).statusCode).toBe(400);
      const res = await browser.signIn(email, password);
      expect(res.statusCode).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(res.body).toContain('Too many failed attempts');
      expect(browser.session).toBeUndefined();
    });
  });

  describe('sessions end when the tenant API changes the customer', () => {
    it('a password change through the tenant API signs the visitor out', async () => {
      const { browser, customer } = await signedIn();
      expectStatus(await api('PATCH', `${customersUrl}/${customer.id}`, { password: 'brand-new-pass-7' }), 200);
      const res = await browser.get('/account');
      expect(res.statusCode).toBe(303);
      expect(sessionCookieOf(res)!.attributes).toContain('max-age=0');
    });

    it('a customer Delete signs the visitor out', async () => {
      const { browser, customer } = await signedIn();
      expect((await t.request('DELETE', `${customersUrl}/${customer.id}`, { token: alice.token })).statusCode).toBe(204);
      const res = await browser.get('/account');
      expect(res.statusCode).toBe(303);
      expect(browser.session).toBeUndefined();
    });
  });

  describe('profile and password', () => {
    it('the profile edits display name and registration attributes; other attributes keep their values', async () => {
      const { browser, customer } = await signedIn({ display_name: 'Old', attributes: { shoe_size: 38, internal_note: 'vip' } });
      const page = await browser.get('/account');
      expect(page.body).toContain('value="Old"');
      expect(page.body).toMatch(/id="field-attributes-shoe_size"[^>]*value="38"/);
      const bad = await browser.submit('/account', { display_name: 'New', 'attributes.shoe_size': 'huge' });
      expect(bad.statusCode).toBe(400);
      expect(bad.body).toContain('must be a number');
      expect(bad.body).toContain('value="New"');
      const ok = await browser.submit('/account', { display_name: 'New', 'attributes.shoe_size': '44', 'attributes.newsletter': 'false', 'attributes.internal_note': 'changed' });
      expect(ok.statusCode).toBe(303);
      expect(ok.headers.location).toBe('/account?saved=profile');
      const stored = expectStatus(await api('GET', `${customersUrl}/${customer.id}`), 200);
      expect(stored).toMatchObject({ display_name: 'New', attributes: { shoe_size: 44, newsletter: false, internal_note: 'vip' } });
    });

    it('a password change needs the current password and signs out every other session, not this one', async () => {
      const { browser, email } = await signedIn({ attributes: { shoe_size: 40 } });
      const other = new Browser(t, host);
      expect((await other.signIn(email, password)).statusCode).toBe(303);
      const wrong = await browser.submit('/account/password', { current_password: 'not-it-123', new_password: 'another-pass-9' });
      expect(wrong.statusCode).toBe(400);
      expect(wrong.body).toMatch(/id="field-current_password"[^>]*aria-invalid="true"/);
      expect(wrong.body).not.toContain('another-pass-9');
      const weak = await browser.submit('/account/password', { current_password: password, new_password: 'lettersonly' });
      expect(weak.statusCode).toBe(400);
      expect(weak.body).toContain('must contain a letter and a digit');
      const ok = await browser.submit('/account/password', { current_password: password, new_password: 'another-pass-9' });
      expect(ok.statusCode).toBe(303);
      expect((await browser.get('/account')).statusCode).toBe(200);
      expect((await other.get('/account')).statusCode).toBe(303);
      expect((await new Browser(t, host).signIn(email, 'another-pass-9')).statusCode).toBe(303);
    });
  });

  describe('hostile requests', () => {
    it('a POST without or with a wrong CSRF token is a 403 page and writes nothing', async () => {
      const browser = new Browser(t, host);
      const page = await browser.get('/account/sign-up');
      const token = csrfOf(page.body);
      for (const csrf of [undefined, 'forged-token', `${token}x`]) {
        const email = newEmail();
        const res = await browser.post('/account/sign-up', { _csrf: csrf, email, password, 'attributes.shoe_size': '40' });
        expect(res.statusCode).toBe(403);
        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(await customerByEmail(email)).toBeUndefined();
      }
      // Another visitor's token (its secret cookie missing) does not work either.
      const stranger = new Browser(t, host);
      const res = await stranger.post('/account/sign-up', { _csrf: token, email: newEmail(), password, 'attributes.shoe_size': '40' });
      expect(res.statusCode).toBe(403);
    });

    it('a form posted from another origin is refused even with a valid token', async () => {
      const browser = new Browser(t, host);
      const page = await browser.get('/account/sign-up');
      const email = newEmail();
      const res = await browser.post('/account/sign-up', { _csrf: csrfOf(page.body), email, password, 'attributes.shoe_size': '40' }, { origin: `http://${bobHost}` });
      expect(res.statusCode).toBe(403);
      expect(await customerByEmail(email)).toBeUndefined();
    });

    it('sign-out without a token does not sign out', async () => {
      const { browser } = await signedIn();
      expect((await browser.post('/account/sign-out', {})).statusCode).toBe(403);
      expect((await browser.get('/account')).statusCode).toBe(200);
    });

    it('a forged session cookie is an anonymous visitor whose cookie is cleared, never an error', async () => {
      for (const forged of ['x', 'A'.repeat(43), '../../etc', 'a'.repeat(5000), '%00%ff']) {
        const browser = new Browser(t, host);
        const res = await t.request('GET', '/account', { headers: { host, cookie: `customer_session=${forged}` } });
        expect(res.statusCode, forged).toBe(303);
        expect(sessionCookieOf(res)?.attributes, forged).toContain('max-age=0');
        const home = await t.request('GET', '/', { headers: { host, cookie: `customer_session=${forged}` } });
        expect(home.statusCode, forged).toBeLessThan(500);
        expect(home.body).toContain('href="/account/sign-in"');
        void browser;
      }
    });

    it("website A's session cookie on website B is nobody there", async () => {
      const { browser } = await signedIn();
      const onB = new Browser(t, bobHost);
      onB.cookies.set('customer_session', browser.session!);
      const res = await onB.get('/account');
      expect(res.statusCode).toBe(303);
      expect(res.headers.location).toBe('/account/sign-in');
      expect(sessionCookieOf(res)!.attributes).toContain('max-age=0');
      // The session itself lives on at A.
      expect((await browser.get('/account')).statusCode).toBe(200);
    });

    it('a JSON or garbage body to a form route is a clean 4xx', async () => {
      const browser = new Browser(t, host);
      await browser.get('/account/sign-in');
      const json = await t.request('POST', '/account/sign-in', { body: { email: 'a@b.c', password: 'x' }, headers: { host } });
      expect(json.statusCode).toBe(403);
      const nul = await t.request('POST', '/account/sign-in', { body: formBody({ email: 'a\u0000@b.c' }), headers: { host, 'content-type': 'application/x-www-form-urlencoded' } });
      expect(nul.statusCode).toBeGreaterThanOrEqual(400);
      expect(nul.statusCode).toBeLessThan(500);
    });
  });

  it('the tenant API keeps refusing form bodies (JSON only)', async () => {
    const res = await t.request('POST', customersUrl, { token: alice.token, body: formBody({ email: newEmail(), password }), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details[0].field).toBe('content-type');
  });
});
