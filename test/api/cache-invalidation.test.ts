/**
 * Issue 24 (and issue 23 defect 6): the per-process caches of sessions, memberships, project and
 * website owners and site hosts answer fresh after a write, in the writing process and in another
 * one. "Another process" is a second app instance built on the same database: on PostgreSQL with
 * connections of its own (pools and the LISTEN connection), as a second server process has; on
 * SQLite on the same connection, as one process owns the file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { buildApp, type Platform } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import pg from 'pg';
import { addMember } from '../support/access.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { describeOnly } from '../support/databases.js';
import { expectError } from '../support/fixtures-auth.js';

const API = '/tenant-api/v1';

let t: TestApp;
let other: Platform;
let otherDatabase: Database | undefined;
beforeAll(async () => {
  t = await startTestApp();
  otherDatabase = t.fresh.url ? openDatabase({ databaseUrl: t.fresh.url, dataDir: t.fresh.dataDir }) : undefined;
  other = await buildApp({ config: t.config, database: otherDatabase ?? t.fresh.database });
  await other.app.ready();
});
afterAll(async () => {
  await other?.app.close();
  await otherDatabase?.close();
  await t?.close();
});

type Instance = 'this' | 'other';
const call = async (on: Instance, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  if (on === 'this') return t.request(method, url, opts);
  const res = await other.app.inject({
    method,
    url,
    headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers },
    payload: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  });
  return Object.assign(res, { json: () => JSON.parse(res.body) });
};
const getProject = (on: Instance, user: TestUser, id: string) => call(on, 'GET', `${API}/projects/${id}`, { token: user.token });
const getWebsite = (on: Instance, user: TestUser) => call(on, 'GET', `${API}/websites/${user.websiteId}`, { token: user.token });
const deleteAccountOf = (user: TestUser) => t.request('POST', `${API}/users/me/profile:delete_account`, { token: user.token, body: { current_password: user.password } });

describe('project owners (issue 23 defect 6)', () => {
  it('a project id freed by profile:delete_account is found under its new owner at once, on every process', async () => {
    const [alice, bob] = [await t.signUp(), await t.signUp()];
    const id = `freed-${randomUUID().slice(0, 8)}`;
    expect((await t.request('POST', `${API}/accounts/${alice.accountId}/projects?id=${id}`, { token: alice.token, body: { display_name: 'Alice' } })).statusCode).toBe(201);
    // Both processes have now looked the project's owner up.
    for (const on of ['this', 'other'] as const) expect((await getProject(on, alice, id)).statusCode).toBe(200);
    expect((await deleteAccountOf(alice)).statusCode).toBe(200);
    const created = await t.request('POST', `${API}/accounts/${bob.accountId}/projects?id=${id}`, { token: bob.token, body: { display_name: 'Bob' } });
    expect(created.statusCode, created.body).toBe(201);
    for (const on of ['this', 'other'] as const) {
      const res = await getProject(on, bob, id);
      expect(res.statusCode, `${on}: ${res.body}`).toBe(200);
      expect(res.json().display_name).toBe('Bob');
    }
  });

  it('a project id freed by DELETE accounts/{a}?force=true is found under its new owner at once, on every process', async () => {
    const [alice, bob] = [await t.signUp(), await t.signUp()];
    const id = `forced-${randomUUID().slice(0, 8)}`;
    expect((await t.request('POST', `${API}/accounts/${alice.accountId}/projects?id=${id}`, { token: alice.token, body: { display_name: 'Alice' } })).statusCode).toBe(201);
    for (const on of ['this', 'other'] as const) expect((await getProject(on, alice, id)).statusCode).toBe(200);
    const deleted = await t.request('DELETE', `${API}/accounts/${alice.accountId}?force=true`, { token: alice.token });
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await t.request('POST', `${API}/accounts/${bob.accountId}/projects?id=${id}`, { token: bob.token, body: { display_name: 'Bob' } })).statusCode).toBe(201);
    for (const on of ['this', 'other'] as const) expect((await getProject(on, bob, id)).statusCode, on).toBe(200);
  });

  it('an id looked up before it existed is found once it is created', async () => {
    const alice = await t.signUp();
    const id = `later-${randomUUID().slice(0, 8)}`;
    for (const on of ['this', 'other'] as const) expectError(await getProject(on, alice, id), 404, 'NOT_FOUND');
    expect((await t.request('POST', `${API}/accounts/${alice.accountId}/projects?id=${id}`, { token: alice.token, body: { display_name: 'Now' } })).statusCode).toBe(201);
    for (const on of ['this', 'other'] as const) expect((await getProject(on, alice, id)).statusCode, on).toBe(200);
  });
});

describe('sessions and memberships: a revocation holds on the next request, on every process', () => {
  it('a member removed on one process is refused on the next request on another', async () => {
    const [alice, bob] = [await t.signUpProvisioned(), await t.signUp()];
    await addMember(t, bob, alice.accountId, { role: 'editor' });
    const website = { ...bob, websiteId: alice.websiteId };
    for (const on of ['this', 'other'] as const) expect((await getWebsite(on, website)).statusCode, on).toBe(200);
    const removed = await t.request('DELETE', `${API}/accounts/${alice.accountId}/members/${bob.userId}`, { token: alice.token });
    expect(removed.statusCode, removed.body).toBe(204);
    for (const on of ['other', 'this'] as const) expectError(await getWebsite(on, website), 404, 'NOT_FOUND');
  });

  it('a role changed on one process is in force on the next request on another', async () => {
    const [alice, bob] = [await t.signUpProvisioned(), await t.signUp()];
    await addMember(t, bob, alice.accountId, { role: 'editor' });
    const website = { ...bob, websiteId: alice.websiteId };
    for (const on of ['this', 'other'] as const) expect((await getWebsite(on, website)).statusCode, on).toBe(200);
    const changed = await t.request('PATCH', `${API}/accounts/${alice.accountId}/members/${bob.userId}`, { token: alice.token, body: { role: 'roles/restricted' } });
    expect(changed.statusCode, changed.body).toBe(200);
    for (const on of ['other', 'this'] as const) expectError(await getWebsite(on, website), 403, 'PERMISSION_DENIED');
  });

  it("an account role's grants changed on one process are in force on the next request on another", async () => {
    const [alice, bob] = [await t.signUpProvisioned(), await t.signUp()];
    const role = await t.request('POST', `${API}/accounts/${alice.accountId}/account_roles`, { token: alice.token, body: { display_name: 'Readers', grants: [{ section: 'website', access: 'READ' }] } });
    expect(role.statusCode, role.body).toBe(201);
    await addMember(t, bob, alice.accountId, { role: { accountRole: role.json().id } });
    const website = { ...bob, websiteId: alice.websiteId };
    for (const on of ['this', 'other'] as const) expect((await getWebsite(on, website)).statusCode, on).toBe(200);
    const changed = await t.request('PATCH', `${API}/${role.json().name}`, { token: alice.token, body: { grants: [{ section: 'ai', access: 'READ' }] } });
    expect(changed.statusCode, changed.body).toBe(200);
    for (const on of ['other', 'this'] as const) expectError(await getWebsite(on, website), 403, 'PERMISSION_DENIED');
  });

  it('a session ended on one process is refused on the next request on another', async () => {
    const alice = await t.signUpProvisioned();
    for (const on of ['this', 'other'] as const) expect((await getWebsite(on, alice)).statusCode, on).toBe(200);
    expect((await t.request('POST', `${API}/users:sign_out_everywhere`, { token: alice.token })).statusCode).toBe(200);
    for (const on of ['other', 'this'] as const) expectError(await getWebsite(on, alice), 401, 'UNAUTHENTICATED');
  });

  it('a deleted account is refused on the next request on another process', async () => {
    const alice = await t.signUpProvisioned();
    for (const on of ['this', 'other'] as const) expect((await getWebsite(on, alice)).statusCode, on).toBe(200);
    expect((await deleteAccountOf(alice)).statusCode).toBe(200);
    for (const on of ['other', 'this'] as const) expectError(await getWebsite(on, alice), 401, 'UNAUTHENTICATED');
  });
});

describe('site hosts', () => {
  it('a website deleted on one process is gone from its host on the next request on another', async () => {
    const alice = await t.signUpProvisioned();
    const code = (await getWebsite('this', alice)).json().code as string;
    const host = { host: `${code}.localhost` };
    for (const on of ['this', 'other'] as const) expect((await call(on, 'GET', '/', { headers: host })).statusCode, on).toBe(200);
    const deleted = await t.request('DELETE', `${API}/websites/${alice.websiteId}?force=true`, { token: alice.token });
    expect(deleted.statusCode, deleted.body).toBe(204);
    for (const on of ['other', 'this'] as const) {
      const res = await call(on, 'GET', '/', { headers: host });
      expect(res.statusCode, on).toBe(404);
      expect(res.body).toContain('No website answers at this address');
    }
  });
});

describe('resource Gets: answers kept per process (SQLite) follow every write', () => {
  const pageUrl = (user: TestUser, id: string) => `${API}/websites/${user.websiteId}/cms_pages/${id}`;
  const createPage = async (user: TestUser) => {
    const res = await t.request('POST', `${API}/websites/${user.websiteId}/cms_pages`, { token: user.token, body: { title: 'First', url_key: `p-${randomUUID().slice(0, 8)}` } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };

  it('a Get answers a row changed through another connection to the database on the next request', async () => {
    const alice = await t.signUp();
    const id = await createPage(alice);
    for (const on of ['this', 'other'] as const) expect((await call(on, 'GET', pageUrl(alice, id), { token: alice.token })).json().title, on).toBe('First');
    // As another process would: its own connection (SQLite: to the same file), a write no API call of ours makes.
    const direct = openDatabase({ databaseUrl: t.fresh.url, dataDir: t.fresh.dataDir });
    try {
      await direct.db.updateTable('cms_pages').set({ title: 'Changed elsewhere', revision: 99 }).where('id', '=', id).where('website_id', '=', alice.websiteId).execute();
    } finally {
      await direct.close();
    }
    // Another process's commit reaches this one before its next request only through I/O, i.e. in a
    // later event-loop turn (SQLite checks for other connections' commits once per turn); inject()
    // never leaves the turn, so one is let pass here.
    await new Promise((resolve) => setImmediate(resolve));
    for (const on of ['this', 'other'] as const) {
      const res = await call(on, 'GET', pageUrl(alice, id), { token: alice.token });
      expect(res.json().title, on).toBe('Changed elsewhere');
      expect(res.headers.etag, on).toBe(`"${res.json().etag}"`);
    }
  });

  it('a Get answered from the answer cache reflects a write made by UPDATE … RETURNING outside a transaction', async () => {
    const alice = await t.signUp();
    const id = await createPage(alice);
    for (let i = 0; i < 2; i++) expect((await t.request('GET', pageUrl(alice, id), { token: alice.token })).json().title).toBe('First');
    // As the lease primitive's claim and settle write (platform/jobs/lease.ts): a statement that
    // returns rows, on this process's own connection, in no explicit transaction.
    const [row] = await t.platform.deps.database.db
      .updateTable('cms_pages')
      .set({ title: 'Returned', revision: 99 })
      .where('id', '=', id)
      .where('website_id', '=', alice.websiteId)
      .returningAll()
      .execute();
    expect(row.title).toBe('Returned');
    const res = await t.request('GET', pageUrl(alice, id), { token: alice.token });
    expect(res.json().title).toBe('Returned');
    expect(res.headers.etag).toBe(`"${res.json().etag}"`);
  });

  it('a Get answers a row updated on one process on the next request on another, with its new etag', async () => {
    const alice = await t.signUp();
    const id = await createPage(alice);
    const before = await call('other', 'GET', pageUrl(alice, id), { token: alice.token });
    const patched = await t.request('PATCH', pageUrl(alice, id), { token: alice.token, body: { title: 'Second' } });
    expect(patched.statusCode, patched.body).toBe(200);
    for (const on of ['other', 'this'] as const) {
      const res = await call(on, 'GET', pageUrl(alice, id), { token: alice.token, headers: { 'if-none-match': before.headers.etag as string } });
      expect(res.statusCode, on).toBe(200);
      expect(res.json().title, on).toBe('Second');
      expect(res.headers['content-type'], on).toBe('application/json; charset=utf-8');
    }
  });
});

describeOnly('postgres')('settling: a write waits for the other processes only when it changed what their caches hold', () => {
  let listener: pg.Client;
  const heard: string[] = [];
  let probes = 0;
  beforeAll(async () => {
    listener = new pg.Client({ connectionString: t.fresh.url });
    listener.on('notification', (message) => heard.push(message.payload ?? ''));
    await listener.connect();
    await listener.query('LISTEN cache_invalidation');
  });
  afterAll(() => listener?.end());

  /** The notifications committed before now (they arrive in commit order, before this probe's). */
  async function heardSoFar(): Promise<string[]> {
    const probe = `probe:${++probes}`;
    await listener.query('select pg_notify($1, $2)', ['cache_invalidation', probe]);
    while (!heard.includes(probe)) await new Promise((resolve) => setTimeout(resolve, 5));
    return heard.splice(0, heard.length);
  }
  const settles = (payloads: string[]) => payloads.filter((p) => p.startsWith('settle:')).length;

  it('a tenant write that changes no cached topic answers without a settle', async () => {
    // Provisioned first: its background writes (the website's row: `hosts`) would make any concurrent write settle.
    const alice = await t.signUpProvisioned();
    await heardSoFar();
    const created = await t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, { token: alice.token, body: { title: 'Quiet', url_key: `q-${randomUUID().slice(0, 8)}` } });
    expect(created.statusCode, created.body).toBe(201);
    const patched = await t.request('PATCH', `${API}/websites/${alice.websiteId}/cms_pages/${created.json().id}`, { token: alice.token, body: { title: 'Still quiet' } });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(settles(await heardSoFar())).toBe(0);
  });

  it('a tenant write that changes a cached topic settles before it answers', async () => {
    const [alice, bob] = [await t.signUp(), await t.signUp()];
    await addMember(t, bob, alice.accountId, { role: 'editor' });
    await heardSoFar();
    const removed = await t.request('DELETE', `${API}/accounts/${alice.accountId}/members/${bob.userId}`, { token: alice.token });
    expect(removed.statusCode, removed.body).toBe(204);
    const payloads = await heardSoFar();
    expect(payloads).toContain('auth');
    expect(settles(payloads)).toBe(1);
  });
});
