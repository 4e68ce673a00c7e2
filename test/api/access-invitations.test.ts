/** Invitations (issue 12, point 5): create sends a mail with a one-time link; accept, revoke, resend; tokens single use; limits. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startMailingApp, type MailingApp, type TestSmtp } from '../support/smtp.js';
import { eventually } from '../support/fixtures-auth.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, idsOf, list } from '../support/fixtures.js';
import { addMember } from '../support/access.js';

const RATE_LIMIT = 30;
let mailing: MailingApp;
let smtp: TestSmtp;
let t: TestApp;
let logLines: string[];
let alice: TestUser;
let eve: TestUser;

/** Every invitation token the tests received by mail. */
const tokensSeen: string[] = [];

beforeAll(async () => {
  ({ t, smtp, logLines } = mailing = await startMailingApp({ INVITATION_RATE_LIMIT: String(RATE_LIMIT) }));
  [alice, eve] = await Promise.all([t.signUp(), t.signUp()]);
});
afterAll(() => mailing?.close());

let counter = 0;
const address = () => `invitee-${Date.now().toString(36)}-${++counter}@example.com`;
const invitations = (u: TestUser) => `${API}/accounts/${u.accountId}/invitations`;
const accept = (body: Record<string, unknown>, token?: string) => t.request('POST', `${API}/invitations:accept`, { token, body });

/** Invites `email` into `by`'s account and answers the invitation and the token read out of the received mail. */
async function invite(by: TestUser, body: Record<string, unknown>): Promise<{ invitation: any; token: string; mailText: string }> {
  const invitation = expectStatus(await t.request('POST', invitations(by), { token: by.token, body: { role: 'roles/editor', ...body } }), 201);
  const mail = await smtp.nextMail(String(body.email));
  const token = smtp.tokenFrom(mail);
  tokensSeen.push(token);
  return { invitation, token, mailText: mail.text };
}

describe('invitations', () => {
  it('create sends a mail with a one-time link; the invitation is PENDING for 7 days and never shows the token', async () => {
    const email = address();
    const before = Date.now();
    const { invitation, token, mailText } = await invite(alice, { email });
    await expectShape(t, 'CreateInvitation', 201, invitation);
    expect(invitation).toMatchObject({ email, role: 'roles/editor', state: 'PENDING', grants: [], website_ids: [], inviter: `users/${alice.userId}` });
    const ttl = Date.parse(invitation.expire_time) - before;
    expect(ttl).toBeGreaterThanOrEqual(7 * 24 * 3600_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600_000 + 60_000);
    expect(token.length).toBeGreaterThanOrEqual(22); // ≥ 128 bits in base64url
    expect(mailText).toContain('Accept');
    const got = expectStatus(await t.request('GET', `${API}/${invitation.name}`, { token: alice.token }), 200);
    expect(JSON.stringify(got)).not.toContain(token);
    expect(JSON.stringify(got)).not.toContain('token_hash');
    expect(idsOf(await list(t, alice.token, invitations(alice)), 'invitations')).toContain(invitation.id);
  });

  it('accept takes the invitation token as invitation_token; the deprecated token keeps working; both disagreeing or neither is INVALID_ARGUMENT naming invitation_token', async () => {
    const dan = await t.signUp();
    const { token } = await invite(alice, { email: dan.email });
    expectInvalid(await accept({}, dan.token), 'invitation_token');
    expectInvalid(await accept({ invitation_token: token, token: `${token}x` }, dan.token), 'invitation_token');
    const joined = expectStatus(await accept({ invitation_token: token }, dan.token), 200);
    expect(joined.member.id).toBe(dan.userId);
    // The old name, for clients written before: the same call.
    const erin = await t.signUp();
    const second = await invite(alice, { email: erin.email });
    expect(expectStatus(await accept({ token: second.token, invitation_token: second.token }, erin.token), 200).member.id).toBe(erin.userId);
    const doc = expectStatus(await t.request('GET', `${API}/openapi.json`), 200);
    const request = doc.components.schemas.AcceptInvitationRequest;
    expect(request.properties.invitation_token.type).toBe('string');
    expect(request.properties.token.deprecated).toBe(true);
    expect(request.properties.token.description).toContain('invitation_token');
  });

  it('accept without a bearer token creates the user of a new address, joins it and answers a token', async () => {
    const email = address();
    const { invitation, token } = await invite(alice, { email, role: 'roles/restricted', grants: [{ section: 'website.content', access: 'WRITE' }] });
    const joined = expectStatus(await accept({ token, password: 'secret-pass-1', display_name: 'New Person' }), 200);
    await expectShape(t, 'AcceptInvitation', 200, joined);
    expect(joined.member).toMatchObject({ email, display_name: 'New Person', role: 'roles/restricted', grants: [{ section: 'website.content', access: 'WRITE' }] });
    expect(typeof joined.token).toBe('string');
    // The new user works at once, with what the invitation granted.
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}/cms_pages`, { token: joined.token })).statusCode).toBe(200);
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/media`, { token: joined.token }), 403, 'PERMISSION_DENIED');
    const signIn = expectStatus(await t.request('POST', `${API}/users:authenticate`, { body: { email, password: 'secret-pass-1' } }), 200);
    expect(typeof signIn.token).toBe('string');
    const after = expectStatus(await t.request('GET', `${API}/${invitation.name}`, { token: alice.token }), 200);
    expect(after).toMatchObject({ state: 'ACCEPTED', member: `accounts/${alice.accountId}/members/${joined.member.id}` });
    // Single use.
    const reused = expectError(await accept({ token, password: 'secret-pass-1' }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(reused.details)).toContain('INVITATION_ACCEPTED');
  });

  it('accept with a bearer token joins the signed-in user when the address is theirs', async () => {
    const bob = await t.signUp();
    const { token } = await invite(alice, { email: bob.email.toUpperCase() });
    const joined = expectStatus(await accept({ token }, bob.token), 200);
    expect(joined.member).toMatchObject({ id: bob.userId, user: `users/${bob.userId}`, role: 'roles/editor' });
    expect(joined.token).toBeUndefined();
    expect((await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: bob.token })).statusCode).toBe(200);
  });

  it('refuses a token for another address (403 INVITATION_EMAIL_MISMATCH) and leaves the invitation pending', async () => {
    const { invitation, token } = await invite(alice, { email: address() });
    const refused = expectError(await accept({ token }, eve.token), 403, 'PERMISSION_DENIED');
    expect(JSON.stringify(refused.details)).toContain('INVITATION_EMAIL_MISMATCH');
    expect(expectStatus(await t.request('GET', `${API}/${invitation.name}`, { token: alice.token }), 200).state).toBe('PENDING');
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: eve.token }), 404, 'NOT_FOUND');
  });

  it('asks to sign in when the address already has a user and the caller is not signed in', async () => {
    const carol = await t.signUp();
    const { token } = await invite(alice, { email: carol.email });
    const refused = expectError(await accept({ token, password: 'another-pass-2' }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(refused.details)).toContain('SIGN_IN_REQUIRED');
    expectStatus(await accept({ token }, carol.token), 200);
  });

  it('refuses tampered and unknown tokens with NOT_FOUND, and a new user without a valid password naming password', async () => {
    const { token } = await invite(alice, { email: address() });
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    expectError(await accept({ token: tampered, password: 'secret-pass-1' }), 404, 'NOT_FOUND');
    expectInvalid(await accept({ token }), 'password');
    expectInvalid(await accept({ token, password: 'short' }), 'password');
    expectInvalid(await accept({ token, password: 'secret-pass-1', extra: 1 }), 'extra');
    expectInvalid(await accept({}), 'token');
  });

  it('revoke ends a pending invitation; its link stops working', async () => {
    const { invitation, token } = await invite(alice, { email: address() });
    const revoked = expectStatus(await t.request('POST', `${API}/${invitation.name}:revoke`, { token: alice.token, body: {} }), 200);
    expect(revoked.state).toBe('REVOKED');
    const refused = expectError(await accept({ token, password: 'secret-pass-1' }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(refused.details)).toContain('INVITATION_REVOKED');
    expectError(await t.request('POST', `${API}/${invitation.name}:revoke`, { token: alice.token, body: {} }), 400, 'FAILED_PRECONDITION');
    expectError(await t.request('POST', `${API}/${invitation.name}:resend`, { token: alice.token, body: {} }), 400, 'FAILED_PRECONDITION');
  });

  it('resend mints a new token and the old one stops working', async () => {
    const email = address();
    const { invitation, token: first } = await invite(alice, { email });
    const resent = expectStatus(await t.request('POST', `${API}/${invitation.name}:resend`, { token: alice.token, body: { etag: invitation.etag } }), 200);
    expect(resent.state).toBe('PENDING');
    const second = smtp.tokenFrom(await smtp.nextMail(email));
    expect(second).not.toBe(first);
    expectError(await accept({ token: first, password: 'secret-pass-1' }), 404, 'NOT_FOUND');
    expectStatus(await accept({ token: second, password: 'secret-pass-1' }), 200);
  });

  it('an expired invitation shows EXPIRED and cannot be accepted; resend revives it', async () => {
    const email = address();
    const { invitation, token } = await invite(alice, { email, expire_time: new Date(Date.now() + 1500).toISOString() });
    await eventually(async () => expectStatus(await t.request('GET', `${API}/${invitation.name}`, { token: alice.token }), 200).state === 'EXPIRED', 'the invitation to expire');
    const refused = expectError(await accept({ token, password: 'secret-pass-1' }), 400, 'FAILED_PRECONDITION');
    expect(JSON.stringify(refused.details)).toContain('INVITATION_EXPIRED');
    expect(expectStatus(await t.request('POST', `${API}/${invitation.name}:resend`, { token: alice.token, body: {} }), 200).state).toBe('PENDING');
  });

  it('of two concurrent accepts of one token exactly one wins', async () => {
    const dan = await t.signUp();
    const { token } = await invite(alice, { email: dan.email });
    const answers = await Promise.all([accept({ token }, dan.token), accept({ token }, dan.token)]);
    const codes = answers.map((a) => a.statusCode).sort();
    expect(codes[0]).toBe(200);
    expect(codes[1]).toBeGreaterThanOrEqual(400);
    const members = (await list(t, alice.token, `${API}/accounts/${alice.accountId}/members`)).members as any[];
    expect(members.filter((m) => m.id === dan.userId)).toHaveLength(1);
  });

  it('inviting an existing member, or an address with a pending invitation, is ALREADY_EXISTS naming email', async () => {
    const owner = await t.signUp();
    const existing = expectError(await t.request('POST', invitations(owner), { token: owner.token, body: { email: owner.email, role: 'roles/editor' } }), 409, 'ALREADY_EXISTS');
    expect(JSON.stringify(existing.details)).toContain('email');
    const email = address();
    await invite(owner, { email });
    const pending = expectError(await t.request('POST', invitations(owner), { token: owner.token, body: { email, role: 'roles/editor' } }), 409, 'ALREADY_EXISTS');
    expect(JSON.stringify(pending.details)).toContain('email');
  });

  it('refuses bad input naming the field and writes nothing', async () => {
    const owner = await t.signUp();
    const send = (body: Record<string, unknown>) => t.request('POST', invitations(owner), { token: owner.token, body });
    expectInvalid(await send({ role: 'roles/editor' }), 'email');
    expectInvalid(await send({ email: 'not-an-address', role: 'roles/editor' }), 'email');
    expectInvalid(await send({ email: `${'x'.repeat(250)}@example.com`, role: 'roles/editor' }), 'email');
    expectInvalid(await send({ email: address() }), 'role');
    expectInvalid(await send({ email: address(), role: 'roles/owner' }), 'role');
    expectInvalid(await send({ email: address(), role: 'roles/editor', grants: [{ section: 'nowhere', access: 'READ' }] }), 'grants[0].section');
    expectInvalid(await send({ email: address(), role: 'roles/editor', website_ids: [eve.websiteId] }), 'website_ids');
    expectInvalid(await send({ email: address(), role: 'roles/editor', expire_time: new Date(Date.now() - 1000).toISOString() }), 'expire_time');
    expectInvalid(await send({ email: address(), role: 'roles/editor', expire_time: new Date(Date.now() + 40 * 24 * 3600_000).toISOString() }), 'expire_time');
    expectInvalid(await send({ email: address(), role: 'roles/editor', colour: 'blue' }), 'colour');
    expect((await list(t, owner.token, invitations(owner))).invitations).toEqual([]);
  });

  it('a non-administrator cannot invite an administrator or offer more than they hold', async () => {
    const manager = await t.signUp();
    await addMember(t, manager, alice.accountId, { role: 'editor', grants: [{ section: 'account.members', access: 'WRITE' }] });
    expectError(await t.request('POST', invitations(alice), { token: manager.token, body: { email: address(), role: 'roles/administrator' } }), 403, 'PERMISSION_DENIED');
    expectError(
      await t.request('POST', invitations(alice), { token: manager.token, body: { email: address(), role: 'roles/restricted', grants: [{ section: 'account.billing', access: 'WRITE' }] } }),
      403,
      'PERMISSION_DENIED',
    );
    const editor = await t.signUp();
    await addMember(t, editor, alice.accountId, { role: 'editor' });
    expectError(await t.request('POST', invitations(alice), { token: editor.token, body: { email: address(), role: 'roles/restricted' } }), 403, 'PERMISSION_DENIED');
  });

  it('an invitation limited to websites makes a membership limited to them', async () => {
    const owner = await t.signUp();
    const { token } = await invite(owner, { email: address(), website_ids: [owner.websiteId] });
    const joined = expectStatus(await accept({ token, password: 'secret-pass-1' }), 200);
    expect(joined.member.website_ids).toEqual([owner.websiteId]);
  });

  it('limits invitation mails per account: beyond the limit 429 RESOURCE_EXHAUSTED with RETRY_INFO', async () => {
    const owner = await t.signUp();
    for (let i = 0; i < RATE_LIMIT; i++) expectStatus(await t.request('POST', invitations(owner), { token: owner.token, body: { email: address(), role: 'roles/editor' } }), 201);
    const limited = await t.request('POST', invitations(owner), { token: owner.token, body: { email: address(), role: 'roles/editor' } });
    const error = expectError(limited, 429, 'RESOURCE_EXHAUSTED');
    expect(error.details.some((d: any) => d.type === 'RETRY_INFO')).toBe(true);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Other accounts are not affected.
    expectStatus(await t.request('POST', invitations(eve), { token: eve.token, body: { email: address(), role: 'roles/editor' } }), 201);
  });

  it('answers the same for an address that has a user and one that has none (no enumeration through invitations)', async () => {
    const owner = await t.signUp();
    const someone = await t.signUp();
    const known = expectStatus(await t.request('POST', invitations(owner), { token: owner.token, body: { email: someone.email, role: 'roles/editor' } }), 201);
    const unknown = expectStatus(await t.request('POST', invitations(owner), { token: owner.token, body: { email: address(), role: 'roles/editor' } }), 201);
    expect(Object.keys(known).sort()).toEqual(Object.keys(unknown).sort());
    expect(known.state).toBe(unknown.state);
  });

  it('never logs an invitation token or a password', () => {
    expect(tokensSeen.length).toBeGreaterThan(5);
    expect(logLines.length).toBeGreaterThan(50);
    const leaked = logLines.filter((line) => tokensSeen.some((token) => line.includes(token)) || line.includes('secret-pass-1'));
    expect(leaked).toEqual([]);
  });

  it("answers NOT_FOUND for another tenant's invitations", async () => {
    const { invitation } = await invite(alice, { email: address() });
    expectError(await t.request('GET', `${API}/${invitation.name}`, { token: eve.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${API}/${invitation.name}:revoke`, { token: eve.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${invitations(eve)}/${invitation.id}`, { token: eve.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', invitations(alice)), 401, 'UNAUTHENTICATED');
  });
});
