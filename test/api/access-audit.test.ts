/**
 * Outside check of issue 12 (users and access): rules the area's other test files left uncovered,
 * hostile input and other tenants' ids on every route of the area, concurrency, and secrets.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type Platform } from '../../src/app.js';
import type { TestApp, TestUser } from '../support/app.js';
import { addMember } from '../support/access.js';
import { eventually } from '../support/fixtures-auth.js';
import { startMailingApp, type MailingApp, type TestSmtp } from '../support/smtp.js';
import { API, createWebsite, expectError, expectInvalid, expectStatus, list, violations, type Response } from '../support/fixtures.js';

const RATE_LIMIT = 3;
let mailing: MailingApp;
let smtp: TestSmtp;
let t: TestApp;
let logLines: string[];
let alice: TestUser;
let eve: TestUser;

/** Every response body the tests received, and every one-time token read out of a mail. */
const bodies: string[] = [];
const tokensSeen: string[] = [];

beforeAll(async () => {
  ({ t, smtp, logLines } = mailing = await startMailingApp({ INVITATION_RATE_LIMIT: String(RATE_LIMIT) }));
  [alice, eve] = await Promise.all([t.signUp(), t.signUp()]);
});
afterAll(() => mailing?.close());

async function call(method: string, url: string, token?: string, body?: unknown): Promise<Response> {
  const res = await t.request(method, url, { token, body });
  bodies.push(res.body);
  return res;
}

let counter = 0;
const address = () => `audit-${Date.now().toString(36)}-${++counter}@example.com`;
const account = (u: TestUser) => `${API}/accounts/${u.accountId}`;
const accept = (body: Record<string, unknown>, token?: string) => call('POST', `${API}/invitations:accept`, token, body);

/** Invites `email` into `by`'s account; answers the invitation and the token of the mailed link. */
async function invite(by: TestUser, body: Record<string, unknown>): Promise<{ invitation: any; token: string }> {
  const invitation = expectStatus(await call('POST', `${account(by)}/invitations`, by.token, { role: 'roles/editor', ...body }), 201);
  const token = smtp.tokenFrom(await smtp.nextMail(String(body.email)));
  tokensSeen.push(token);
  return { invitation, token };
}

const reasonOf = (error: any) => error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE')?.reason;

describe('account roles and website-limited members', () => {
  it('a member limited to some websites cannot widen an account role that members beyond those websites hold', async () => {
    const owner = await t.signUp();
    const project = expectStatus(await call('GET', `${API}/websites/${owner.websiteId}`, owner.token), 200).parent as string;
    const elsewhere = await createWebsite(t, owner.token, project.split('/')[1], { display_name: 'Elsewhere' });
    const [manager, holder] = await Promise.all([t.signUp(), t.signUp()]);
    await addMember(t, manager, owner.accountId, { role: 'editor', grants: [{ section: 'account.members', access: 'WRITE' }], websiteIds: [owner.websiteId] });
    const role = expectStatus(await call('POST', `${account(owner)}/account_roles`, owner.token, { display_name: 'Readers', grants: [{ section: 'website', access: 'READ' }] }), 201);
    await addMember(t, holder, owner.accountId, { role: { accountRole: role.id } });

    const widen = { grants: [{ section: 'website', access: 'WRITE' }] };
    const refused = expectError(await call('PATCH', `${API}/${role.name}`, manager.token, widen), 403, 'PERMISSION_DENIED');
    expect(reasonOf(refused)).toBe('GRANT_EXCEEDS_OWN');
    expectError(await call('POST', `${API}/websites/${elsewhere.id}/cms_pages`, holder.token, { title: 'Not mine', url_key: 'not-mine' }), 403, 'PERMISSION_DENIED');

    // Once every holder is limited to the manager's websites, the manager may change the role.
    expectStatus(await call('PATCH', `${account(owner)}/members/${holder.userId}`, owner.token, { website_ids: [owner.websiteId] }), 200);
    expect(expectStatus(await call('PATCH', `${API}/${role.name}`, manager.token, widen), 200).grants).toEqual(widen.grants);
    expectStatus(await call('POST', `${API}/websites/${owner.websiteId}/cms_pages`, holder.token, { title: 'Mine', url_key: 'mine' }), 201);
  });
});

describe('invitations', () => {
  it('resend is ALREADY_EXISTS naming email when the address got another pending invitation or joined meanwhile', async () => {
    const owner = await t.signUp();
    const email = address();
    const { invitation: first } = await invite(owner, { email, expire_time: new Date(Date.now() + 1500).toISOString() });
    await eventually(async () => expectStatus(await call('GET', `${API}/${first.name}`, owner.token), 200).state === 'EXPIRED', 'the invitation to expire');
    const { token } = await invite(owner, { email });
    const pending = expectError(await call('POST', `${API}/${first.name}:resend`, owner.token, {}), 409, 'ALREADY_EXISTS');
    expect(violations(pending).map((v) => v.field)).toEqual(['email']);
    expectStatus(await accept({ token, password: 'audit-pass-1' }), 200);
    const member = expectError(await call('POST', `${API}/${first.name}:resend`, owner.token, {}), 409, 'ALREADY_EXISTS');
    expect(violations(member).map((v) => v.field)).toEqual(['email']);
    expect(expectStatus(await call('GET', `${API}/${first.name}`, owner.token), 200).state).toBe('EXPIRED');
  });

  it('resend counts against the invitation mail limit: beyond it 429 RESOURCE_EXHAUSTED with RETRY_INFO', async () => {
    const owner = await t.signUp();
    const { invitation } = await invite(owner, { email: address() });
    for (let i = 1; i < RATE_LIMIT; i++) expectStatus(await call('POST', `${API}/${invitation.name}:resend`, owner.token, {}), 200);
    const limited = expectError(await call('POST', `${API}/${invitation.name}:resend`, owner.token, {}), 429, 'RESOURCE_EXHAUSTED');
    expect(limited.details.some((d: any) => d.type === 'RETRY_INFO')).toBe(true);
    expect(expectStatus(await call('GET', `${API}/${invitation.name}`, owner.token), 200).state).toBe('PENDING');
  });

  it('the token of an accepted invitation is refused when used again (INVITATION_ACCEPTED); the membership stays one', async () => {
    const owner = await t.signUp();
    const { invitation, token } = await invite(owner, { email: address() });
    const joined = expectStatus(await accept({ token, password: 'audit-pass-1' }), 200);
    const again = expectError(await accept({ token, password: 'audit-pass-1' }), 400, 'FAILED_PRECONDITION');
    expect(reasonOf(again)).toBe('INVITATION_ACCEPTED');
    expect(reasonOf(expectError(await accept({ token }, joined.token), 400, 'FAILED_PRECONDITION'))).toBe('INVITATION_ACCEPTED');
    expect(expectStatus(await call('GET', `${API}/${invitation.name}`, owner.token), 200)).toMatchObject({ state: 'ACCEPTED', member: joined.member.name });
    const members = (await list(t, owner.token, `${account(owner)}/members`)).members as any[];
    expect(members.filter((m) => m.id === joined.member.id)).toHaveLength(1);
  });

  it('accepting while already a member is ALREADY_EXISTS; the invitation stays pending and the membership unchanged', async () => {
    const [owner, someone] = await Promise.all([t.signUp(), t.signUp()]);
    const { invitation, token } = await invite(owner, { email: someone.email, role: 'roles/restricted' });
    // Joined meanwhile by another way (what an earlier invitation's acceptance writes).
    await addMember(t, someone, owner.accountId, { role: 'editor' });
    expectError(await accept({ token }, someone.token), 409, 'ALREADY_EXISTS');
    expect(expectStatus(await call('GET', `${API}/${invitation.name}`, owner.token), 200).state).toBe('PENDING');
    expect(expectStatus(await call('GET', `${account(owner)}/members/${someone.userId}`, owner.token), 200).role).toBe('roles/editor');
  });

  it('of two concurrent accepts that would both create the user exactly one wins; the other is a canonical 4xx', async () => {
    const owner = await t.signUp();
    const email = address();
    const { token } = await invite(owner, { email });
    const answers = await Promise.all([accept({ token, password: 'audit-pass-1' }), accept({ token, password: 'audit-pass-2' })]);
    const won = answers.filter((a) => a.statusCode === 200);
    expect(won).toHaveLength(1);
    const lost = answers.find((a) => a.statusCode !== 200)!;
    if (lost.statusCode === 409) expectError(lost, 409, 'ALREADY_EXISTS');
    else expect(reasonOf(expectError(lost, 400, 'FAILED_PRECONDITION'))).toBe('INVITATION_ACCEPTED');
    const members = (await list(t, owner.token, `${account(owner)}/members`)).members as any[];
    expect(members.filter((m) => m.email === email)).toHaveLength(1);
    // The winner's password is the one that signs in.
    const password = won[0] === answers[0] ? 'audit-pass-1' : 'audit-pass-2';
    expectStatus(await call('POST', `${API}/users:authenticate`, undefined, { email, password }), 200);
  });
});

describe('the last administrator', () => {
  it('deleting one administrator while the other leaves: one is refused as LAST_ADMINISTRATOR, an administrator remains', async () => {
    const [owner, second, third] = await Promise.all([t.signUp(), t.signUp(), t.signUp()]);
    await addMember(t, second, owner.accountId, { role: 'administrator' });
    await addMember(t, third, owner.accountId, { role: 'editor' });
    const deleteOwner = () => call('POST', `${API}/users/me/profile:delete_account`, owner.token, { current_password: owner.password });
    const secondLeaves = () => call('POST', `${account(owner)}/members:leave`, second.token, {});

    let answers: Response[];
    if (t.fresh.url) {
      // PostgreSQL: hold the owner's user row so the deletion stops right before its commit, with the
      // memberships it read still locked; the leave starts while it waits.
      const client = new pg.Client({ connectionString: t.fresh.url });
      await client.connect();
      try {
        const waiting = async (n: number) =>
          Number((await client.query(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)).rows[0].n) >= n;
        await client.query('begin');
        await client.query('select id from users where id = $1 for update', [owner.userId]);
        const deleting = deleteOwner();
        await eventually(() => waiting(1), 'the deletion to wait for the held row');
        const leaving = secondLeaves();
        await eventually(() => waiting(2), 'the leave to wait for the deletion');
        await client.query('commit');
        answers = await Promise.all([deleting, leaving]);
        expect(answers.map((a) => a.statusCode)).toEqual([200, 400]);
      } finally {
        await client.end();
      }
    } else {
      answers = await Promise.all([deleteOwner(), secondLeaves()]);
    }
    const won = answers.filter((a) => a.statusCode === 200);
    expect(won).toHaveLength(1);
    const lost = answers.find((a) => a.statusCode !== 200)!;
    expect(reasonOf(expectError(lost, 400, 'FAILED_PRECONDITION'))).toBe('LAST_ADMINISTRATOR');
    const members = (await list(t, third.token, `${account(owner)}/members`)).members as any[];
    expect(members.filter((m) => m.role === 'roles/administrator')).toHaveLength(1);
  });
});

describe('concurrent writes', () => {
  /** Every answer is a success or a canonical 4xx error (never a 5xx); answers the status codes. */
  function canonical(answers: Response[]): number[] {
    for (const a of answers) {
      expect(a.statusCode, a.body).toBeLessThan(500);
      if (a.statusCode >= 400) expectError(a, a.statusCode, JSON.parse(a.body).error.status);
    }
    return answers.map((a) => a.statusCode);
  }

  it('the same account role name or invitation address twice at once: one is created, the other ALREADY_EXISTS', async () => {
    const owner = await t.signUp();
    const roles = canonical(await Promise.all([1, 2].map(() => call('POST', `${account(owner)}/account_roles`, owner.token, { display_name: 'Twice' }))));
    expect(roles.sort()).toEqual([201, 409]);
    const email = address();
    const invites = canonical(await Promise.all([1, 2].map(() => call('POST', `${account(owner)}/invitations`, owner.token, { email, role: 'roles/editor' }))));
    expect(invites.sort()).toEqual([201, 409]);
    expect((await list(t, owner.token, `${account(owner)}/invitations`)).invitations).toHaveLength(1);
  });

  it('accept racing revoke or resend: the invitation ends in one consistent state', async () => {
    const owner = await t.signUp();
    const { invitation, token } = await invite(owner, { email: address() });
    const [accepted, revoked] = canonical(await Promise.all([accept({ token, password: 'audit-pass-1' }), call('POST', `${API}/${invitation.name}:revoke`, owner.token, {})]));
    const state = expectStatus(await call('GET', `${API}/${invitation.name}`, owner.token), 200).state;
    expect(state).toBe(accepted === 200 ? 'ACCEPTED' : 'REVOKED');
    expect([accepted, revoked].filter((c) => c === 200)).toHaveLength(1);

    const second = await invite(owner, { email: address() });
    const [took, resent] = canonical(await Promise.all([accept({ token: second.token, password: 'audit-pass-1' }), call('POST', `${API}/${second.invitation.name}:resend`, owner.token, {})]));
    const after = expectStatus(await call('GET', `${API}/${second.invitation.name}`, owner.token), 200).state;
    expect(after).toBe(took === 200 ? 'ACCEPTED' : 'PENDING');
    expect([took, resent].filter((c) => c === 200)).toHaveLength(1);
  });

  it('assigning an account role while it is deleted: the member never holds a role that is gone', async () => {
    const owner = await t.signUp();
    const helper = await t.signUp();
    await addMember(t, helper, owner.accountId, { role: 'editor' });
    const role = expectStatus(await call('POST', `${account(owner)}/account_roles`, owner.token, { display_name: 'Short-lived' }), 201);
    canonical(
      await Promise.all([
        call('PATCH', `${account(owner)}/members/${helper.userId}`, owner.token, { role: role.name }),
        call('DELETE', `${API}/${role.name}`, owner.token),
      ]),
    );
    const member = expectStatus(await call('GET', `${account(owner)}/members/${helper.userId}`, owner.token), 200);
    const exists = (await call('GET', `${API}/${role.name}`, owner.token)).statusCode === 200;
    if (member.role === role.name) expect(exists).toBe(true);
  });

  it('changing and removing one member at once: a canonical answer each, and the member is gone or changed', async () => {
    const owner = await t.signUp();
    const helper = await t.signUp();
    await addMember(t, helper, owner.accountId, { role: 'editor' });
    const url = `${account(owner)}/members/${helper.userId}`;
    const [patched, deleted] = canonical(await Promise.all([call('PATCH', url, owner.token, { role: 'roles/restricted' }), call('DELETE', url, owner.token)]));
    expect(deleted).toBe(204);
    expect([200, 404]).toContain(patched);
    expectError(await call('GET', url, owner.token), 404, 'NOT_FOUND');
  });
});

describe('membership changes on another process', () => {
  let other: Platform;
  beforeAll(async () => {
    // A second server on the same database: its own caches, as another process has.
    other = await buildApp({ config: t.config, database: t.fresh.database });
    await other.app.ready();
  });
  afterAll(() => other?.app.close());

  const onOther = (method: string, url: string, token: string, body?: unknown) =>
    other.app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${token}` }, ...(body ? { payload: body as object } : {}) });

  it('a demotion, an account role change and a removal take effect at once for the next request there', async () => {
    const [owner, member] = await Promise.all([t.signUp(), t.signUp()]);
    await addMember(t, member, owner.accountId, { role: 'editor' });
    const website = `${API}/websites/${owner.websiteId}`;
    expect((await onOther('GET', website, member.token)).statusCode).toBe(200);

    expectStatus(await call('PATCH', `${account(owner)}/members/${member.userId}`, owner.token, { role: 'roles/restricted' }), 200);
    expectError((await onOther('GET', website, member.token)) as never, 403, 'PERMISSION_DENIED');

    const role = expectStatus(await call('POST', `${account(owner)}/account_roles`, owner.token, { display_name: 'Viewers', grants: [{ section: 'website', access: 'READ' }] }), 201);
    expectStatus(await call('PATCH', `${account(owner)}/members/${member.userId}`, owner.token, { role: role.name }), 200);
    expect((await onOther('GET', website, member.token)).statusCode).toBe(200);
    const page = { title: 'Other process', url_key: 'other-process' };
    expectError((await onOther('POST', `${website}/cms_pages`, member.token, page)) as never, 403, 'PERMISSION_DENIED');
    expectStatus(await call('PATCH', `${API}/${role.name}`, owner.token, { grants: [{ section: 'website', access: 'WRITE' }] }), 200);
    expect((await onOther('POST', `${website}/cms_pages`, member.token, page)).statusCode).toBe(201);

    expect((await call('DELETE', `${account(owner)}/members/${member.userId}`, owner.token)).statusCode).toBe(204);
    expectError((await onOther('GET', website, member.token)) as never, 404, 'NOT_FOUND');
  });
});

describe('hostile input', () => {
  it('refuses wrong types, unknown fields, oversize and malformed values on every route of the area, naming the field', async () => {
    const owner = await t.signUp();
    const a = account(owner);
    const role = expectStatus(await call('POST', `${a}/account_roles`, owner.token, { display_name: 'Hostile' }), 201);
    const helper = await t.signUp();
    await addMember(t, helper, owner.accountId, { role: 'editor' });
    const { invitation } = await invite(owner, { email: address() });
    const member = `${a}/members/${helper.userId}`;
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', `${a}/account_roles`, { display_name: 5 }, 'display_name'],
      ['POST', `${a}/account_roles`, { display_name: 'x'.repeat(101) }, 'display_name'],
      ['POST', `${a}/account_roles`, { display_name: 'G', grants: 'all' }, 'grants'],
      ['POST', `${a}/account_roles`, { display_name: 'G', grants: [{ section: 'website', access: 'ADMIN' }] }, 'grants[0].access'],
      ['POST', `${a}/account_roles`, { display_name: 'G', grants: [{ section: 'website', access: 'READ', extra: 1 }] }, 'grants[0].extra'],
      ['POST', `${a}/account_roles`, { display_name: 'G', grants: Array.from({ length: 51 }, () => ({ section: 'website', access: 'READ' })) }, 'grants'],
      ['POST', `${a}/account_roles`, { display_name: 'G', description: 'x'.repeat(2001) }, 'description'],
      ['POST', `${a}/account_roles`, { display_name: 'G', owner: 'me' }, 'owner'],
      ['PATCH', `${API}/${role.name}`, { grants: [{ section: 'website.nothing', access: 'READ' }] }, 'grants[0].section'],
      ['PATCH', member, { role: ['roles/editor'] }, 'role'],
      ['PATCH', member, { role: 'roles/' + 'x'.repeat(300) }, 'role'],
      ['PATCH', member, { role: `accounts/${eve.accountId}/account_roles/${role.id}` }, 'role'],
      ['PATCH', member, { grants: {} }, 'grants'],
      ['PATCH', member, { website_ids: 'all' }, 'website_ids'],
      ['PATCH', member, { website_ids: [eve.websiteId] }, 'website_ids'],
      ['PATCH', member, { website_ids: ['x'.repeat(64)] }, 'website_ids[0]'],
      ['PATCH', member, { website_ids: Array.from({ length: 101 }, (_, i) => `w${i}`) }, 'website_ids'],
      ['POST', `${a}/invitations`, { email: ['a@example.com'], role: 'roles/editor' }, 'email'],
      ['POST', `${a}/invitations`, { email: address(), role: 'roles/editor', expire_time: 'next week' }, 'expire_time'],
      ['POST', `${a}/invitations`, { email: address(), role: `accounts/${eve.accountId}/account_roles/x` }, 'role'],
      ['POST', `${a}/invitations`, { email: address(), role: 'roles/editor', website_ids: [eve.websiteId] }, 'website_ids'],
      ['POST', `${API}/${invitation.name}:revoke`, { reason: 'x' }, 'reason'],
      ['POST', `${API}/invitations:accept`, { token: 12345 }, 'token'],
      ['POST', `${API}/invitations:accept`, { token: 'x'.repeat(257) }, 'token'],
      ['POST', `${API}/invitations:accept`, { token: 'abc', password: 'audit-pass-1', display_name: 'x'.repeat(256) }, 'display_name'],
      ['PATCH', `${API}/users/me/profile`, { time_zone: 5 }, 'time_zone'],
      ['PATCH', `${API}/users/me/profile`, { avatar_uri: 'javascript:alert(1)' }, 'avatar_uri'],
      ['POST', `${API}/users/me:change_password`, { current_password: owner.password, new_password: 'x'.repeat(300) }, 'new_password'],
      ['POST', `${API}/users/me:change_email`, { new_email: 'not an address', current_password: owner.password }, 'new_email'],
      ['POST', `${API}/users/me/profile:delete_account`, { current_password: owner.password, account_actions: [{ account: `accounts/${owner.accountId}` }] }, 'account_actions[0].action'],
      ['POST', `${API}/users:reset_password`, { token: 'made-up', new_password: 'audit-pass-9' }, 'token'],
      ['POST', `${API}/users:confirm_email`, { token: true }, 'token'],
    ];
    for (const [method, url, body, field] of cases) {
      const res = await call(method, url, owner.token, body);
      expect({ method, url, field, status: res.statusCode }).toMatchObject({ status: 400 });
      expectInvalid(res, field);
    }
    // Nothing of it was written.
    const still = expectStatus(await call('GET', member, owner.token), 200);
    expect(still).toMatchObject({ role: 'roles/editor', grants: [], website_ids: [] });
    expect(violations(expectInvalid(await call('PATCH', member, owner.token, { website_ids: [eve.websiteId] }), 'website_ids'))[0].description).toContain('of this account');
  });

  it("another tenant's ids on every route of the area answer NOT_FOUND, never PERMISSION_DENIED", async () => {
    const role = expectStatus(await call('POST', `${account(eve)}/account_roles`, eve.token, { display_name: 'Eve only' }), 201);
    const { invitation } = await invite(eve, { email: address() });
    const probes: Array<[string, string, unknown?]> = [
      ['GET', `${account(eve)}/account_roles`],
      ['POST', `${account(eve)}/account_roles`, { display_name: 'Intruder' }],
      ['GET', `${API}/${role.name}`],
      ['PATCH', `${API}/${role.name}`, { display_name: 'Intruder' }],
      ['DELETE', `${API}/${role.name}`],
      ['GET', `${account(alice)}/account_roles/${role.id}`],
      ['GET', `${account(eve)}/members`],
      ['GET', `${account(eve)}/members/${eve.userId}`],
      ['PATCH', `${account(eve)}/members/${eve.userId}`, { role: 'roles/editor' }],
      ['DELETE', `${account(eve)}/members/${eve.userId}`],
      ['POST', `${account(eve)}/members:leave`, {}],
      ['GET', `${account(alice)}/members/${eve.userId}`],
      ['GET', `${account(eve)}/invitations`],
      ['POST', `${account(eve)}/invitations`, { email: address(), role: 'roles/editor' }],
      ['GET', `${API}/${invitation.name}`],
      ['POST', `${API}/${invitation.name}:revoke`, {}],
      ['POST', `${API}/${invitation.name}:resend`, {}],
      ['GET', `${account(alice)}/invitations/${invitation.id}`],
      ['GET', `${API}/users/${eve.userId}`],
      ['GET', `${API}/users/${eve.userId}/profile`],
      ['PATCH', `${API}/users/${eve.userId}/profile`, { display_name: 'Intruder' }],
      ['POST', `${API}/users/${eve.userId}:change_password`, { current_password: eve.password, new_password: 'audit-pass-7' }],
      ['POST', `${API}/users/${eve.userId}:change_email`, { new_email: address(), current_password: eve.password }],
      ['POST', `${API}/users/${eve.userId}/profile:delete_account`, { current_password: eve.password }],
    ];
    for (const [method, url, body] of probes) {
      const res = await call(method, url, alice.token, body);
      expect({ method, url, status: res.statusCode }).toMatchObject({ status: 404 });
      expectError(res, 404, 'NOT_FOUND');
    }
    // Eve's things are as they were.
    expect(expectStatus(await call('GET', `${API}/${invitation.name}`, eve.token), 200).state).toBe('PENDING');
    expect(expectStatus(await call('GET', `${API}/${role.name}`, eve.token), 200).display_name).toBe('Eve only');
    expect(expectStatus(await call('GET', `${account(eve)}/members/${eve.userId}`, eve.token), 200).role).toBe('roles/administrator');
  });
});

describe('secrets', () => {
  it('no answer or log line carries a mailed token, a stored token hash or a password hash', async () => {
    // Exercise every flow that mints or stores a secret once more, then look for them everywhere.
    const owner = await t.signUp();
    const { token } = await invite(owner, { email: address() });
    const joined = expectStatus(await accept({ token, password: 'audit-pass-1', display_name: 'Joiner' }), 200);
    await call('POST', `${API}/users:request_password_reset`, undefined, { email: owner.email });
    tokensSeen.push(smtp.tokenFrom(await smtp.nextMail(owner.email)));
    const newEmail = address();
    expectStatus(await call('POST', `${API}/users/me:change_email`, owner.token, { new_email: newEmail, current_password: owner.password }), 200);
    tokensSeen.push(smtp.tokenFrom(await smtp.nextMail(newEmail)));
    for (const url of [`${account(owner)}/invitations`, `${account(owner)}/members`, `${account(owner)}/account_roles`, `${API}/users/me`, `${API}/users/me/profile`]) {
      expectStatus(await call('GET', url, owner.token), 200);
    }
    expectStatus(await call('GET', `${API}/users/me`, joined.token), 200);

    const { db } = t.platform.deps.database;
    const hashes = [
      ...(await db.selectFrom('invitations').select('token_hash as secret').execute()),
      ...(await db.selectFrom('user_tokens').select('token_hash as secret').execute()),
      ...(await db.selectFrom('users').select('password_hash as secret').execute()),
    ].map((r) => String(r.secret));
    expect(hashes.length).toBeGreaterThan(5);
    expect(tokensSeen.length).toBeGreaterThan(5);
    const secrets = [...hashes, ...tokensSeen, 'audit-pass-1', owner.password];
    const leakedInAnswers = bodies.filter((b) => secrets.some((s) => b.includes(s)));
    expect(leakedInAnswers).toEqual([]);
    const leakedInLogs = logLines.filter((line) => secrets.some((s) => line.includes(s)));
    expect(leakedInLogs).toEqual([]);
    expect(bodies.some((b) => /token_hash|password_hash/.test(b))).toBe(false);
  });
});
