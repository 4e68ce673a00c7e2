import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { Browser, csrfOf, siteHostOf } from '../support/site-browser.js';
import { startMailingApp, type MailingApp } from '../support/smtp.js';

/** Issue 15, "Visitors as customers": password reset by mail, with the website's own email template. */
describe('visitors reset their password by mail', () => {
  let mailing: MailingApp;
  let t: TestApp;
  let alice: TestUser;
  let host: string;
  const password = 'garden-gnome-42';
  const newEmail = () => `visitor-${randomUUID().slice(0, 8)}@example.com`;
  const api = (method: string, url: string, body?: unknown) => t.request(method, url, { token: alice.token, body });

  async function customer(displayName = 'Ada') {
    const email = newEmail();
    const created = expectStatus(await api('POST', `${API}/websites/${alice.websiteId}/customers`, { email, password, display_name: displayName }), 201);
    return { email, id: created.id as string };
  }

  /** The reset link of the next mail to `email`, as a site path (`/account/password-reset/confirm?token=…`). */
  async function resetLink(email: string) {
    const mail = await mailing.smtp.nextMail(email);
    const link = /https?:\/\/\S+\/account\/password-reset\/confirm\?token=[A-Za-z0-9_%-]+/.exec(mail.text)?.[0];
    expect(link, mail.text).toBeDefined();
    const url = new URL(link!);
    expect(url.host).toBe(host);
    return { mail, path: `${url.pathname}${url.search}`, token: url.searchParams.get('token')! };
  }

  beforeAll(async () => {
    mailing = await startMailingApp();
    t = mailing.t;
    alice = await t.signUpProvisioned();
    host = await siteHostOf(t, alice);
    // The website's own template is what goes out.
    expectStatus(
      await api('PATCH', `${API}/websites/${alice.websiteId}/email_templates/customer_password_reset`, {
        subject: 'New password for {{customer_name}} at {{site_name}}',
        text_body: 'Hi {{customer_name}}, open {{reset_url}} within {{expire_hours}} hour(s).',
      }),
      200,
    );
  });
  afterAll(() => mailing.close());

  it('end to end: the mailed link sets a new password once, signs out every session, the new password works', async () => {
    const { email } = await customer('Grace');
    const signedIn = new Browser(t, host);
    expect((await signedIn.signIn(email, password)).statusCode).toBe(303);

    const visitor = new Browser(t, host);
    const asked = await visitor.submit('/account/password-reset', { email: email.toUpperCase() });
    expect(asked.statusCode).toBe(200);
    expect(asked.headers['cache-control']).toBe('private, no-store');
    expect(asked.body).toContain('If an account uses this address');
    const { mail, path, token } = await resetLink(email);
    expect(mail.subject).toBe('New password for Grace at Test Site');
    expect(mail.text).toContain('within 1 hour(s)');
    const stored = await t.platform.deps.database.db.selectFrom('customer_tokens').select('token_hash').execute();
    expect(stored.map((r) => r.token_hash)).not.toContain(token);

    const form = await visitor.get(path);
    expect(form.statusCode).toBe(200);
    expect(form.headers['referrer-policy']).toBe('no-referrer');
    const weak = await visitor.post('/account/password-reset/confirm', { _csrf: csrfOf(form.body), token, new_password: 'short' });
    expect(weak.statusCode).toBe(400);
    expect(weak.body).toMatch(/id="field-new_password"[^>]*aria-invalid="true"/);
    const done = await visitor.post('/account/password-reset/confirm', { _csrf: csrfOf(form.body), token, new_password: 'fresh-start-77' });
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe('/account/sign-in?reset=1');

    expect((await signedIn.get('/account')).statusCode).toBe(303);
    expect((await new Browser(t, host).signIn(email, password)).statusCode).toBe(400);
    expect((await new Browser(t, host).signIn(email, 'fresh-start-77')).statusCode).toBe(303);

    // Single use: the link and its form no longer work.
    const again = await visitor.get(path);
    expect(again.statusCode).toBe(400);
    expect(again.body).toContain('This link does not work');
    const replay = await visitor.post('/account/password-reset/confirm', { _csrf: csrfOf(form.body), token, new_password: 'third-try-88' });
    expect(replay.statusCode).toBe(400);
    expect((await new Browser(t, host).signIn(email, 'fresh-start-77')).statusCode).toBe(303);

    // Neither the token nor a password was logged.
    const logged = mailing.logLines.join('\n');
    for (const secret of [token, encodeURIComponent(token), 'fresh-start-77', password]) expect(logged).not.toContain(secret);
  });

  it('an unknown address gets the same answer and no mail', async () => {
    const { email } = await customer();
    const known = await new Browser(t, host).submit('/account/password-reset', { email });
    await resetLink(email);
    const unknownEmail = newEmail();
    const unknown = await new Browser(t, host).submit('/account/password-reset', { email: unknownEmail });
    expect(unknown.statusCode).toBe(known.statusCode);
    const main = (html: string) => html.replace(/name="_csrf" value="[^"]+"/, '');
    expect(main(unknown.body)).toBe(main(known.body));
    await new Promise((r) => setTimeout(r, 300));
    expect(mailing.smtp.mailsTo(unknownEmail)).toHaveLength(0);
  });

  it('an expired link does not work', async () => {
    const { email, id } = await customer();
    await new Browser(t, host).submit('/account/password-reset', { email });
    const { path, token } = await resetLink(email);
    await t.platform.deps.database.db.updateTable('customer_tokens').set({ expire_time: Date.now() - 1 }).where('customer_id', '=', id).execute();
    const visitor = new Browser(t, host);
    expect((await visitor.get(path)).statusCode).toBe(400);
    const form = await visitor.get('/account/password-reset');
    const res = await visitor.post('/account/password-reset/confirm', { _csrf: csrfOf(form.body), token, new_password: 'fresh-start-77' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('This link does not work');
    expect((await new Browser(t, host).signIn(email, password)).statusCode).toBe(303);
  });

  it('a newer link replaces the older one', async () => {
    const { email } = await customer();
    const visitor = new Browser(t, host);
    await visitor.submit('/account/password-reset', { email });
    const first = await resetLink(email);
    await visitor.submit('/account/password-reset', { email });
    const second = await resetLink(email);
    expect((await visitor.get(first.path)).statusCode).toBe(400);
    expect((await visitor.get(second.path)).statusCode).toBe(200);
  });

  it('reset requests are limited per address and email', async () => {
    const { email } = await customer();
    const visitor = new Browser(t, host);
    for (let i = 0; i < 3; i++) expect((await visitor.submit('/account/password-reset', { email })).statusCode).toBe(200);
    const res = await visitor.submit('/account/password-reset', { email });
    expect(res.statusCode).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('a new customer gets the website welcome mail', async () => {
    expectStatus(await api('PATCH', `${API}/websites/${alice.websiteId}/settings/general.site.name`, { value: 'Bob’s Bakery' }), 200);
    const email = newEmail();
    const res = await new Browser(t, host).signUp({ email, password, display_name: 'Linus' });
    expect(res.statusCode).toBe(303);
    const mail = await mailing.smtp.nextMail(email);
    expect(mail.subject).toBe('Welcome to Bob’s Bakery');
    expect(mail.text).toContain(`http://${host}/account`);
  });
});
