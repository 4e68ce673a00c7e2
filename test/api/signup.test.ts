/**
 * The unauthenticated sign-up surface (`/site-api/v1`, SPEC 4.3, RUNTIME.md): bot check, email availability,
 * sign-up with its provisioning Operation, the one-time hand-off, idempotency and the per-address rate limit.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import {
  CAPTCHA,
  SITE,
  TENANT,
  countRows,
  enqueueTest,
  expectError,
  expectRateLimited,
  installTestHandlers,
  type TestHandlers,
} from '../support/fixtures-auth.js';

let t: TestApp;
let handlers: TestHandlers;

beforeAll(async () => {
  t = await startTestApp();
  handlers = installTestHandlers(t.platform.operations);
});
afterAll(() => t?.close());

const uniqueEmail = (tag = 'user') => `${tag}-${randomUUID().slice(0, 8)}@example.com`;
const PASSWORD = 'sign-up-password-7';

function signUpBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { email: uniqueEmail(), password: PASSWORD, website_name: 'My Bakery', default_language: 'en', captcha_token: CAPTCHA, ...overrides };
}
const postSignUp = (body: unknown) => t.request('POST', `${SITE}/users`, { body });
const checkEmail = (body: unknown) => t.request('POST', `${SITE}/users:check_email_availability`, { body });
/** `captcha` null sends no captcha_token at all. */
const pollSignup = (signupToken: string, captcha: string | null = CAPTCHA) =>
  t.request('GET', `${SITE}/operations/${encodeURIComponent(signupToken)}${captcha === null ? '' : `?captcha_token=${encodeURIComponent(captcha)}`}`);
const exchange = (signupToken: unknown) => t.request('POST', `${TENANT}/users:exchange_handoff`, { body: { signup_token: signupToken } });

/** Polls the sign-up Operation on the sign-up surface until done. */
async function waitSignupOperation(signupToken: string): Promise<any> {
  for (let i = 0; i < 500; i++) {
    const res = await pollSignup(signupToken);
    expect(res.statusCode, res.body).toBe(200);
    if (res.json().done) return res.json();
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('sign-up operation did not finish');
}

describe('users:check_email_availability', () => {
  it('answers available true for an unused email and false for a used one, matching case-insensitively', async () => {
    const email = uniqueEmail('taken');
    let res = await checkEmail({ email, captcha_token: CAPTCHA });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ available: true });

    await t.signUp({ email });
    expect((await checkEmail({ email, captcha_token: CAPTCHA })).json()).toEqual({ available: false });
    res = await checkEmail({ email: email.toUpperCase(), captcha_token: CAPTCHA });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ available: false });
  });

  it('is a question, not a reservation: asking twice and then signing up works', async () => {
    const email = uniqueEmail('ask');
    expect((await checkEmail({ email, captcha_token: CAPTCHA })).json()).toEqual({ available: true });
    expect((await checkEmail({ email, captcha_token: CAPTCHA })).json()).toEqual({ available: true });
    expect((await postSignUp(signUpBody({ email }))).statusCode).toBe(201);
  });

  it('answers 400 INVALID_ARGUMENT naming captcha_token when it is missing or empty', async () => {
    expectError(await checkEmail({ email: uniqueEmail() }), 400, 'INVALID_ARGUMENT', { field: 'captcha_token' });
    expectError(await checkEmail({ email: uniqueEmail(), captcha_token: '' }), 400, 'INVALID_ARGUMENT', { field: 'captcha_token' });
  });

  it('answers 403 PERMISSION_DENIED with reason CAPTCHA_FAILED for a wrong captcha_token', async () => {
    expectError(await checkEmail({ email: uniqueEmail(), captcha_token: 'wrong' }), 403, 'PERMISSION_DENIED', { reason: 'CAPTCHA_FAILED' });
  });

  it('answers 400 INVALID_ARGUMENT naming a malformed email or an unknown field', async () => {
    expectError(await checkEmail({ email: 'not-an-email', captcha_token: CAPTCHA }), 400, 'INVALID_ARGUMENT', { field: 'email' });
    expectError(await checkEmail({ email: 7, captcha_token: CAPTCHA }), 400, 'INVALID_ARGUMENT', { field: 'email' });
    expectError(await checkEmail({ email: uniqueEmail(), captcha_token: CAPTCHA, reserve: true }), 400, 'INVALID_ARGUMENT', { field: 'reserve' });
  });
});

describe('POST users (sign-up)', () => {
  it('answers 201 with the user, account_id, a one-time signup_token and the provisioning operation name, never the password', async () => {
    const email = `New.Person-${randomUUID().slice(0, 8)}@Example.COM`;
    const res = await postSignUp(signUpBody({ email, request_id: randomUUID() }));
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body.id).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(body.name).toBe(`users/${body.id}`);
    expect(body.email).toBe(email.toLowerCase());
    expect(Date.parse(body.create_time)).not.toBeNaN();
    expect(Date.parse(body.update_time)).not.toBeNaN();
    expect(typeof body.account_id).toBe('string');
    expect(typeof body.signup_token).toBe('string');
    expect(body.signup_token.length).toBeGreaterThanOrEqual(32);
    expect(body.operation).toMatch(/^websites\/[^/]+\/operations\/[^/]+$/);
    expect(body).not.toHaveProperty('password');
    expect(body).not.toHaveProperty('password_hash');
    expect(res.body).not.toContain(PASSWORD);
    // The email is stored lowercase: sign-in works with the address as typed.
    const signIn = await t.request('POST', `${TENANT}/users:authenticate`, { body: { email, password: PASSWORD } });
    expect(signIn.statusCode).toBe(200);
  });

  it('creates user, account (caller administrator), project and website in one step', async () => {
    const res = await postSignUp(signUpBody({ website_name: '  Corner Shop  ', default_language: 'de' }));
    expect(res.statusCode, res.body).toBe(201);
    const answer = res.json();
    const token = (await exchange(answer.signup_token)).json().token;
    const websiteId = answer.operation.split('/')[1];

    const account = await t.request('GET', `${TENANT}/accounts/${answer.account_id}`, { token });
    expect(account.statusCode).toBe(200);
    expect(account.json().display_name).toBe('Corner Shop');
    const membership = await t.fresh.database.db.selectFrom('memberships').selectAll().where('account_id', '=', answer.account_id).execute();
    expect(membership).toMatchObject([{ user_id: answer.id, role: 'administrator' }]);

    const projects = (await t.request('GET', `${TENANT}/accounts/${answer.account_id}/projects`, { token })).json();
    expect(projects.total_size).toBe(1);
    const websites = (await t.request('GET', `${TENANT}/projects/${projects.projects[0].id}/websites`, { token })).json();
    expect(websites.total_size).toBe(1);
    expect(websites.websites[0]).toMatchObject({ id: websiteId, display_name: 'Corner Shop', default_language: 'de', operation: answer.operation });
  });

  it('exposes the provisioning Operation on the sign-up surface (type PROVISION_WEBSITE, a step) until done with response.website_url', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    const first = await pollSignup(answer.signup_token);
    expect(first.statusCode, first.body).toBe(200);
    const op = first.json();
    expect(op.name).toBe(answer.operation);
    expect(op.metadata.type).toBe('PROVISION_WEBSITE');
    expect(typeof op.metadata.step).toBe('string');
    expect(op.metadata.step.length).toBeGreaterThan(0);
    expect(op).not.toHaveProperty('etag');

    const done = await waitSignupOperation(answer.signup_token);
    expect(done.name).toBe(answer.operation);
    expect(done).not.toHaveProperty('error');
    expect(done.response.website_url).toMatch(/^https?:\/\/[a-z0-9-]+\.localhost$/);
    expect(done.metadata.type).toBe('PROVISION_WEBSITE');
    expect(typeof done.metadata.step).toBe('string');
  });

  it('names the Operation websites/{w}/operations/{o}, readable on the tenant surface at that name too', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    const token = (await exchange(answer.signup_token)).json().token;
    const done = await t.waitForOperation(answer.operation, token);
    expect(done.name).toBe(answer.operation);
    expect(done.response.website_url).toMatch(/^https?:\/\//);
    const viaSite = await waitSignupOperation(answer.signup_token);
    expect(viaSite).toEqual(done);
    // Polling the sign-up surface keeps working after the hand-off was exchanged.
    expect((await pollSignup(answer.signup_token)).statusCode).toBe(200);
  });

  it('keeps the website PENDING while its provisioning Operation has not run, then ACTIVE once it is done', async () => {
    // Occupy the in-process worker with test Operations queued ahead of the sign-up, so the provisioning
    // Operation cannot start before we looked at it.
    const blockers = ['block-a', 'block-b', 'block-c', 'block-d'];
    for (const key of blockers) {
      await enqueueTest(t.platform.operations, t.fresh.database.db, { type: 'TEST_WAIT', accountId: 'test-blocker', payload: { key } }, Date.now() - 60_000);
    }
    await handlers.waitStarted('block-a');
    try {
      const answer = (await postSignUp(signUpBody())).json();
      const token = (await exchange(answer.signup_token)).json().token;
      const websiteId = answer.operation.split('/')[1];

      const website = await t.request('GET', `${TENANT}/websites/${websiteId}`, { token });
      expect(website.statusCode).toBe(200);
      expect(website.json().provisioning_status).toBe('PENDING');
      const pending = (await pollSignup(answer.signup_token)).json();
      expect(pending).toMatchObject({ name: answer.operation, done: false, metadata: { type: 'PROVISION_WEBSITE' } });
      expect(typeof pending.metadata.step).toBe('string');
      expect(pending).not.toHaveProperty('response');
      expect(pending).not.toHaveProperty('error');

      for (const key of blockers) handlers.release(key);
      const done = await t.waitForOperation(answer.operation, token);
      expect(done.response).toMatchObject({ id: websiteId, provisioning_status: 'ACTIVE' });
      expect((await t.request('GET', `${TENANT}/websites/${websiteId}`, { token })).json().provisioning_status).toBe('ACTIVE');
    } finally {
      for (const key of blockers) handlers.release(key);
    }
  });

  it('answers 409 ALREADY_EXISTS naming email for an email already signed up, in any case', async () => {
    const email = uniqueEmail('dup');
    expect((await postSignUp(signUpBody({ email }))).statusCode).toBe(201);
    const before = await countRows(t.fresh.database.db);
    expectError(await postSignUp(signUpBody({ email })), 409, 'ALREADY_EXISTS', { field: 'email' });
    expectError(await postSignUp(signUpBody({ email: email.toUpperCase() })), 409, 'ALREADY_EXISTS', { field: 'email' });
    expect(await countRows(t.fresh.database.db)).toEqual(before);
  });

  it('answers 400 INVALID_ARGUMENT naming password for a weak password (short, no digit, no letter), creating nothing', async () => {
    const before = await countRows(t.fresh.database.db);
    for (const password of ['xyz9', 'qwerty7', 'only-letters-here', '1234567890', '12345678!!']) {
      const res = await postSignUp(signUpBody({ password }));
      expectError(res, 400, 'INVALID_ARGUMENT', { field: 'password' });
      expect(res.body).not.toContain(password);
    }
    expect(await countRows(t.fresh.database.db)).toEqual(before);
  });

  it('answers 400 INVALID_ARGUMENT naming the field for bad input, creating nothing', async () => {
    const before = await countRows(t.fresh.database.db);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ default_language: 'english!' }, 'default_language'],
      [{ default_language: '' }, 'default_language'],
      [{ website_name: '   ' }, 'website_name'],
      [{ website_name: '' }, 'website_name'],
      [{ website_name: 'x'.repeat(256) }, 'website_name'],
      [{ email: 'no-at-sign' }, 'email'],
      [{ email: 12 }, 'email'],
      [{ password: 12345678 }, 'password'],
      [{ website_name: ['Shop'] }, 'website_name'],
      [{ default_language: true }, 'default_language'],
      [{ request_id: 5 }, 'request_id'],
      [{ request_id: 'r'.repeat(65) }, 'request_id'],
      [{ plan: 'gold' }, 'plan'],
      [{ display_name: 'Me' }, 'display_name'],
    ];
    for (const [overrides, field] of cases) {
      const res = await postSignUp(signUpBody(overrides));
      expectError(res, 400, 'INVALID_ARGUMENT', { field });
      expect(res.body).not.toContain(PASSWORD);
    }
    for (const missing of ['email', 'password', 'website_name', 'default_language']) {
      const body = signUpBody();
      delete body[missing];
      expectError(await postSignUp(body), 400, 'INVALID_ARGUMENT', { field: missing });
    }
    expect(await countRows(t.fresh.database.db)).toEqual(before);
  });

  it('answers 400 naming captcha_token when missing and 403 CAPTCHA_FAILED when wrong, creating nothing', async () => {
    const before = await countRows(t.fresh.database.db);
    const body = signUpBody();
    delete body.captcha_token;
    expectError(await postSignUp(body), 400, 'INVALID_ARGUMENT', { field: 'captcha_token' });
    expectError(await postSignUp(signUpBody({ captcha_token: 'bot' })), 403, 'PERMISSION_DENIED', { reason: 'CAPTCHA_FAILED' });
    expect(await countRows(t.fresh.database.db)).toEqual(before);
  });

  it('is idempotent on request_id: a repeat answers the first result (same user, account and operation) and creates nothing more', async () => {
    const body = signUpBody({ request_id: randomUUID() });
    const first = await postSignUp(body);
    expect(first.statusCode, first.body).toBe(201);
    const afterFirst = await countRows(t.fresh.database.db);
    const second = await postSignUp(body);
    expect(second.statusCode, second.body).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(await countRows(t.fresh.database.db)).toEqual(afterFirst);
    const users = await t.fresh.database.db.selectFrom('users').select('id').where('email', '=', String(body.email)).execute();
    expect(users).toHaveLength(1);
    // The repeated answer's signup_token is the first one: it can be exchanged (once).
    expect((await exchange(second.json().signup_token)).statusCode).toBe(200);
    expectError(await exchange(first.json().signup_token), 401, 'UNAUTHENTICATED');
  });

  it('is idempotent on request_id under concurrent repeats: one user, one answer', async () => {
    const body = signUpBody({ request_id: randomUUID() });
    const before = await countRows(t.fresh.database.db, ['users', 'accounts', 'websites']);
    const answers = await Promise.all([postSignUp(body), postSignUp(body), postSignUp(body)]);
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const [a, ...rest] = answers.map((r) => r.json());
    for (const other of rest) expect(other).toEqual(a);
    const after = await countRows(t.fresh.database.db, ['users', 'accounts', 'websites']);
    expect(after).toEqual({ users: before.users + 1, accounts: before.accounts + 1, websites: before.websites + 1 });
  });

  it('creates one user when the same email signs up concurrently; the others answer 409 ALREADY_EXISTS naming email', async () => {
    const email = uniqueEmail('race');
    const before = await countRows(t.fresh.database.db);
    const answers = await Promise.all([1, 2, 3].map(() => postSignUp(signUpBody({ email }))));
    const created = answers.filter((r) => r.statusCode === 201);
    expect(created).toHaveLength(1);
    for (const res of answers.filter((r) => r.statusCode !== 201)) expectError(res, 409, 'ALREADY_EXISTS', { field: 'email' });
    const after = await countRows(t.fresh.database.db);
    for (const table of ['users', 'accounts', 'projects', 'websites', 'operations', 'signup_handoffs']) expect(after[table]).toBe(before[table] + 1);
  });

  it('answers 409 ALREADY_EXISTS for the same email under a different request_id', async () => {
    const body = signUpBody({ request_id: randomUUID() });
    expect((await postSignUp(body)).statusCode).toBe(201);
    expectError(await postSignUp({ ...body, request_id: randomUUID() }), 409, 'ALREADY_EXISTS', { field: 'email' });
  });
});

describe('GET operations/{signup_token} (sign-up surface)', () => {
  it('requires captcha_token as a query parameter: missing → 400 naming it, wrong → 403 CAPTCHA_FAILED', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    expectError(await pollSignup(answer.signup_token, null), 400, 'INVALID_ARGUMENT', { field: 'captcha_token' });
    expectError(await pollSignup(answer.signup_token, 'nope'), 403, 'PERMISSION_DENIED', { reason: 'CAPTCHA_FAILED' });
  });

  it('answers 404 NOT_FOUND for an unknown or expired signup_token', async () => {
    expectError(await pollSignup('no-such-token'), 404, 'NOT_FOUND');
    const answer = (await postSignUp(signUpBody())).json();
    await t.fresh.database.db.updateTable('signup_handoffs').set({ expire_time: Date.now() - 1 }).where('user_id', '=', answer.id).execute();
    expectError(await pollSignup(answer.signup_token), 404, 'NOT_FOUND');
  });
});

describe('users:exchange_handoff', () => {
  it('trades the signup_token for a bearer token once; a second exchange answers 401', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    const res = await exchange(answer.signup_token);
    expect(res.statusCode, res.body).toBe(200);
    expect(typeof res.json().token).toBe('string');
    expect(Date.parse(res.json().expire_time)).toBeGreaterThan(Date.now());
    expectError(await exchange(answer.signup_token), 401, 'UNAUTHENTICATED');
  });

  it('lets exactly one of several concurrent exchanges of one signup_token succeed', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    const answers = await Promise.all([1, 2, 3, 4].map(() => exchange(answer.signup_token)));
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(1);
    for (const res of answers.filter((r) => r.statusCode !== 200)) expectError(res, 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for an unknown or expired signup_token', async () => {
    expectError(await exchange('definitely-not-a-token'), 401, 'UNAUTHENTICATED');
    const answer = (await postSignUp(signUpBody())).json();
    await t.fresh.database.db.updateTable('signup_handoffs').set({ expire_time: Date.now() - 1 }).where('user_id', '=', answer.id).execute();
    expectError(await exchange(answer.signup_token), 401, 'UNAUTHENTICATED');
  });

  it('answers 400 INVALID_ARGUMENT naming signup_token when it is missing, empty or not a string', async () => {
    expectError(await t.request('POST', `${TENANT}/users:exchange_handoff`, { body: {} }), 400, 'INVALID_ARGUMENT', { field: 'signup_token' });
    expectError(await exchange(''), 400, 'INVALID_ARGUMENT', { field: 'signup_token' });
    expectError(await exchange(42), 400, 'INVALID_ARGUMENT', { field: 'signup_token' });
  });

  it('gives a token that lists exactly the new account', async () => {
    const answer = (await postSignUp(signUpBody())).json();
    const token = (await exchange(answer.signup_token)).json().token;
    const res = await t.request('GET', `${TENANT}/accounts`, { token });
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(list.total_size).toBe(1);
    expect(list.accounts.map((a: any) => a.id)).toEqual([answer.account_id]);
    expect(list.accounts[0].name).toBe(`accounts/${answer.account_id}`);
  });
});

describe('sign-up rate limit (SIGNUP_RATE_LIMIT)', () => {
  it('answers the request past the per-minute limit of one address with 429 RESOURCE_EXHAUSTED, RETRY_INFO and Retry-After', async () => {
    const limited = await startTestApp({ SIGNUP_RATE_LIMIT: '3' });
    try {
      const ask = (remoteAddress?: string) =>
        limited.app.inject({
          method: 'POST',
          url: `${SITE}/users:check_email_availability`,
          ...(remoteAddress ? { remoteAddress } : {}),
          payload: { email: uniqueEmail(), captcha_token: CAPTCHA },
        });
      // Every call of the surface counts, whatever its outcome (here: a sign-up refused for a weak password).
      const refused = await limited.request('POST', `${SITE}/users`, { body: signUpBody({ password: 'weak' }) });
      expect(refused.statusCode).toBe(400);
      for (let i = 0; i < 2; i++) {
        const res = await ask();
        expect(res.statusCode).toBe(200);
        // The RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): 3 per 60 s, counting down.
        expect(res.headers['ratelimit-policy']).toBe('"signup";q=3;w=60');
        const [, left, reset] = /^"signup";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit)) ?? [];
        expect(Number(left)).toBe(1 - i);
        expect(Number(reset)).toBeGreaterThan(0);
        expect(Number(reset)).toBeLessThanOrEqual(60);
      }
      const fourth = await ask();
      expectRateLimited(fourth as never, 60);
      expect(fourth.headers.ratelimit).toMatch(/^"signup";r=0;t=\d+$/);
      // Polling and sign-up are counted by the same limit.
      expectRateLimited((await limited.request('POST', `${SITE}/users`, { body: signUpBody() })) as never, 60);
      // Another address has its own budget; the tenant surface is not limited by it.
      expect((await ask('10.1.2.3')).statusCode).toBe(200);
      const signIn = await limited.request('POST', `${TENANT}/users:authenticate`, { body: { email: uniqueEmail(), password: 'whatever-1' } });
      expect(signIn.statusCode).toBe(401);
    } finally {
      await limited.close();
    }
  });
});
