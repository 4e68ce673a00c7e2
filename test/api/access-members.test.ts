/** Access (issue 12, points 1–4): permission tree, roles, account roles, members and their guards, website-limited memberships. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSection } from '../../src/platform/auth/permissions.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { addMember } from '../support/access.js';
import { API, createWebsite, expectError, expectInvalid, expectShape, expectStatus, idsOf, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let eve: TestUser;

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob, carol, eve] = await Promise.all([t.signUp(), t.signUp(), t.signUp(), t.signUp()]);
});
afterAll(() => t?.close());

const account = (u: TestUser = alice) => `${API}/accounts/${u.accountId}`;
const member = (of: TestUser, u: TestUser = alice) => `${account(u)}/members/${of.userId}`;

describe('permission tree', () => {
  it('every route declares a right whose section is in the tree', () => {
    const outside = t.platform.routeRights.filter((r) => r.right.section !== '' && !isSection(r.right.section));
    expect(outside).toEqual([]);
    expect(t.platform.routeRights.length).toBeGreaterThan(100);
  });

  it('lists the tree as a catalogue: dotted ids, parent, level, display name, description', async () => {
    const page = expectStatus(await t.request('GET', `${API}/permissions?page_size=100`, { token: alice.token }), 200);
    await expectShape(t, 'ListPermissions', 200, page);
    const ids = idsOf(page, 'permissions');
    for (const s of ['account', 'account.members', 'account.billing', 'ai', 'website', 'website.content', 'website.media', 'website.blog', 'website.editorial']) expect(ids).toContain(s);
    const content = expectStatus(await t.request('GET', `${API}/permissions/website.content`, { token: alice.token }), 200);
    expect(content).toMatchObject({ name: 'permissions/website.content', id: 'website.content', parent: 'website', level: 1, display_name: 'Content' });
    const children = expectStatus(await t.request('GET', `${API}/permissions?filter=${encodeURIComponent('parent = "account"')}`, { token: alice.token }), 200);
    expect(idsOf(children, 'permissions').every((id: string) => id.startsWith('account.'))).toBe(true);
  });

  it('answers NOT_FOUND for a section outside the tree and 401 without a token', async () => {
    expectError(await t.request('GET', `${API}/permissions/website.nothing`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/permissions`), 401, 'UNAUTHENTICATED');
  });
});

describe('roles', () => {
  it('lists the three built-in roles with their grants, read-only', async () => {
    const page = expectStatus(await t.request('GET', `${API}/roles`, { token: alice.token }), 200);
    await expectShape(t, 'ListRoles', 200, page);
    expect(idsOf(page, 'roles').sort()).toEqual(['administrator', 'editor', 'restricted']);
    const editor = expectStatus(await t.request('GET', `${API}/roles/editor`, { token: alice.token }), 200);
    expect(editor.grants).toEqual(expect.arrayContaining([{ section: 'website', access: 'WRITE' }, { section: 'account', access: 'READ' }]));
    expect(expectStatus(await t.request('GET', `${API}/roles/restricted`, { token: alice.token }), 200).grants).toEqual([]);
    expectError(await t.request('PATCH', `${API}/roles/editor`, { token: alice.token, body: { display_name: 'x' } }), 405, 'UNIMPLEMENTED');
  });
});

describe('account roles', () => {
  const roles = () => `${account()}/account_roles`;

  it('creates, reads, updates and deletes an account role with etags', async () => {
    const created = expectStatus(
      await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Writer', grants: [{ section: 'website.content', access: 'WRITE' }, { section: 'website', access: 'READ' }] } }),
      201,
    );
    await expectShape(t, 'CreateAccountRole', 201, created);
    expect(created.name).toBe(`accounts/${alice.accountId}/account_roles/${created.id}`);
    const got = expectStatus(await t.request('GET', `${API}/${created.name}`, { token: alice.token }), 200);
    expect(got.grants).toEqual([{ section: 'website', access: 'READ' }, { section: 'website.content', access: 'WRITE' }]);
    const stale = await t.request('PATCH', `${API}/${created.name}`, { token: alice.token, body: { description: 'x' }, headers: { 'if-match': '"999"' } });
    expectError(stale, 409, 'ABORTED');
    const updated = expectStatus(await t.request('PATCH', `${API}/${created.name}`, { token: alice.token, body: { description: 'Writes pages', etag: got.etag } }), 200);
    expect(updated.description).toBe('Writes pages');
    expect(updated.etag).not.toBe(got.etag);
    expect(idsOf(await list(t, alice.token, roles()), 'account_roles')).toContain(created.id);
    expect((await t.request('DELETE', `${API}/${created.name}`, { token: alice.token })).statusCode).toBe(204);
  });

  it('refuses a grant whose section is not in the tree, naming grants[i].section', async () => {
    const res = await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Bad', grants: [{ section: 'website', access: 'READ' }, { section: 'website.nope', access: 'READ' }] } });
    expectInvalid(res, 'grants[1].section');
    expectInvalid(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Bad', grants: [{ section: 'website', access: 'ALL' }] } }), 'grants[0].access');
  });

  it('refuses bad input: missing display_name, unknown field, oversize name, duplicate name', async () => {
    expectInvalid(await t.request('POST', roles(), { token: alice.token, body: { grants: [] } }), 'display_name');
    expectInvalid(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'x', color: 'red' } }), 'color');
    expectInvalid(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'x'.repeat(101) } }), 'display_name');
    expectStatus(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Twice' } }), 201);
    const again = expectError(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Twice' } }), 409, 'ALREADY_EXISTS');
    expect(JSON.stringify(again.details)).toContain('display_name');
  });

  it('refuses deleting a role a member holds unless force, which leaves its members roles/restricted with their own grants', async () => {
    const role = expectStatus(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'In use', grants: [{ section: 'website', access: 'WRITE' }] } }), 201);
    const dave = await t.signUp();
    await addMember(t, dave, alice.accountId, { role: { accountRole: role.id }, grants: [{ section: 'ai', access: 'READ' }] });
    const refused = expectError(await t.request('DELETE', `${API}/${role.name}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(refused.details)).toContain('ROLE_IN_USE');
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: dave.token })).statusCode).toBe(200);
    expect((await t.request('DELETE', `${API}/${role.name}?force=true`, { token: alice.token })).statusCode).toBe(204);
    const after = expectStatus(await t.request('GET', member(dave), { token: alice.token }), 200);
    expect(after).toMatchObject({ role: 'roles/restricted', grants: [{ section: 'ai', access: 'READ' }] });
    // The role's website grant is gone at once: the website answers 403 now.
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: dave.token }), 403, 'PERMISSION_DENIED');
  });

  it("answers NOT_FOUND for another tenant's account roles", async () => {
    const role = expectStatus(await t.request('POST', roles(), { token: alice.token, body: { display_name: 'Private' } }), 201);
    expectError(await t.request('GET', `${API}/${role.name}`, { token: eve.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/accounts/${eve.accountId}/account_roles/${role.id}`, { token: eve.token }), 404, 'NOT_FOUND');
  });
});

describe('members', () => {
  it('shows the account creator as its first administrator, with user, email and role', async () => {
    const me = expectStatus(await t.request('GET', member(alice), { token: alice.token }), 200);
    await expectShape(t, 'GetMember', 200, me);
    expect(me).toMatchObject({ name: `accounts/${alice.accountId}/members/${alice.userId}`, id: alice.userId, user: `users/${alice.userId}`, email: alice.email, role: 'roles/administrator', grants: [], website_ids: [] });
    const page = await list(t, alice.token, `${account()}/members`);
    expect(idsOf(page, 'members')).toContain(alice.userId);
  });

  it('changes a member\'s role and grants, effective on the next request', async () => {
    await addMember(t, bob, alice.accountId, { role: 'editor' });
    expectStatus(await t.request('PATCH', `${API}/websites/${alice.websiteId}`, { token: bob.token, body: { display_name: 'Renamed' } }), 403);
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: bob.token })).statusCode).toBe(200);
    const updated = expectStatus(await t.request('PATCH', member(bob), { token: alice.token, body: { role: 'roles/restricted', grants: [{ section: 'website.content', access: 'WRITE' }] } }), 200);
    expect(updated).toMatchObject({ role: 'roles/restricted', grants: [{ section: 'website.content', access: 'WRITE' }] });
    // website.content WRITE reaches pages, not the website's own Get (which needs READ on website).
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}/cms_pages`, { token: bob.token })).statusCode).toBe(200);
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/media`, { token: bob.token }), 403, 'PERMISSION_DENIED');
    expectStatus(await t.request('PATCH', member(bob), { token: alice.token, body: { role: 'roles/editor', grants: [] } }), 200);
  });

  it('refuses bad input: unknown role, unknown section, another account\'s role, unknown website, unknown field', async () => {
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { role: 'roles/owner' } }), 'role');
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { grants: [{ section: 'billing', access: 'READ' }] } }), 'grants[0].section');
    const evesRole = expectStatus(await t.request('POST', `${account(eve)}/account_roles`, { token: eve.token, body: { display_name: 'Eve role' } }), 201);
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { role: evesRole.name } }), 'role');
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { role: `accounts/${alice.accountId}/account_roles/nothere` } }), 'role');
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { website_ids: [eve.websiteId] } }), 'website_ids');
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { nickname: 'b' } }), 'nickname');
    expectInvalid(await t.request('PATCH', member(bob), { token: alice.token, body: { role: 7 } }), 'role');
    expect(expectStatus(await t.request('GET', member(bob), { token: alice.token }), 200).role).toBe('roles/editor');
  });

  it('keeps at least one administrator: demoting or removing the last one is FAILED_PRECONDITION', async () => {
    const demote = expectError(await t.request('PATCH', member(alice), { token: alice.token, body: { role: 'roles/editor' } }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(demote.details)).toContain('LAST_ADMINISTRATOR');
    expectError(await t.request('DELETE', member(alice), { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(expectStatus(await t.request('GET', member(alice), { token: alice.token }), 200).role).toBe('roles/administrator');
  });

  it('removing or demoting the last administrators concurrently leaves exactly one', async () => {
    const owner = await t.signUp();
    const second = await t.signUp();
    await addMember(t, second, owner.accountId, { role: 'administrator' });
    const [a, b] = await Promise.all([
      t.request('PATCH', member(owner, owner), { token: owner.token, body: { role: 'roles/editor' } }),
      t.request('DELETE', member(second, owner), { token: second.token }),
    ]);
    // Exactly one of the two wins; the other finds the account would lose its last administrator.
    const outcomes = [a.statusCode === 200 ? 'won' : a.statusCode, b.statusCode === 204 ? 'won' : b.statusCode];
    expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 400)).toHaveLength(1);
    const admin = a.statusCode === 200 ? second : owner;
    const members = (await list(t, admin.token, `${account(owner)}/members`)).members as any[];
    expect(members.filter((m) => m.role === 'roles/administrator')).toHaveLength(1);
  });

  it('a removed member loses access at once; their content stays', async () => {
    const dana = await t.signUp();
    await addMember(t, dana, alice.accountId, { role: 'editor' });
    const page = expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, { token: dana.token, body: { title: 'By Dana', url_key: 'by-dana' } }), 201);
    expect((await t.request('DELETE', member(dana), { token: alice.token })).statusCode).toBe(204);
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: dana.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', member(dana), { token: alice.token }), 404, 'NOT_FOUND');
    expectStatus(await t.request('GET', `${API}/${page.name}`, { token: alice.token }), 200);
  });

  it('nobody grants more than they hold; only administrators make administrators', async () => {
    const manager = await t.signUp();
    const helper = await t.signUp();
    await addMember(t, manager, alice.accountId, { role: 'editor', grants: [{ section: 'account.members', access: 'WRITE' }] });
    await addMember(t, helper, alice.accountId, { role: 'restricted' });
    const toAdmin = expectError(await t.request('PATCH', member(helper), { token: manager.token, body: { role: 'roles/administrator' } }), 403, 'PERMISSION_DENIED');
    expect(JSON.stringify(toAdmin.details)).toContain('ADMINISTRATOR_REQUIRED');
    const beyond = expectError(await t.request('PATCH', member(helper), { token: manager.token, body: { grants: [{ section: 'account.billing', access: 'WRITE' }] } }), 403, 'PERMISSION_DENIED');
    expect(JSON.stringify(beyond.details)).toContain('grants[0]');
    // Escalating their own grants is the same refusal.
    expectError(await t.request('PATCH', member(manager), { token: manager.token, body: { grants: [{ section: 'account', access: 'WRITE' }] } }), 403, 'PERMISSION_DENIED');
    expectError(await t.request('POST', `${account()}/account_roles`, { token: manager.token, body: { display_name: 'Too much', grants: [{ section: 'ai', access: 'WRITE' }] } }), 403, 'PERMISSION_DENIED');
    // Within reach it works.
    expectStatus(await t.request('PATCH', member(helper), { token: manager.token, body: { role: 'roles/editor' } }), 200);
    expectError(await t.request('DELETE', member(alice), { token: manager.token }), 403, 'PERMISSION_DENIED');
    expect(expectStatus(await t.request('GET', member(manager), { token: alice.token }), 200).grants).toEqual([{ section: 'account.members', access: 'WRITE' }]);
  });

  it('a membership limited to websites sees only those: others NOT_FOUND, left out of website Lists', async () => {
    const project = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200).parent as string;
    const other = await createWebsite(t, alice.token, project.split('/')[1], { display_name: 'Second site' });
    const limited = await t.signUp();
    await addMember(t, limited, alice.accountId, { role: 'editor' });
    expectStatus(await t.request('PATCH', member(limited), { token: alice.token, body: { website_ids: [alice.websiteId] } }), 200);
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}/cms_pages`, { token: limited.token })).statusCode).toBe(200);
    expectError(await t.request('GET', `${API}/websites/${other.id}`, { token: limited.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/${other.id}/cms_pages`, { token: limited.token }), 404, 'NOT_FOUND');
    const visible = await list(t, limited.token, `${API}/${project}/websites`);
    expect(idsOf(visible, 'websites')).toEqual([alice.websiteId]);
    expect(visible.total_size).toBe(1);
    expect(idsOf(await list(t, alice.token, `${API}/${project}/websites`), 'websites').sort()).toEqual([alice.websiteId, other.id].sort());
    expectInvalid(await t.request('PATCH', member(limited), { token: alice.token, body: { role: 'roles/administrator' } }), 'website_ids');
  });

  it('any member may leave (members:leave) whatever they hold; the last administrator may not', async () => {
    const quiet = await t.signUp();
    await addMember(t, quiet, alice.accountId, { role: 'restricted' });
    expectError(await t.request('DELETE', member(quiet), { token: quiet.token }), 403, 'PERMISSION_DENIED');
    expectStatus(await t.request('POST', `${account()}/members:leave`, { token: quiet.token, body: {} }), 200);
    expectError(await t.request('POST', `${account()}/members:leave`, { token: quiet.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', member(quiet), { token: alice.token }), 404, 'NOT_FOUND');
    const alone = expectError(await t.request('POST', `${account(eve)}/members:leave`, { token: eve.token, body: {} }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(alone.details)).toContain('LAST_ADMINISTRATOR');
  });

  it("a member of account A touching account B's members answers NOT_FOUND", async () => {
    expectError(await t.request('GET', `${account(eve)}/members/${eve.userId}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${account(eve)}/members/${eve.userId}`, { token: alice.token, body: { role: 'roles/editor' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${account(eve)}/members/${eve.userId}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${account()}/members/${eve.userId}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${account()}/members`), 401, 'UNAUTHENTICATED');
    void carol;
  });
});
