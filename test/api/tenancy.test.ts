/**
 * Tenancy and authorization (SPEC 1, 4.1 rule 5, 5): a user reaches a website only through a membership
 * of its account; anything another tenant owns is NOT_FOUND (never PERMISSION_DENIED); a member whose
 * role does not reach a route gets PERMISSION_DENIED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../support/access.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { TENANT, enqueueTest, eventually, expectError, installTestHandlers, type TestHandlers } from '../support/fixtures-auth.js';

let t: TestApp;
let handlers: TestHandlers;
let alice: TestUser; // owner of the account under attack
let bob: TestUser; // another tenant, no membership in Alice's account
let carol: TestUser; // editor in Alice's account
let aliceProjectId: string;
let aliceOperationId: string;

beforeAll(async () => {
  t = await startTestApp();
  handlers = installTestHandlers(t.platform.operations);
  alice = await t.signUp({ website_name: 'Alice Site' });
  bob = await t.signUp({ website_name: 'Bob Site' });
  carol = await t.signUp({ website_name: 'Carol Site' });
  await t.waitForOperation(alice.operation, alice.token);
  await t.waitForOperation(bob.operation, bob.token);
  aliceOperationId = alice.operation.split('/').pop()!;
  aliceProjectId = (await t.request('GET', `${TENANT}/accounts/${alice.accountId}/projects`, { token: alice.token })).json().projects[0].id;
  // Carol is an editor of Alice's account (the membership an accepted invitation writes).
  await addMember(t, carol, alice.accountId, { role: 'editor' });
});
afterAll(() => t?.close());

/** Alice's resources as Alice sees them, for "unchanged" checks. */
async function aliceSnapshot() {
  const get = async (path: string) => {
    const res = await t.request('GET', `${TENANT}/${path}`, { token: alice.token });
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json();
  };
  return {
    account: await get(`accounts/${alice.accountId}`),
    project: await get(`projects/${aliceProjectId}`),
    website: await get(`websites/${alice.websiteId}`),
    projects: await get(`accounts/${alice.accountId}/projects`),
    websites: await get(`projects/${aliceProjectId}/websites`),
    operation: await get(alice.operation),
  };
}

describe('another tenant', () => {
  it("gets 404 NOT_FOUND (never 403) for every method on another tenant's account, project, website and operation, and changes nothing", async () => {
    const before = await aliceSnapshot();
    const probes: Array<[string, string, unknown?]> = [
      ['GET', `accounts/${alice.accountId}`],
      ['PATCH', `accounts/${alice.accountId}`, { display_name: 'Hijacked' }],
      ['DELETE', `accounts/${alice.accountId}`],
      ['DELETE', `accounts/${alice.accountId}?force=true`],
      ['GET', `accounts/${alice.accountId}/projects`],
      ['POST', `accounts/${alice.accountId}/projects`, { display_name: 'Intruder project' }],
      ['GET', `projects/${aliceProjectId}`],
      ['PATCH', `projects/${aliceProjectId}`, { display_name: 'Hijacked' }],
      ['DELETE', `projects/${aliceProjectId}?force=true`],
      ['GET', `projects/${aliceProjectId}/websites`],
      ['POST', `projects/${aliceProjectId}/websites`, { display_name: 'Intruder site' }],
      ['GET', `websites/${alice.websiteId}`],
      ['PATCH', `websites/${alice.websiteId}`, { display_name: 'Hijacked' }],
      ['DELETE', `websites/${alice.websiteId}`],
      ['GET', alice.operation],
      ['POST', `${alice.operation}:cancel`],
      // Bob's own website with Alice's Operation id: the Operation is not under it.
      ['GET', `websites/${bob.websiteId}/operations/${aliceOperationId}`],
      ['POST', `websites/${bob.websiteId}/operations/${aliceOperationId}:cancel`],
    ];
    for (const [method, path, body] of probes) {
      const res = await t.request(method, `${TENANT}/${path}`, { token: bob.token, body });
      expectError(res, 404, 'NOT_FOUND');
    }
    expect(await aliceSnapshot()).toEqual(before);
  });

  it("answers another tenant's ids exactly like ids that do not exist (no probing)", async () => {
    const pairs: Array<[string, string]> = [
      [`accounts/${alice.accountId}`, 'accounts/00000000000000000000'],
      [`projects/${aliceProjectId}`, 'projects/00000000000000000000'],
      [`websites/${alice.websiteId}`, 'websites/00000000000000000000'],
      [`accounts/${alice.accountId}/projects`, 'accounts/00000000000000000000/projects'],
    ];
    const normalise = (res: { json(): any }, id: string) => {
      const { error } = res.json();
      return { code: error.code, status: error.status, message: error.message.replace(id, '{id}'), types: error.details.map((d: any) => d.type) };
    };
    for (const [real, missing] of pairs) {
      const a = await t.request('GET', `${TENANT}/${real}`, { token: bob.token });
      const b = await t.request('GET', `${TENANT}/${missing}`, { token: bob.token });
      expect(normalise(a, real.split('/')[1])).toEqual(normalise(b, '00000000000000000000'));
    }
  });

  it("cannot take over another tenant's project or website by choosing its id on create (?id=)", async () => {
    const before = await aliceSnapshot();
    const bobProjectId = (await t.request('GET', `${TENANT}/accounts/${bob.accountId}/projects`, { token: bob.token })).json().projects[0].id;
    const project = await t.request('POST', `${TENANT}/accounts/${bob.accountId}/projects?id=${aliceProjectId}`, {
      token: bob.token,
      body: { display_name: 'Same id' },
    });
    expectError(project, 409, 'ALREADY_EXISTS');
    const website = await t.request('POST', `${TENANT}/projects/${bobProjectId}/websites?id=${alice.websiteId}`, {
      token: bob.token,
      body: { display_name: 'Same id' },
    });
    expectError(website, 409, 'ALREADY_EXISTS');
    expect(await aliceSnapshot()).toEqual(before);
    expectError(await t.request('GET', `${TENANT}/projects/${aliceProjectId}`, { token: bob.token }), 404, 'NOT_FOUND');
  });

  it('answers 401, not 404, to a request without credentials', async () => {
    expectError(await t.request('GET', `${TENANT}/accounts/${alice.accountId}`), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', `${TENANT}/websites/${alice.websiteId}`), 401, 'UNAUTHENTICATED');
  });

  it("never lists another tenant's account", async () => {
    const res = await t.request('GET', `${TENANT}/accounts`, { token: bob.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total_size: 1, accounts: [{ id: bob.accountId }] });
    const filtered = await t.request('GET', `${TENANT}/accounts?filter=${encodeURIComponent('display_name:"Alice"')}`, { token: bob.token });
    expect(filtered.statusCode, filtered.body).toBe(200);
    expect(filtered.json()).toMatchObject({ total_size: 0, accounts: [] });
  });
});

describe('POST accounts', () => {
  it('makes the caller administrator of the new account: it is listed and projects can be created in it', async () => {
    const res = await t.request('POST', `${TENANT}/accounts`, { token: bob.token, body: { display_name: 'Bob Second Account' } });
    expect(res.statusCode, res.body).toBe(201);
    const account = res.json();
    expect(account.name).toBe(`accounts/${account.id}`);
    expect(res.headers.location).toBe(`http://api.test${TENANT}/accounts/${account.id}`);

    const list = (await t.request('GET', `${TENANT}/accounts`, { token: bob.token })).json();
    expect(list.total_size).toBe(2);
    expect(list.accounts.map((a: any) => a.id).sort()).toEqual([bob.accountId, account.id].sort());

    const project = await t.request('POST', `${TENANT}/accounts/${account.id}/projects`, { token: bob.token, body: { display_name: 'Launch' } });
    expect(project.statusCode, project.body).toBe(201);
    expect(project.json().parent).toBe(`accounts/${account.id}`);
    const patched = await t.request('PATCH', `${TENANT}/accounts/${account.id}`, { token: bob.token, body: { display_name: 'Renamed' } });
    expect(patched.statusCode).toBe(200);

    // Nobody else sees it.
    expectError(await t.request('GET', `${TENANT}/accounts/${account.id}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${TENANT}/projects/${project.json().id}`, { token: alice.token }), 404, 'NOT_FOUND');
    const aliceList = (await t.request('GET', `${TENANT}/accounts`, { token: alice.token })).json();
    expect(aliceList.accounts.map((a: any) => a.id)).not.toContain(account.id);
  });
});

describe('editor role', () => {
  it('can read the account, its projects, websites and operations, and lists the account beside its own', async () => {
    for (const path of [
      `accounts/${alice.accountId}`,
      `accounts/${alice.accountId}/projects`,
      `projects/${aliceProjectId}`,
      `projects/${aliceProjectId}/websites`,
      `websites/${alice.websiteId}`,
      alice.operation,
    ]) {
      const res = await t.request('GET', `${TENANT}/${path}`, { token: carol.token });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    }
    const list = (await t.request('GET', `${TENANT}/accounts`, { token: carol.token })).json();
    expect(list.total_size).toBe(2);
    expect(list.accounts.map((a: any) => a.id).sort()).toEqual([alice.accountId, carol.accountId].sort());
  });

  it('gets 403 PERMISSION_DENIED for account-level writes (create a project, delete or change a website, change the account) and changes nothing', async () => {
    const before = await aliceSnapshot();
    const denied: Array<[string, string, unknown?]> = [
      ['POST', `accounts/${alice.accountId}/projects`, { display_name: 'Editor project' }],
      ['PATCH', `accounts/${alice.accountId}`, { display_name: 'Editor rename' }],
      ['DELETE', `accounts/${alice.accountId}?force=true`],
      ['PATCH', `projects/${aliceProjectId}`, { display_name: 'Editor rename' }],
      ['DELETE', `projects/${aliceProjectId}?force=true`],
      ['POST', `projects/${aliceProjectId}/websites`, { display_name: 'Editor site' }],
      ['DELETE', `websites/${alice.websiteId}`],
    ];
    for (const [method, path, body] of denied) {
      const res = await t.request(method, `${TENANT}/${path}`, { token: carol.token, body });
      expectError(res, 403, 'PERMISSION_DENIED');
    }
    expect(await aliceSnapshot()).toEqual(before);
  });

  it('can cancel a running website Operation (WRITE on section website), which a non-member cannot even see', async () => {
    const key = 'editor-cancel';
    const id = await enqueueTest(t.platform.operations, t.fresh.database.db, {
      type: 'TEST_WAIT',
      accountId: alice.accountId,
      websiteId: alice.websiteId,
      payload: { key },
    });
    const name = `websites/${alice.websiteId}/operations/${id}`;
    try {
      await handlers.waitStarted(key);
      expectError(await t.request('POST', `${TENANT}/${name}:cancel`, { token: bob.token }), 404, 'NOT_FOUND');
      const untouched = (await t.request('GET', `${TENANT}/${name}`, { token: alice.token })).json();
      expect(untouched.done).toBe(false);
      expect(untouched.metadata).not.toHaveProperty('cancel_requested');

      const res = await t.request('POST', `${TENANT}/${name}:cancel`, { token: carol.token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ name, done: false });
      const done = await t.waitForOperation(name, carol.token);
      expect(done.error).toMatchObject({ code: 499, status: 'CANCELLED' });
    } finally {
      handlers.release(key);
    }
  });

  it('loses access on the next request once the membership is gone, however it was removed', async () => {
    const dave = await t.signUp();
    await addMember(t, dave, alice.accountId, { role: 'editor' });
    expect((await t.request('GET', `${TENANT}/websites/${alice.websiteId}`, { token: dave.token })).statusCode).toBe(200);
    // Removed behind the API's back, as another process of ours would: its write's trigger announces it
    // and, on PostgreSQL, the writer settles (every process has handled the announcement) before it
    // answers; from then on the very next request anywhere knows (cache-invalidation.ts).
    await t.fresh.database.db.deleteFrom('memberships').where('account_id', '=', alice.accountId).where('user_id', '=', dave.userId).execute();
    await t.platform.invalidation.settle();
    expectError(await t.request('GET', `${TENANT}/websites/${alice.websiteId}`, { token: dave.token }), 404, 'NOT_FOUND');
  });
});
