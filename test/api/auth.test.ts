/**
 * Sign-in (`users:authenticate`), bearer tokens, `users:refresh_token` and `users:sign_out_everywhere`
 * (SPEC 4.3, 5; RUNTIME.md), driven through HTTP against the real platform.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { TENANT, eventually, expectError, expectRateLimited } from '../support/fixtures-auth.js';

const AUTHENTICATE = `${TENANT}/users:authenticate`;

let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp({ email: `Alice-${randomUUID().slice(0, 8)}@Example.COM`, password: 'alice-password-1' });
});
afterAll(() => t?.close());

const uniqueEmail = (tag: string) => `${tag}-${randomUUID().slice(0, 8)}@example.com`;

function signIn(email: unknown, password: unknown, remoteAddress?: string) {
  if (remoteAddress) {
    return t.app.inject({ method: 'POST', url: AUTHENTICATE, remoteAddress, payload: { email, password } }) as Promise<any>;
  }
  return t.request('POST', AUTHENTICATE, { body: { email, password } });
}

/** Whether `token` is accepted by an authenticated route. */
async function accepted(token: string, scheme = 'Bearer'): Promise<boolean> {
  const res = await t.request('GET', `${TENANT}/accounts`, { headers: { authorization: `${scheme} ${token}` } });
  if (res.statusCode === 200) return true;
  expectError(res, 401, 'UNAUTHENTICATED');
  return false;
}

function expectNoPassword(res: { body: string }, password: string) {
  expect(res.body).not.toContain(password);
}

describe('users:authenticate', () => {
  it('answers 200 with a working bearer token and its expire_time for the right password', async () => {
    const res = await signIn(alice.email, alice.password);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expire_time', 'token']);
    expect(typeof body.token).toBe('string');
    expect(body.token.split('.')).toHaveLength(3);
    expect(Date.parse(body.expire_time)).toBeGreaterThan(Date.now());
    expect(body.expire_time).toMatch(/Z$/);
    expectNoPassword(res, alice.password);
    expect(await accepted(body.token)).toBe(true);
  });

  it('answers 401 UNAUTHENTICATED with the same message for a wrong password and an unknown email (no account enumeration)', async () => {
    const wrong = await signIn(alice.email, 'wrong-password-1');
    const unknown = await signIn(uniqueEmail('nobody'), 'wrong-password-1');
    const a = expectError(wrong, 401, 'UNAUTHENTICATED');
    const b = expectError(unknown, 401, 'UNAUTHENTICATED');
    expect(a.message).toBe(b.message);
    expect(a.details.map((d: any) => d.type)).toEqual(b.details.map((d: any) => d.type));
    expectNoPassword(wrong, 'wrong-password-1');
    expectNoPassword(unknown, 'wrong-password-1');
  });

  it('matches the email case-insensitively and ignores surrounding spaces', async () => {
    for (const variant of [alice.email.toUpperCase(), alice.email.toLowerCase(), `  ${alice.email}  `]) {
      const res = await signIn(variant, alice.password);
      expect(res.statusCode, `${variant}: ${res.body}`).toBe(200);
    }
  });

  it('does not trim or case-fold the password', async () => {
    expectError(await signIn(alice.email, ` ${alice.password}`), 401, 'UNAUTHENTICATED');
    expectError(await signIn(alice.email, alice.password.toUpperCase()), 401, 'UNAUTHENTICATED');
  });

  it('answers 400 INVALID_ARGUMENT naming a missing field', async () => {
    expectError(await t.request('POST', AUTHENTICATE, { body: { email: alice.email } }), 400, 'INVALID_ARGUMENT', { field: 'password' });
    const res = await t.request('POST', AUTHENTICATE, { body: { password: alice.password } });
    expectError(res, 400, 'INVALID_ARGUMENT', { field: 'email' });
    expectNoPassword(res, alice.password);
    const both = expectError(await t.request('POST', AUTHENTICATE, { body: {} }), 400, 'INVALID_ARGUMENT');
    expect(both.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field).sort()).toEqual(['email', 'password']);
  });

  it('answers 400 INVALID_ARGUMENT naming a field of the wrong type, never echoing the password', async () => {
    expectError(await signIn(42, alice.password), 400, 'INVALID_ARGUMENT', { field: 'email' });
    const res = await signIn(alice.email, [alice.password]);
    expectError(res, 400, 'INVALID_ARGUMENT', { field: 'password' });
    expectNoPassword(res, alice.password);
    expectError(await signIn(alice.email, ''), 400, 'INVALID_ARGUMENT', { field: 'password' });
  });

  it('answers 400 INVALID_ARGUMENT naming an unknown field', async () => {
    const res = await t.request('POST', AUTHENTICATE, { body: { email: alice.email, password: alice.password, remember_me: true } });
    expectError(res, 400, 'INVALID_ARGUMENT', { field: 'remember_me' });
    expectNoPassword(res, alice.password);
  });

  it('answers 400 INVALID_ARGUMENT for a body that is not a JSON object', async () => {
    expectError(await t.request('POST', AUTHENTICATE, { body: '{"email": ' }), 400, 'INVALID_ARGUMENT');
    expectError(await t.request('POST', AUTHENTICATE, { body: [alice.email, alice.password] }), 400, 'INVALID_ARGUMENT');
    expectError(await t.request('POST', AUTHENTICATE), 400, 'INVALID_ARGUMENT');
  });

  it('refuses an email after 10 failed attempts with 429 RESOURCE_EXHAUSTED, RETRY_INFO and Retry-After, even with the right password', async () => {
    const bob = await t.signUp({ email: uniqueEmail('bob'), password: 'bob-password-1' });
    for (let i = 0; i < 10; i++) expectError(await signIn(bob.email, `wrong-${i}-password`), 401, 'UNAUTHENTICATED');
    const refused = await signIn(bob.email, 'wrong-10-password');
    expectRateLimited(refused, 15 * 60);
    // The limit is per email, whatever its spelling, and holds for the right password too (no brute force past it).
    const right = await signIn(`  ${bob.email.toUpperCase()} `, bob.password);
    expectRateLimited(right, 15 * 60);
    expectNoPassword(right, bob.password);
    // Other emails are unaffected.
    expect((await signIn(alice.email, alice.password)).statusCode).toBe(200);
  });

  it('resets the failure count of an email after a successful sign-in', async () => {
    const carol = await t.signUp({ email: uniqueEmail('carol'), password: 'carol-password-1' });
    for (let i = 0; i < 9; i++) expectError(await signIn(carol.email, `wrong-${i}-password`), 401, 'UNAUTHENTICATED');
    expect((await signIn(carol.email, carol.password)).statusCode).toBe(200);
    // After the reset, ten more failures are allowed before the limit.
    for (let i = 0; i < 10; i++) expectError(await signIn(carol.email, `again-${i}-password`), 401, 'UNAUTHENTICATED');
    expectRateLimited(await signIn(carol.email, carol.password), 15 * 60);
  });

  it('limits failed attempts per client address as well (100 per 15 min), leaving other addresses alone', async () => {
    const address = '10.77.0.1';
    for (let i = 0; i < 100; i++) {
      const res = await signIn(`probe-${i}-${randomUUID().slice(0, 6)}@example.com`, 'wrong-password-1', address);
      expectError(res, 401, 'UNAUTHENTICATED');
    }
    expectRateLimited(await signIn(uniqueEmail('fresh'), 'wrong-password-1', address), 15 * 60);
    expect((await signIn(alice.email, alice.password, '10.77.0.2')).statusCode).toBe(200);
  }, 120_000);
});

describe('bearer tokens', () => {
  const accounts = `${TENANT}/accounts`;

  async function validToken(): Promise<string> {
    const res = await signIn(alice.email, alice.password);
    expect(res.statusCode).toBe(200);
    return res.json().token;
  }

  const nowSeconds = () => Math.floor(Date.now() / 1000);

  it('accepts a valid token (scheme case-insensitive)', async () => {
    const token = await validToken();
    expect(await accepted(token)).toBe(true);
    expect(await accepted(token, 'bearer')).toBe(true);
  });

  it('answers 401 UNAUTHENTICATED without an Authorization header', async () => {
    expectError(await t.request('GET', accounts), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for a token in the query string instead of the header', async () => {
    const token = await validToken();
    expectError(await t.request('GET', `${accounts}?access_token=${token}`), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for a scheme other than Bearer', async () => {
    const token = await validToken();
    expectError(await t.request('GET', accounts, { headers: { authorization: `Basic ${token}` } }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', accounts, { headers: { authorization: token } }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', accounts, { headers: { authorization: 'Bearer' } }), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for a malformed JWT', async () => {
    for (const bad of ['not-a-jwt', 'a.b.c', 'eyJhbGciOiJIUzI1NiJ9.e30.', `${(await validToken()).slice(0, -4)}AAAA`]) {
      expectError(await t.request('GET', accounts, { token: bad }), 401, 'UNAUTHENTICATED');
    }
  });

  it('answers 401 UNAUTHENTICATED for a JWT signed with another secret', async () => {
    const forged = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('siteplatform')
      .setExpirationTime(nowSeconds() + 600)
      .sign(new TextEncoder().encode('some-other-secret-of-enough-length'));
    const withSub = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(alice.userId)
      .setIssuer('siteplatform')
      .setExpirationTime(nowSeconds() + 600)
      .sign(new TextEncoder().encode('some-other-secret-of-enough-length'));
    expectError(await t.request('GET', accounts, { token: forged }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', accounts, { token: withSub }), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for an expired token signed with the right secret', async () => {
    const expired = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(alice.userId)
      .setIssuer('siteplatform')
      .setIssuedAt(nowSeconds() - 7200)
      .setExpirationTime(nowSeconds() - 3600)
      .sign(t.config.jwtSecret);
    // The same claims, still valid, are accepted: only the expiry makes the difference.
    const fresh = await new SignJWT({ ver: 0 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(alice.userId)
      .setIssuer('siteplatform')
      .setIssuedAt()
      .setExpirationTime(nowSeconds() + 600)
      .sign(t.config.jwtSecret);
    expect(await accepted(fresh)).toBe(true);
    expectError(await t.request('GET', accounts, { token: expired }), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED for a right-secret token with the wrong issuer, algorithm or claims', async () => {
    const exp = nowSeconds() + 600;
    const cases = [
      await new SignJWT({ ver: 0 }).setProtectedHeader({ alg: 'HS256' }).setSubject(alice.userId).setIssuer('someone-else').setExpirationTime(exp).sign(t.config.jwtSecret),
      await new SignJWT({ ver: 0 }).setProtectedHeader({ alg: 'HS512' }).setSubject(alice.userId).setIssuer('siteplatform').setExpirationTime(exp).sign(t.config.jwtSecret),
      await new SignJWT({ ver: '0' }).setProtectedHeader({ alg: 'HS256' }).setSubject(alice.userId).setIssuer('siteplatform').setExpirationTime(exp).sign(t.config.jwtSecret),
      await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(alice.userId).setIssuer('siteplatform').setExpirationTime(exp).sign(t.config.jwtSecret),
      await new SignJWT({ ver: 0 }).setProtectedHeader({ alg: 'HS256' }).setSubject(alice.userId).setIssuer('siteplatform').sign(t.config.jwtSecret),
      await new SignJWT({ ver: 0 }).setProtectedHeader({ alg: 'HS256' }).setSubject('no-such-user').setIssuer('siteplatform').setExpirationTime(exp).sign(t.config.jwtSecret),
    ];
    // An unsigned token (alg none) is never accepted either.
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: alice.userId, ver: 0, iss: 'siteplatform', exp })).toString('base64url');
    cases.push(`${header}.${payload}.`);
    for (const token of cases) expectError(await t.request('GET', accounts, { token }), 401, 'UNAUTHENTICATED');
  });

  it('answers 401 UNAUTHENTICATED once a token outlives TOKEN_LIFETIME_SECONDS', async () => {
    const short = await startTestApp({ TOKEN_LIFETIME_SECONDS: '1' });
    try {
      const user = await short.signUp();
      const res = await short.request('POST', AUTHENTICATE, { body: { email: user.email, password: user.password } });
      expect(res.statusCode).toBe(200);
      const { token, expire_time } = res.json();
      // Generous bound: the token must stop working after its lifetime (checked by polling, not by timing).
      const last = await eventually(async () => {
        const r = await short.request('GET', `${TENANT}/accounts`, { token });
        return r.statusCode === 401 ? r : undefined;
      }, 'the short-lived token to expire', 10_000);
      expectError(last, 401, 'UNAUTHENTICATED');
      // It never stops working before the expire_time it was announced with.
      expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expire_time));
    } finally {
      await short.close();
    }
  });

  it('answers 401 UNAUTHENTICATED for the token of a deleted user', async () => {
    const dora = await t.signUp();
    // No user-deletion endpoint exists yet (the profile area will add `:delete_account`): delete the row.
    await t.fresh.database.db.deleteFrom('users').where('id', '=', dora.userId).execute();
    expectError(await t.request('GET', accounts, { token: dora.token }), 401, 'UNAUTHENTICATED');
    expectError(await t.request('POST', `${TENANT}/users:refresh_token`, { token: dora.token }), 401, 'UNAUTHENTICATED');
  });
});

describe('users:refresh_token', () => {
  it('answers a new working token with a full lifetime', async () => {
    const first = (await signIn(alice.email, alice.password)).json();
    const res = await t.request('POST', `${TENANT}/users:refresh_token`, { token: first.token });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['expire_time', 'token']);
    expect(Date.parse(body.expire_time)).toBeGreaterThanOrEqual(Date.parse(first.expire_time));
    expect(await accepted(body.token)).toBe(true);
    // The old token keeps working until it expires.
    expect(await accepted(first.token)).toBe(true);
  });

  it('answers 401 UNAUTHENTICATED without a valid token', async () => {
    expectError(await t.request('POST', `${TENANT}/users:refresh_token`), 401, 'UNAUTHENTICATED');
    expectError(await t.request('POST', `${TENANT}/users:refresh_token`, { token: 'garbage' }), 401, 'UNAUTHENTICATED');
  });
});

describe('users:sign_out_everywhere', () => {
  it('makes every previously issued token answer 401 at once, while a new sign-in works', async () => {
    const erin = await t.signUp({ email: uniqueEmail('erin'), password: 'erin-password-1' });
    const one = (await signIn(erin.email, erin.password)).json().token;
    const refreshed = (await t.request('POST', `${TENANT}/users:refresh_token`, { token: one })).json().token;
    for (const token of [erin.token, one, refreshed]) expect(await accepted(token)).toBe(true);

    const res = await t.request('POST', `${TENANT}/users:sign_out_everywhere`, { token: one });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});

    for (const token of [erin.token, one, refreshed]) {
      expectError(await t.request('GET', `${TENANT}/accounts`, { token }), 401, 'UNAUTHENTICATED');
    }
    expectError(await t.request('POST', `${TENANT}/users:refresh_token`, { token: refreshed }), 401, 'UNAUTHENTICATED');

    const again = await signIn(erin.email, erin.password);
    expect(again.statusCode).toBe(200);
    expect(await accepted(again.json().token)).toBe(true);
    // Other users' tokens are untouched.
    expect(await accepted(alice.token)).toBe(true);
  });

  it('answers 401 UNAUTHENTICATED without a valid token', async () => {
    expectError(await t.request('POST', `${TENANT}/users:sign_out_everywhere`), 401, 'UNAUTHENTICATED');
  });
});
