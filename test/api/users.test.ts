import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type Platform } from '../../src/app.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError } from '../support/fixtures-auth.js';
import { expectShape } from '../support/fixtures.js';

const API = '/tenant-api/v1';
const AUTHENTICATE = `${API}/users:authenticate`;

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
});
afterAll(() => t?.close());

async function signIn(user: TestUser, app: TestApp = t): Promise<string> {
  const res = await app.request('POST', AUTHENTICATE, { body: { email: user.email, password: user.password } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().token;
}

describe('users/{user}', () => {
  it('answers the signed-in user (name, id, email, etag, timestamps), never the password', async () => {
    const res = await t.request('GET', `${API}/users/${alice.userId}`, { token: alice.token });
    expect(res.statusCode, res.body).toBe(200);
    const user = res.json();
    expect(user).toMatchObject({ name: `users/${alice.userId}`, id: alice.userId, email: alice.email });
    expect(typeof user.etag).toBe('string');
    expect(res.headers.etag).toBe(`"${user.etag}"`);
    expect(res.body).not.toContain(alice.password);
    expect(res.body).not.toContain('password_hash');
    expect(res.body).not.toContain('token_version');
    await expectShape(t, 'GetUser', 200, user);
  });

  it('users/me is the signed-in user', async () => {
    const res = await t.request('GET', `${API}/users/me`, { token: alice.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().name).toBe(`users/${alice.userId}`);
  });

  it("answers 404 NOT_FOUND for another user's id, exactly like an id that does not exist", async () => {
    const other = expectError(await t.request('GET', `${API}/users/${bob.userId}`, { token: alice.token }), 404, 'NOT_FOUND');
    const missing = expectError(await t.request('GET', `${API}/users/u0000000000000000000`, { token: alice.token }), 404, 'NOT_FOUND');
    expect(other.message.replace(bob.userId, 'X')).toBe(missing.message.replace('u0000000000000000000', 'X'));
  });

  it('answers 401 UNAUTHENTICATED without a token', async () => {
    expectError(await t.request('GET', `${API}/users/me`), 401, 'UNAUTHENTICATED');
  });

  it("the sign-up answer's Location resolves to the user", async () => {
    const email = `loc-${Date.now()}@example.com`;
    const res = await t.request('POST', '/site-api/v1/users', {
      body: { email, password: 'correct-horse-9', website_name: 'Loc', default_language: 'en', captcha_token: 'dev-captcha' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const location = String(res.headers.location);
    expect(location).toBe(`http://api.test${API}/users/${res.json().id}`);
    const exchanged = await t.request('POST', `${API}/users:exchange_handoff`, { body: { signup_token: res.json().signup_token } });
    const got = await t.request('GET', location.replace('http://api.test', ''), { token: exchanged.json().token });
    expect(got.statusCode, got.body).toBe(200);
    expect(got.json().email).toBe(email);
  });
});

describe('users/{user}/profile', () => {
  const profile = (who = 'me') => `${API}/users/${who}/profile`;

  it('answers the profile singleton (no id) of the signed-in user', async () => {
    const res = await t.request('GET', profile(), { token: alice.token });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.name).toBe(`users/${alice.userId}/profile`);
    expect(body.id).toBeUndefined();
    expect(typeof body.etag).toBe('string');
    await expectShape(t, 'GetUserProfile', 200, body);
  });

  it('updates display_name, locale (canonical BCP 47), time_zone (canonical IANA) and avatar_uri; the user shows the display name', async () => {
    const res = await t.request('PATCH', profile(alice.userId), {
      token: alice.token,
      body: { display_name: '  Alice Admin ', locale: 'de-ch', time_zone: 'europe/zurich', avatar_uri: 'https://cdn.example.com/a.png' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ display_name: 'Alice Admin', locale: 'de-CH', time_zone: 'Europe/Zurich', avatar_uri: 'https://cdn.example.com/a.png' });
    const user = await t.request('GET', `${API}/users/me`, { token: alice.token });
    expect(user.json().display_name).toBe('Alice Admin');
  });

  it('refuses a stale etag with 409 ABORTED and changes nothing', async () => {
    const current = (await t.request('GET', profile(), { token: alice.token })).json();
    await t.request('PATCH', profile(), { token: alice.token, body: { display_name: 'Changed once' } });
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { display_name: 'Stale', etag: current.etag } }), 409, 'ABORTED');
    expect((await t.request('GET', profile(), { token: alice.token })).json().display_name).toBe('Changed once');
  });

  it('refuses a locale that is not a BCP 47 tag, naming locale', async () => {
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { locale: 'not a locale!' } }), 400, 'INVALID_ARGUMENT', { field: 'locale' });
  });

  it('refuses a time_zone Intl does not know, naming time_zone', async () => {
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { time_zone: 'Mars/Olympus' } }), 400, 'INVALID_ARGUMENT', { field: 'time_zone' });
  });

  it('refuses an avatar_uri that is not an http(s) URL or is too long, naming avatar_uri', async () => {
    for (const avatar_uri of ['javascript:alert(1)', 'not a url', 'ftp://x.example/a.png', 'https://user:pw@x.example/a.png', `https://x.example/${'a'.repeat(2100)}`]) {
      expectError(await t.request('PATCH', profile(), { token: alice.token, body: { avatar_uri } }), 400, 'INVALID_ARGUMENT', { field: 'avatar_uri' });
    }
  });

  it('refuses wrong types, unknown fields and an oversize display_name, naming the field; nothing is written', async () => {
    const before = (await t.request('GET', profile(), { token: alice.token })).json();
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { display_name: 42 } }), 400, 'INVALID_ARGUMENT', { field: 'display_name' });
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { nickname: 'x' } }), 400, 'INVALID_ARGUMENT', { field: 'nickname' });
    expectError(await t.request('PATCH', profile(), { token: alice.token, body: { display_name: 'x'.repeat(256) } }), 400, 'INVALID_ARGUMENT', { field: 'display_name' });
    expectError(
      await t.request('PATCH', profile(), { token: alice.token, body: { display_name: 'Half', time_zone: 'Nowhere/Else' } }),
      400,
      'INVALID_ARGUMENT',
      { field: 'time_zone' },
    );
    expect((await t.request('GET', profile(), { token: alice.token })).json()).toEqual(before);
  });

  it("answers 404 NOT_FOUND for another user's profile, for reads and writes", async () => {
    expectError(await t.request('GET', profile(bob.userId), { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', profile(bob.userId), { token: alice.token, body: { display_name: 'Hijacked' } }), 404, 'NOT_FOUND');
    expect((await t.request('GET', profile(), { token: bob.token })).json().display_name).toBeUndefined();
  });
});

describe('sessions', () => {
  let otherProcess: Platform;
  beforeAll(async () => {
    // A second server on the same database: its own caches, as another process has.
    otherProcess = await buildApp({ config: t.config, database: t.fresh.database });
    await otherProcess.app.ready();
  });
  afterAll(() => otherProcess?.app.close());

  const getMe = (token: string, app: Platform['app'] = t.app) =>
    app.inject({ method: 'GET', url: `${API}/users/me`, headers: { authorization: `Bearer ${token}` } });

  it('every sign-in is a session of its own, and its token names it', async () => {
    const user = await t.signUp();
    const first = await signIn(user);
    const second = await signIn(user);
    const sid = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sid;
    expect(sid(first)).toBeTruthy();
    expect(sid(first)).not.toBe(sid(second));
  });

  it('sign_out_everywhere ends every session at once, on every process', async () => {
    const user = await t.signUp();
    const token = await signIn(user);
    expect((await getMe(token, otherProcess.app)).statusCode).toBe(200);
    const out = await t.request('POST', `${API}/users:sign_out_everywhere`, { token });
    expect(out.statusCode, out.body).toBe(200);
    expectError((await getMe(token, otherProcess.app)) as never, 401, 'UNAUTHENTICATED');
    expectError((await getMe(user.token)) as never, 401, 'UNAUTHENTICATED');
    expect((await getMe(await signIn(user))).statusCode).toBe(200);
  });

  it('an ended session is 401 UNAUTHENTICATED on every tenant route, before NOT_FOUND or PERMISSION_DENIED would be decided', async () => {
    // The access check runs while the session is read; the session still decides first.
    const [user, stranger] = await Promise.all([t.signUpProvisioned(), t.signUpProvisioned()]);
    const token = await signIn(user);
    expect((await t.request('GET', `${API}/websites/${user.websiteId}`, { token })).statusCode).toBe(200);
    expect((await t.request('POST', `${API}/users:sign_out_everywhere`, { token })).statusCode).toBe(200);
    for (const url of [`${API}/websites/${user.websiteId}`, `${API}/websites/${stranger.websiteId}`, `${API}/websites/no%20such%20id`, `${API}/accounts/${stranger.accountId}/members`]) {
      expectError(await t.request('GET', url, { token }), 401, 'UNAUTHENTICATED');
    }
  });

  it("change_password ends the other sessions at once on another process too, and keeps the caller's there", async () => {
    const user = await t.signUp();
    const other = await signIn(user);
    expect((await getMe(other, otherProcess.app)).statusCode).toBe(200);
    const res = await t.request('POST', `${API}/users/me:change_password`, { token: user.token, body: { current_password: user.password, new_password: 'changed-pass-5' } });
    expect(res.statusCode, res.body).toBe(200);
    expectError((await getMe(other, otherProcess.app)) as never, 401, 'UNAUTHENTICATED');
    expect((await getMe(user.token, otherProcess.app)).statusCode).toBe(200);
  });

  it('refresh_token keeps the session: ending the session ends the refreshed token too', async () => {
    const user = await t.signUp();
    const token = await signIn(user);
    const refreshed = await t.request('POST', `${API}/users:refresh_token`, { token });
    expect(refreshed.statusCode, refreshed.body).toBe(200);
    await t.request('POST', `${API}/users:sign_out_everywhere`, { token });
    expectError((await getMe(refreshed.json().token)) as never, 401, 'UNAUTHENTICATED');
  });
});
