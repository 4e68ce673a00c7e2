import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startMailingApp, type MailingApp, type TestSmtp } from '../support/smtp.js';
import { expectError, expectRateLimited } from '../support/fixtures-auth.js';
import { RESETS_PER_ADDRESS, RESETS_PER_EMAIL } from '../../src/users/user.service.js';

const API = '/tenant-api/v1';
const AUTHENTICATE = `${API}/users:authenticate`;
const REQUEST_RESET = `${API}/users:request_password_reset`;
const RESET = `${API}/users:reset_password`;
const CONFIRM_EMAIL = `${API}/users:confirm_email`;

let mailing: MailingApp;
let smtp: TestSmtp;
let t: TestApp;
let logLines: string[];
let addressCounter = 0;
/** Each test asks from a client address of its own, so the per-address reset limit is its own too. */
const nextAddress = () => `10.1.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

beforeAll(async () => {
  ({ t, smtp, logLines } = mailing = await startMailingApp({ ADMIN_BASE_URL: 'https://admin.example.com' }));
});
afterAll(() => mailing?.close());

function post(url: string, body: unknown, opts: { token?: string; address?: string; headers?: Record<string, string> } = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    remoteAddress: opts.address ?? '127.0.0.1',
    headers: { 'content-type': 'application/json', ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.headers ?? {}) },
    payload: JSON.stringify(body),
  }) as unknown as Promise<{ statusCode: number; headers: Record<string, unknown>; body: string; json(): any }>;
}

async function signIn(email: string, password: string) {
  return post(AUTHENTICATE, { email, password }, { address: nextAddress() });
}

const me = (token: string) => t.request('GET', `${API}/users/me`, { token });

/** Requests a reset for `user` and answers the token of the mailed link. */
async function resetToken(user: TestUser): Promise<string> {
  const res = await post(REQUEST_RESET, { email: user.email }, { address: nextAddress() });
  expect(res.statusCode, res.body).toBe(200);
  const mail = await smtp.nextMail(user.email);
  expect(mail.subject).toMatch(/reset/i);
  return smtp.tokenFrom(mail);
}

describe('change_password', () => {
  it('needs the current password: a wrong one answers 400 INVALID_ARGUMENT naming current_password and changes nothing', async () => {
    const user = await t.signUp();
    const res = await post(`${API}/users/me:change_password`, { current_password: 'wrong-password-1', new_password: 'brand-new-pass-2' }, { token: user.token });
    expectError(res, 400, 'INVALID_ARGUMENT', { field: 'current_password' });
    expect((await signIn(user.email, user.password)).statusCode).toBe(200);
    expect((await signIn(user.email, 'brand-new-pass-2')).statusCode).toBe(401);
  });

  it('applies the sign-up password rules to new_password', async () => {
    const user = await t.signUp();
    for (const new_password of ['short1', 'onlyletters', '12345678']) {
      const res = await post(`${API}/users/me:change_password`, { current_password: user.password, new_password }, { token: user.token });
      expectError(res, 400, 'INVALID_ARGUMENT', { field: 'new_password' });
    }
  });

  it('refuses missing, unknown and wrongly typed fields, naming them', async () => {
    const user = await t.signUp();
    const url = `${API}/users/me:change_password`;
    expectError(await post(url, { current_password: user.password }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'new_password' });
    expectError(await post(url, { current_password: user.password, new_password: 'brand-new-pass-2', extra: 1 }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'extra' });
    expectError(await post(url, { current_password: 5, new_password: 'brand-new-pass-2' }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'current_password' });
  });

  it("ends every other session at once, keeps the caller's, signs in with the new password only, and mails a notice", async () => {
    const user = await t.signUp();
    const other = (await signIn(user.email, user.password)).json().token;
    const res = await post(`${API}/users/${user.userId}:change_password`, { current_password: user.password, new_password: 'brand-new-pass-2' }, { token: user.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect((await me(user.token)).statusCode).toBe(200);
    expectError(await me(other), 401, 'UNAUTHENTICATED');
    expect((await signIn(user.email, user.password)).statusCode).toBe(401);
    expect((await signIn(user.email, 'brand-new-pass-2')).statusCode).toBe(200);
    const notice = await smtp.nextMail(user.email);
    expect(notice.subject).toMatch(/password was changed/i);
    expect(notice.text).not.toContain('brand-new-pass-2');
  });

  it("answers 404 NOT_FOUND for another user's change_password", async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    expectError(await post(`${API}/users/${bob.userId}:change_password`, { current_password: bob.password, new_password: 'brand-new-pass-2' }, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('limits wrong current passwords per user: 429 RESOURCE_EXHAUSTED with RETRY_INFO', async () => {
    const user = await t.signUp();
    for (let i = 0; i < 10; i++) {
      await post(`${API}/users/me:change_password`, { current_password: `wrong-${i}-pass`, new_password: 'brand-new-pass-2' }, { token: user.token });
    }
    expectRateLimited(await post(`${API}/users/me:change_password`, { current_password: user.password, new_password: 'brand-new-pass-2' }, { token: user.token }), 15 * 60);
  });
});

describe('password reset', () => {
  it('answers the same 200 body for a known and an unknown address (no enumeration); only the known one gets a mail', async () => {
    const user = await t.signUp();
    const unknown = `nobody-${Date.now()}@example.com`;
    const known = await post(REQUEST_RESET, { email: user.email }, { address: nextAddress() });
    const missing = await post(REQUEST_RESET, { email: unknown }, { address: nextAddress() });
    expect(known.statusCode).toBe(200);
    expect(missing.statusCode).toBe(200);
    expect(known.body).toBe(missing.body);
    expect(known.headers['content-type']).toBe(missing.headers['content-type']);
    expect(known.headers['content-length']).toBe(missing.headers['content-length']);
    await smtp.nextMail(user.email);
    expect(smtp.mailsTo(unknown)).toEqual([]);
  });

  it('mails a link built from ADMIN_BASE_URL, never from the request Host, with a token of at least 128 bits, to the stored address', async () => {
    const user = await t.signUp();
    const res = await post(REQUEST_RESET, { email: user.email.toUpperCase() }, { address: nextAddress(), headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    expect(res.statusCode, res.body).toBe(200);
    const mail = await smtp.nextMail(user.email);
    expect(mail.to).toEqual([user.email]);
    const link = smtp.linkFrom(mail);
    expect(link.startsWith('https://admin.example.com/reset-password#token=')).toBe(true);
    expect(mail.text + mail.html).not.toContain('evil.example');
    const token = smtp.tokenFrom(mail);
    expect(Buffer.from(token, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('stores only a hash of the token', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    const rows = await t.fresh.database.db.selectFrom('user_tokens').selectAll().where('user_id', '=', user.userId).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('reset_password sets the new password and ends every session of the user at once', async () => {
    const user = await t.signUp();
    const session = (await signIn(user.email, user.password)).json().token;
    const token = await resetToken(user);
    const res = await post(RESET, { token, new_password: 'after-reset-pass-3' });
    expect(res.statusCode, res.body).toBe(200);
    expectError(await me(session), 401, 'UNAUTHENTICATED');
    expectError(await me(user.token), 401, 'UNAUTHENTICATED');
    expect((await signIn(user.email, user.password)).statusCode).toBe(401);
    expect((await signIn(user.email, 'after-reset-pass-3')).statusCode).toBe(200);
    expect((await smtp.nextMail(user.email)).subject).toMatch(/password was changed/i);
  });

  it('a reused token is refused with 400 INVALID_ARGUMENT naming token', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    expect((await post(RESET, { token, new_password: 'after-reset-pass-3' })).statusCode).toBe(200);
    expectError(await post(RESET, { token, new_password: 'again-reset-pass-4' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expect((await signIn(user.email, 'after-reset-pass-3')).statusCode).toBe(200);
  });

  it('an expired token is refused with the same error', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    await t.fresh.database.db.updateTable('user_tokens').set({ expire_time: Date.now() - 1 }).where('user_id', '=', user.userId).execute();
    expectError(await post(RESET, { token, new_password: 'after-reset-pass-3' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expect((await signIn(user.email, user.password)).statusCode).toBe(200);
  });

  it('a tampered or made-up token is refused with the same error', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    const tampered = (token[0] === 'A' ? 'B' : 'A') + token.slice(1);
    expectError(await post(RESET, { token: tampered, new_password: 'after-reset-pass-3' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expectError(await post(RESET, { token: 'made-up', new_password: 'after-reset-pass-3' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expect((await post(RESET, { token, new_password: 'after-reset-pass-3' })).statusCode).toBe(200);
  });

  it('a reset link is valid about one hour: the mail says so and the stored token ends then', async () => {
    const user = await t.signUp();
    const before = Date.now();
    const res = await post(REQUEST_RESET, { email: user.email }, { address: nextAddress() });
    expect(res.statusCode, res.body).toBe(200);
    const mail = await smtp.nextMail(user.email);
    const stated = Date.parse(/expires (\S+?)\.?$/m.exec(mail.text)?.[1] ?? '');
    expect(stated - before).toBeGreaterThanOrEqual(55 * 60_000);
    expect(stated - before).toBeLessThanOrEqual(65 * 60_000);
    const row = await t.fresh.database.db.selectFrom('user_tokens').select('expire_time').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    expect(Number(row.expire_time)).toBe(stated);
  });

  it('a newer request replaces the earlier link', async () => {
    const user = await t.signUp();
    const first = await resetToken(user);
    const second = await resetToken(user);
    expectError(await post(RESET, { token: first, new_password: 'after-reset-pass-3' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expect((await post(RESET, { token: second, new_password: 'after-reset-pass-3' })).statusCode).toBe(200);
  });

  it('concurrent double use of one token: exactly one wins', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    const answers = await Promise.all([post(RESET, { token, new_password: 'winner-pass-one-1' }), post(RESET, { token, new_password: 'winner-pass-two-2' })]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    const ok = [await signIn(user.email, 'winner-pass-one-1'), await signIn(user.email, 'winner-pass-two-2')].filter((r) => r.statusCode === 200);
    expect(ok).toHaveLength(1);
  });

  it('refuses a new_password breaking the sign-up rules without using the token', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    expectError(await post(RESET, { token, new_password: 'short' }), 400, 'INVALID_ARGUMENT', { field: 'new_password' });
    expect((await post(RESET, { token, new_password: 'after-reset-pass-3' })).statusCode).toBe(200);
  });

  it('refuses a malformed request naming the field (email format, unknown field, missing token)', async () => {
    expectError(await post(REQUEST_RESET, { email: 'not-an-email' }, { address: nextAddress() }), 400, 'INVALID_ARGUMENT', { field: 'email' });
    expectError(await post(REQUEST_RESET, { email: 'a@example.com', extra: true }, { address: nextAddress() }), 400, 'INVALID_ARGUMENT', { field: 'extra' });
    expectError(await post(RESET, { new_password: 'after-reset-pass-3' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
  });

  it(`is rate-limited per address asked about: request ${RESETS_PER_EMAIL + 1} answers 429 RESOURCE_EXHAUSTED with RETRY_INFO, known or not`, async () => {
    const user = await t.signUp();
    const unknown = `nobody-limit-${Date.now()}@example.com`;
    for (const email of [user.email, unknown]) {
      for (let i = 0; i < RESETS_PER_EMAIL; i++) expect((await post(REQUEST_RESET, { email }, { address: nextAddress() })).statusCode).toBe(200);
      expectRateLimited(await post(REQUEST_RESET, { email }, { address: nextAddress() }), 15 * 60);
    }
  });

  it(`is rate-limited per client address: request ${RESETS_PER_ADDRESS + 1} from one address answers 429 with RETRY_INFO`, async () => {
    const address = nextAddress();
    for (let i = 0; i < RESETS_PER_ADDRESS; i++) {
      expect((await post(REQUEST_RESET, { email: `many-${i}-${Date.now()}@example.com` }, { address })).statusCode).toBe(200);
    }
    expectRateLimited(await post(REQUEST_RESET, { email: `one-more-${Date.now()}@example.com` }, { address }), 15 * 60);
    expect((await post(REQUEST_RESET, { email: `elsewhere-${Date.now()}@example.com` }, { address: nextAddress() })).statusCode).toBe(200);
  });
});

describe('email change', () => {
  it('mails a confirmation link to the new address and a notice to the old one; confirm_email switches the sign-in address', async () => {
    const user = await t.signUp();
    const newEmail = `new-${Date.now()}@example.com`;
    const res = await post(`${API}/users/me:change_email`, { new_email: newEmail, current_password: user.password }, { token: user.token });
    expect(res.statusCode, res.body).toBe(200);
    const notice = await smtp.nextMail(user.email);
    expect(notice.text).toContain(newEmail);
    expect(notice.text).not.toContain('#token=');
    const confirm = await smtp.nextMail(newEmail);
    expect(smtp.linkFrom(confirm).startsWith('https://admin.example.com/confirm-email#token=')).toBe(true);
    // Nothing changes before the confirmation.
    expect((await me(user.token)).json().email).toBe(user.email);
    const confirmed = await post(CONFIRM_EMAIL, { token: smtp.tokenFrom(confirm) });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    expect((await me(user.token)).json().email).toBe(newEmail);
    expect((await signIn(newEmail, user.password)).statusCode).toBe(200);
    expect((await signIn(user.email, user.password)).statusCode).toBe(401);
  });

  it('needs the current password (INVALID_ARGUMENT naming current_password) and a valid new_email', async () => {
    const user = await t.signUp();
    expectError(await post(`${API}/users/me:change_email`, { new_email: 'x@example.com', current_password: 'wrong-pass-1' }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'current_password' });
    expectError(await post(`${API}/users/me:change_email`, { new_email: 'nope', current_password: user.password }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'new_email' });
    expectError(await post(`${API}/users/me:change_email`, { new_email: user.email, current_password: user.password }, { token: user.token }), 400, 'INVALID_ARGUMENT', { field: 'new_email' });
    expect(smtp.mailsTo('x@example.com')).toEqual([]);
  });

  it("an address another user signs in with is refused with 409 ALREADY_EXISTS naming new_email", async () => {
    const user = await t.signUp();
    const other = await t.signUp();
    expectError(await post(`${API}/users/me:change_email`, { new_email: other.email, current_password: user.password }, { token: user.token }), 409, 'ALREADY_EXISTS', { field: 'new_email' });
  });

  it('confirm_email is refused with 409 ALREADY_EXISTS when the new address got taken meanwhile', async () => {
    const user = await t.signUp();
    const contested = `contested-${Date.now()}@example.com`;
    expect((await post(`${API}/users/me:change_email`, { new_email: contested, current_password: user.password }, { token: user.token })).statusCode).toBe(200);
    const token = smtp.tokenFrom(await smtp.nextMail(contested));
    await t.signUp({ email: contested });
    expectError(await post(CONFIRM_EMAIL, { token }), 409, 'ALREADY_EXISTS', { field: 'new_email' });
    expect((await me(user.token)).json().email).toBe(user.email);
  });

  it('reused, tampered and expired confirmation tokens are refused with 400 INVALID_ARGUMENT naming token', async () => {
    const user = await t.signUp();
    const newEmail = `once-${Date.now()}@example.com`;
    await post(`${API}/users/me:change_email`, { new_email: newEmail, current_password: user.password }, { token: user.token });
    const token = smtp.tokenFrom(await smtp.nextMail(newEmail));
    expectError(await post(CONFIRM_EMAIL, { token: token.slice(0, -2) + 'xx' }), 400, 'INVALID_ARGUMENT', { field: 'token' });
    expect((await post(CONFIRM_EMAIL, { token })).statusCode).toBe(200);
    expectError(await post(CONFIRM_EMAIL, { token }), 400, 'INVALID_ARGUMENT', { field: 'token' });

    const later = `later-${Date.now()}@example.com`;
    await post(`${API}/users/me:change_email`, { new_email: later, current_password: user.password }, { token: user.token });
    const expiring = smtp.tokenFrom(await smtp.nextMail(later));
    await t.fresh.database.db.updateTable('user_tokens').set({ expire_time: Date.now() - 1 }).where('user_id', '=', user.userId).where('purpose', '=', 'EMAIL_CHANGE').execute();
    expectError(await post(CONFIRM_EMAIL, { token: expiring }), 400, 'INVALID_ARGUMENT', { field: 'token' });
  });

  it('concurrent double use of one confirmation token: exactly one wins', async () => {
    const user = await t.signUp();
    const newEmail = `twice-${Date.now()}@example.com`;
    await post(`${API}/users/me:change_email`, { new_email: newEmail, current_password: user.password }, { token: user.token });
    const token = smtp.tokenFrom(await smtp.nextMail(newEmail));
    const answers = await Promise.all([post(CONFIRM_EMAIL, { token }), post(CONFIRM_EMAIL, { token })]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    expect((await me(user.token)).json().email).toBe(newEmail);
  });

  it('a password reset token is no email confirmation token (and the other way round)', async () => {
    const user = await t.signUp();
    const reset = await resetToken(user);
    expectError(await post(CONFIRM_EMAIL, { token: reset }), 400, 'INVALID_ARGUMENT', { field: 'token' });
  });
});

describe('secrets', () => {
  it('passwords and one-time tokens never appear in answers or logs', async () => {
    const user = await t.signUp();
    const token = await resetToken(user);
    const answers = [
      await post(RESET, { token, new_password: 'secret-new-pass-77' }),
      await post(`${API}/users/me:change_password`, { current_password: 'secret-new-pass-77', new_password: 'secret-newer-pass-88' }, { token: (await signIn(user.email, 'secret-new-pass-77')).json().token }),
    ];
    for (const res of answers) {
      expect(res.statusCode, res.body).toBe(200);
      for (const secret of [token, 'secret-new-pass-77', 'secret-newer-pass-88']) expect(res.body).not.toContain(secret);
    }
    const logs = logLines.join('\n');
    for (const secret of [token, user.password, 'secret-new-pass-77', 'secret-newer-pass-88']) expect(logs).not.toContain(secret);
  });
});
