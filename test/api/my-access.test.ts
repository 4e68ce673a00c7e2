/**
 * `POST /accounts/{account_id}/members:my_access`: the caller's own role, effective grants and
 * website limits in an account — the "what may I do" read a client (the admin) uses to offer only
 * what the member's role reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../support/access.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let owner: TestUser;
let member: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signUp();
  member = await t.signUp();
  stranger = await t.signUp();
  await addMember(t, member, owner.accountId, { role: 'restricted', grants: [{ section: 'website.blog', access: 'WRITE' }, { section: 'website.content', access: 'READ' }], websiteIds: [owner.websiteId] });
});
afterAll(async () => t?.close());

const myAccess = (user: TestUser | undefined, accountId: string) => t.request('POST', `${API}/accounts/${accountId}/members:my_access`, { token: user?.token });

describe('the caller’s own access to an account', () => {
  it('answers an administrator its role and grants', async () => {
    expect(expectStatus(await myAccess(owner, owner.accountId), 200)).toEqual({
      role: 'roles/administrator',
      administrator: true,
      grants: [
        { section: 'account', access: 'WRITE' },
        { section: 'ai', access: 'WRITE' },
        { section: 'website', access: 'WRITE' },
      ],
      website_ids: [],
    });
  });

  it('answers a restricted member its own grants and websites, without the members right', async () => {
    expect(expectStatus(await myAccess(member, owner.accountId), 200)).toEqual({
      role: 'roles/restricted',
      administrator: false,
      grants: [
        { section: 'website.blog', access: 'WRITE' },
        { section: 'website.content', access: 'READ' },
      ],
      website_ids: [owner.websiteId],
    });
    // The same member cannot list the members: my_access needs membership only.
    expectError(await t.request('GET', `${API}/accounts/${owner.accountId}/members`, { token: member.token }), 403, 'PERMISSION_DENIED');
  });

  it('answers NOT_FOUND for an account the caller is no member of, and 401 without a token', async () => {
    expectError(await myAccess(stranger, owner.accountId), 404, 'NOT_FOUND');
    expectError(await myAccess(undefined, owner.accountId), 401, 'UNAUTHENTICATED');
  });
});
