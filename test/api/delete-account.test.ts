import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { dynamic } from '../../src/platform/db/dynamic.js';
import { expectError } from '../support/fixtures-auth.js';

const API = '/tenant-api/v1';
const DELETE = `${API}/users/me/profile:delete_account`;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

const db = () => t.fresh.database.db;

/** Makes `user` a member of `accountId` (the access area's invitations do this through the API). */
async function addMember(accountId: string, user: TestUser, role: 'administrator' | 'editor') {
  await db().insertInto('memberships').values({ account_id: accountId, user_id: user.userId, role, create_time: Date.now() }).execute();
}

const roleOf = async (accountId: string, userId: string) =>
  (await db().selectFrom('memberships').select('role').where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst())?.role;
const exists = async (table: string, id: string) => (await dynamic(db()).selectFrom(table).select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
const signIn = (user: TestUser) => t.request('POST', `${API}/users:authenticate`, { body: { email: user.email, password: user.password } });

describe('profile:delete_account', () => {
  it('needs the current password: a wrong one answers 400 INVALID_ARGUMENT naming current_password, nothing is deleted', async () => {
    const user = await t.signUp();
    expectError(await t.request('POST', DELETE, { token: user.token, body: { current_password: 'wrong-pass-1' } }), 400, 'INVALID_ARGUMENT', { field: 'current_password' });
    expectError(await t.request('POST', DELETE, { token: user.token, body: {} }), 400, 'INVALID_ARGUMENT', { field: 'current_password' });
    expect(await exists('users', user.userId)).toBe(true);
    expect(await exists('accounts', user.accountId)).toBe(true);
  });

  it('deletes the user, ends their sessions, and takes accounts where they are the only member with them', async () => {
    const user = await t.signUp();
    const res = await t.request('POST', `${API}/users/${user.userId}/profile:delete_account`, { token: user.token, body: { current_password: user.password } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({});
    expect(await exists('users', user.userId)).toBe(false);
    expect(await exists('accounts', user.accountId)).toBe(false);
    expect(await exists('websites', user.websiteId)).toBe(false);
    expectError(await t.request('GET', `${API}/users/me`, { token: user.token }), 401, 'UNAUTHENTICATED');
    expectError(await signIn(user), 401, 'UNAUTHENTICATED');
  });

  it('refuses with 400 FAILED_PRECONDITION LAST_ADMINISTRATOR naming the account where the user is the only administrator of other members; nothing changes', async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    await addMember(owner.accountId, editor, 'editor');
    const error = expectError(await t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password } }), 400, 'FAILED_PRECONDITION', { reason: 'LAST_ADMINISTRATOR' });
    expect(error.message).toContain(`accounts/${owner.accountId}`);
    expect(await exists('users', owner.userId)).toBe(true);
    expect(await roleOf(owner.accountId, owner.userId)).toBe('administrator');
    expect((await t.request('GET', `${API}/users/me`, { token: owner.token })).statusCode).toBe(200);
  });

  it("TRANSFER makes the named member administrator; the account and the user's content stay", async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    await addMember(owner.accountId, editor, 'editor');
    const project = await t.request('POST', `${API}/accounts/${owner.accountId}/projects`, { token: owner.token, body: { display_name: 'Written by the owner' } });
    expect(project.statusCode, project.body).toBe(201);
    const res = await t.request('POST', DELETE, {
      token: owner.token,
      body: { current_password: owner.password, account_actions: [{ account: `accounts/${owner.accountId}`, action: 'TRANSFER', new_administrator: `users/${editor.userId}` }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await exists('users', owner.userId)).toBe(false);
    expect(await roleOf(owner.accountId, editor.userId)).toBe('administrator');
    expect(await exists('projects', project.json().id)).toBe(true);
    const seen = await t.request('GET', `${API}/projects/${project.json().id}`, { token: editor.token });
    expect(seen.statusCode, seen.body).toBe(200);
  });

  it('DELETE_ACCOUNT deletes the account with everything in it; its other members stay users', async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    await addMember(owner.accountId, editor, 'editor');
    const res = await t.request('POST', DELETE, {
      token: owner.token,
      body: { current_password: owner.password, account_actions: [{ account: `accounts/${owner.accountId}`, action: 'DELETE_ACCOUNT' }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await exists('accounts', owner.accountId)).toBe(false);
    expect(await exists('users', editor.userId)).toBe(true);
    expect((await t.request('GET', `${API}/users/me`, { token: editor.token })).statusCode).toBe(200);
  });

  it('leaves accounts that have another administrator, which keep their content', async () => {
    const owner = await t.signUp();
    const member = await t.signUp();
    await addMember(owner.accountId, member, 'administrator');
    const project = await t.request('POST', `${API}/accounts/${owner.accountId}/projects`, { token: member.token, body: { display_name: 'Written by the member' } });
    const res = await t.request('POST', DELETE, { token: member.token, body: { current_password: member.password, account_actions: [{ account: `accounts/${member.accountId}`, action: 'DELETE_ACCOUNT' }] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(await exists('accounts', owner.accountId)).toBe(true);
    expect(await exists('projects', project.json().id)).toBe(true);
    expect(await roleOf(owner.accountId, member.userId)).toBeUndefined();
  });

  it('refuses actions naming an account the user does not administer, or a new_administrator who is no member, naming the field', async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    const stranger = await t.signUp();
    await addMember(owner.accountId, editor, 'editor');
    const account = `accounts/${owner.accountId}`;
    const cases: Array<[unknown, string]> = [
      [[{ account: `accounts/${stranger.accountId}`, action: 'DELETE_ACCOUNT' }], 'account_actions[0].account'],
      [[{ account: 'not-a-name', action: 'DELETE_ACCOUNT' }], 'account_actions[0].account'],
      [[{ account, action: 'TRANSFER', new_administrator: `users/${stranger.userId}` }], 'account_actions[0].new_administrator'],
      [[{ account, action: 'TRANSFER', new_administrator: `users/${owner.userId}` }], 'account_actions[0].new_administrator'],
      [[{ account, action: 'TRANSFER' }], 'account_actions[0].new_administrator'],
      [[{ account, action: 'DELETE_ACCOUNT' }, { account, action: 'DELETE_ACCOUNT' }], 'account_actions[1].account'],
    ];
    for (const [account_actions, field] of cases) {
      expectError(await t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password, account_actions } }), 400, 'INVALID_ARGUMENT', { field });
    }
    expectError(await t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password, account_actions: [{ account, action: 'EVAPORATE' }] } }), 400, 'INVALID_ARGUMENT');
    expectError(await t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password, extra: 1 } }), 400, 'INVALID_ARGUMENT', { field: 'extra' });
    expect(await exists('users', owner.userId)).toBe(true);
    expect(await roleOf(owner.accountId, editor.userId)).toBe('editor');
  });

  it('everything happens in one transaction: a refusal for one account leaves every other account as it was', async () => {
    const owner = await t.signUp();
    const editor = await t.signUp();
    const second = await t.request('POST', `${API}/accounts`, { token: owner.token, body: { display_name: 'Second' } });
    expect(second.statusCode, second.body).toBe(201);
    const secondId = second.json().id;
    await addMember(owner.accountId, editor, 'editor');
    await addMember(secondId, editor, 'editor');
    // The first account is handled (DELETE_ACCOUNT), the second is not: refused, and the first stays.
    const error = expectError(
      await t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password, account_actions: [{ account: `accounts/${owner.accountId}`, action: 'DELETE_ACCOUNT' }] } }),
      400,
      'FAILED_PRECONDITION',
      { reason: 'LAST_ADMINISTRATOR' },
    );
    expect(error.message).toContain(`accounts/${secondId}`);
    expect(error.message).not.toContain(`accounts/${owner.accountId}`);
    expect(await exists('accounts', owner.accountId)).toBe(true);
    expect(await exists('users', owner.userId)).toBe(true);
  });

  it("answers 404 NOT_FOUND for another user's profile:delete_account", async () => {
    const alice = await t.signUp();
    const bob = await t.signUp();
    expectError(await t.request('POST', `${API}/users/${bob.userId}/profile:delete_account`, { token: alice.token, body: { current_password: bob.password } }), 404, 'NOT_FOUND');
    expect(await exists('users', bob.userId)).toBe(true);
  });

  it('two administrators deleting themselves at once: one goes, the other is refused as the last administrator', async () => {
    const owner = await t.signUp();
    const coAdmin = await t.signUp();
    const editor = await t.signUp();
    await addMember(owner.accountId, coAdmin, 'administrator');
    await addMember(owner.accountId, editor, 'editor');
    // The co-administrator's own account goes with them (only member).
    const answers = await Promise.all([
      t.request('POST', DELETE, { token: owner.token, body: { current_password: owner.password } }),
      t.request('POST', DELETE, { token: coAdmin.token, body: { current_password: coAdmin.password, account_actions: [{ account: `accounts/${coAdmin.accountId}`, action: 'DELETE_ACCOUNT' }] } }),
    ]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 400]);
    const refused = answers.find((a) => a.statusCode === 400)!;
    expectError(refused, 400, 'FAILED_PRECONDITION', { reason: 'LAST_ADMINISTRATOR' });
    const admins = await db().selectFrom('memberships').select('user_id').where('account_id', '=', owner.accountId).where('role', '=', 'administrator').execute();
    expect(admins).toHaveLength(1);
  });
});
