/**
 * AI connections (SPEC 2.5, 3.2, 4.4): MANAGED connections from account creation, BYOK keys sealed
 * with AES-256-GCM and never returned, `:verify` against the stand-in provider.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { expectError, expectInvalid, expectShape, list } from '../support/fixtures.js';
import { createSecretBox } from '../../src/platform/crypto.js';
import { acct } from '../support/ai-fixtures.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let t: TestApp;
let standin: ProviderStandin;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  standin = await startProviderStandin();
  t = await startTestApp(standinEnv(standin));
  alice = await t.signUp();
  bob = await t.signUp();
});
afterAll(async () => {
  await t?.close();
  await standin?.close();
});

const url = (rest = '') => `${acct(alice)}/ai_connections${rest}`;
const createByok = async (body: Record<string, unknown> = {}) => {
  const res = await t.request('POST', url(), { token: alice.token, body: { provider: 'openai', mode: 'BYOK', api_key: 'sk-own-key-0001', display_name: 'Mine', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const verify = (id: string, token = alice.token) => t.request('POST', url(`/${id}:verify`), { token });

describe('MANAGED connections', () => {
  it('every account has one MANAGED connection per provider from creation, priority 100, UNVERIFIED, no key_hint', async () => {
    const page = await list(t, alice.token, url(), { filter: 'mode = MANAGED', order_by: 'display_name' });
    expect(page.ai_connections.map((c: any) => c.provider).sort()).toEqual(['anthropic', 'openai', 'openai_compatible']);
    for (const c of page.ai_connections) {
      expect(c).toMatchObject({ mode: 'MANAGED', priority: 100, status: 'UNVERIFIED', is_enabled: true });
      expect(c.key_hint).toBeUndefined();
      expect(c.last_verify_time).toBeUndefined();
    }
  });

  it('also for accounts created through the API', async () => {
    const account = (await t.request('POST', '/tenant-api/v1/accounts', { token: alice.token, body: { display_name: 'Second' } })).json();
    const page = await list(t, alice.token, `/tenant-api/v1/accounts/${account.id}/ai_connections`);
    expect(page.ai_connections.filter((c: any) => c.mode === 'MANAGED')).toHaveLength(3);
  });

  it('cannot be created again (ALREADY_EXISTS), takes no api_key, cannot be deleted, cannot be verified', async () => {
    expectError(await t.request('POST', url(), { token: alice.token, body: { provider: 'openai', mode: 'MANAGED' } }), 409, 'ALREADY_EXISTS');
    const managed = (await list(t, alice.token, url(), { filter: 'mode = MANAGED AND provider = "openai"' })).ai_connections[0];
    expectInvalid(await t.request('PATCH', url(`/${managed.id}`), { token: alice.token, body: { api_key: 'sk-new-key-0002' } }), 'api_key');
    const del = await t.request('DELETE', url(`/${managed.id}`), { token: alice.token });
    expect(expectError(del, 400, 'FAILED_PRECONDITION').details).toContainEqual(expect.objectContaining({ reason: 'MANAGED_CONNECTION' }));
    expectError(await verify(managed.id), 400, 'FAILED_PRECONDITION');
    const off = await t.request('PATCH', url(`/${managed.id}`), { token: alice.token, body: { is_enabled: false, priority: 5 } });
    expect(off.json()).toMatchObject({ is_enabled: false, priority: 5, status: 'UNVERIFIED' });
    expectInvalid(await t.request('PATCH', url(`/${managed.id}`), { token: alice.token, body: { mode: 'BYOK' } }), 'mode');
    expectInvalid(await t.request('PATCH', url(`/${managed.id}`), { token: alice.token, body: { provider: 'anthropic' } }), 'provider');
  });
});

describe('BYOK connections', () => {
  it('BYOK requires api_key; the key is stored sealed (AES-256-GCM under ENCRYPTION_KEY), never returned; key_hint is its last four', async () => {
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { provider: 'openai', mode: 'BYOK' } }), 'api_key');
    const created = await createByok({ api_key: 'sk-secret-abcd-WXYZ' });
    await expectShape(t, 'CreateAiConnection', 201, created);
    expect(created).toMatchObject({ mode: 'BYOK', provider: 'openai', key_hint: 'WXYZ', status: 'UNVERIFIED', priority: 0 });
    expect(JSON.stringify(created)).not.toContain('sk-secret');
    const listed = await t.request('GET', url(), { token: alice.token });
    expect(listed.body).not.toContain('sk-secret');
    const row = await t.fresh.database.db.selectFrom('ai_connections').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain('sk-secret');
    expect(createSecretBox(t.config.encryptionKey).open(row.api_key_sealed ?? '')).toBe('sk-secret-abcd-WXYZ');
  });

  it(':verify asks the provider with the key: VALID, and INVALID still answers 200', async () => {
    standin.validKeys.add('sk-good-key-1234');
    const good = await createByok({ api_key: 'sk-good-key-1234' });
    standin.reset();
    const ok = await verify(good.id);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'VALID' });
    expect(ok.json().last_verify_time).toMatch(/Z$/);
    expect(standin.calls).toEqual([expect.objectContaining({ provider: 'openai', method: 'GET', path: '/models', key: 'sk-good-key-1234' })]);

    const bad = await createByok({ api_key: 'sk-bad-key-9999' });
    const refused = await verify(bad.id);
    expect(refused.statusCode, refused.body).toBe(200);
    expect(refused.json()).toMatchObject({ status: 'INVALID' });
    expect(refused.json().last_verify_time).toBeDefined();
  });

  it(':verify on anthropic sends the key to /v1/models', async () => {
    standin.validKeys.add('sk-ant-good-1');
    const created = await createByok({ provider: 'anthropic', api_key: 'sk-ant-good-1' });
    standin.reset();
    const verified = await verify(created.id);
    expect(verified.json().status, JSON.stringify(standin.calls.map((c) => [c.path, c.key, c.headers]))).toBe('VALID');
    expect(standin.calls).toEqual([expect.objectContaining({ provider: 'anthropic', method: 'GET', path: '/v1/models', key: 'sk-ant-good-1' })]);
  });

  it('a new api_key resets status to UNVERIFIED and clears last_verify_time', async () => {
    standin.validKeys.add('sk-rotate-0001');
    const created = await createByok({ api_key: 'sk-rotate-0001' });
    await verify(created.id);
    const rotated = await t.request('PATCH', url(`/${created.id}`), { token: alice.token, body: { api_key: 'sk-rotate-0002' } });
    expect(rotated.json()).toMatchObject({ status: 'UNVERIFIED', key_hint: '0002' });
    expect(rotated.json().last_verify_time).toBeUndefined();
  });

  it(':verify answers UNAVAILABLE and changes nothing when the provider cannot be reached', async () => {
    const down = await startProviderStandin();
    const url2 = down.openaiBaseUrl;
    await down.close();
    const t2 = await startTestApp({ OPENAI_BASE_URL: url2 });
    try {
      const u = await t2.signUp();
      const created = (await t2.request('POST', `${acct(u)}/ai_connections`, { token: u.token, body: { provider: 'openai', api_key: 'sk-whatever-1' } })).json();
      const res = await t2.request('POST', `${acct(u)}/ai_connections/${created.id}:verify`, { token: u.token });
      expectError(res, 503, 'UNAVAILABLE');
      // Every 503 says when to retry (documented on the UNAVAILABLE answer of every operation).
      expect(res.headers['retry-after']).toBe('1');
      const after = (await t2.request('GET', `${acct(u)}/ai_connections/${created.id}`, { token: u.token })).json();
      expect(after.etag).toBe(created.etag);
      expect(after.status).toBe('UNVERIFIED');
    } finally {
      await t2.close();
    }
  });

  it('Delete removes a BYOK connection and its stored key at once', async () => {
    const created = await createByok();
    expect((await t.request('DELETE', url(`/${created.id}`), { token: alice.token })).statusCode).toBe(204);
    expect(await t.fresh.database.db.selectFrom('ai_connections').select('id').where('id', '=', created.id).executeTakeFirst()).toBeUndefined();
  });

  it('lists with filters and order; bad input and other tenants answer canonical errors', async () => {
    const page = await list(t, alice.token, url(), { filter: 'mode = BYOK AND provider = "openai" AND is_enabled = true', order_by: 'last_verify_time desc' });
    expect(page.ai_connections.every((c: any) => c.mode === 'BYOK' && c.provider === 'openai')).toBe(true);
    expect((await list(t, alice.token, url(), { filter: 'status = VALID' })).ai_connections.every((c: any) => c.status === 'VALID')).toBe(true);
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { provider: 'mistral', api_key: 'sk-abcdefgh' } }), 'provider');
    expectInvalid(await t.request('POST', url(), { token: alice.token, body: { provider: 'openai', api_key: 'sk-abcdefgh', priority: -1 } }), 'priority');
    const created = await createByok();
    expectError(await t.request('GET', `${acct(bob)}/ai_connections/${created.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${acct(bob)}/ai_connections/${created.id}:verify`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', url(`/${created.id}`), { token: bob.token }), 404, 'NOT_FOUND');
  });
});
