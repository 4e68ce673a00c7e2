import type { Mailer } from '../platform/mail/mailer.js';
import type { AccessScope } from '../platform/auth/context.js';
import type { Grant } from '../platform/auth/rights.js';
import { randomToken, tokenHash } from '../platform/crypto.js';
import type { SqlDialect } from '../platform/db/database.js';
import type { Trx } from '../platform/db/schema.js';
import { AlreadyExists, FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { Limiter } from '../platform/limits/limits.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { invitationMailNames, lockInvitationAddress, membershipOfEmail, pendingInvitationOf } from './access.repo.js';
import { MEMBERS_RIGHTS } from './account-role.resource.js';
import { checkGrants, checkNotMoreThanHeld, grantsField, parseRole, type RoleRef } from './grants.js';
import { grantsOfRole } from './member.resource.js';

/** How long an invitation is valid by default, and at most. */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
const MAX_TTL_MS = 30 * 24 * 3600_000;

/** Stored state plus expiry: a PENDING invitation past its expire_time is EXPIRED. */
export function stateOf(row: Row, now: number): 'PENDING' | 'ACCEPTED' | 'REVOKED' | 'EXPIRED' {
  if (row.state === 'PENDING' && Number(row.expire_time) <= now) return 'EXPIRED';
  return row.state;
}

const refOfName = (row: Row): RoleRef => parseRole('role', row.role, row.account_id);

/**
 * Invitations (`accounts/{a}/invitations`): an email address, the role, grants and websites the
 * membership will have, and a one-time link sent by mail. The token (256 random bits) exists only in
 * the mail; the table keeps its SHA-256. `:resend` mints a new token (the old one stops working) and
 * extends the expiry; `:revoke` ends a pending invitation. Accepting is `POST invitations:accept`.
 */
export const invitationResource = (deps: { dialect: SqlDialect; mail: Mailer; limiter: Limiter }): ResourceDecl => {
  const { dialect } = deps;

  /** Checks role, grants and websites against the tree, the account and the caller's own reach. */
  async function checkTerms(ctx: WriteContext, row: Row): Promise<void> {
    const ref = refOfName(row);
    const roleGrants = await grantsOfRole(ctx, dialect, row.account_id, ref, 'role');
    const grants = checkGrants('grants', dialect.readJson<Grant[]>(row.grants) ?? []);
    row.grants = dialect.json(grants);
    const websiteIds = dialect.readJson<string[]>(row.website_ids) ?? [];
    if (ref.kind === 'built_in' && ref.role === 'administrator' && websiteIds.length) {
      throw InvalidArgument.field('website_ids', 'an administrator holds the whole account and cannot be limited to websites');
    }
    if (ctx.access) checkNotMoreThanHeld(ctx.access as AccessScope, { role: ref, roleGrants, grants, websiteIds });
  }

  /** ALREADY_EXISTS naming `email` when the address is a member, or has another pending invitation (under the address lock). */
  async function checkAddressFree(ctx: WriteContext, row: Row): Promise<void> {
    await lockInvitationAddress(ctx.trx, dialect, row.account_id, row.email);
    if (await membershipOfEmail(ctx.trx, row.account_id, row.email)) throw new AlreadyExists(`${row.email} is already a member of the account`, 'email');
    const pending = await pendingInvitationOf(ctx.trx, row.account_id, row.email, ctx.now, row.id);
    if (pending) throw new AlreadyExists(`${row.email} already has a pending invitation (${pending.id}); resend or revoke it`, 'email');
  }

  /** Mints a fresh token (stored hashed), counts the send against the account's limit and enqueues the mail in the write's transaction. */
  async function send(ctx: WriteContext, row: Row): Promise<void> {
    await deps.limiter.hit(`invitations/${row.account_id}`, ctx.now);
    const token = randomToken();
    row.token_hash = tokenHash(token);
    const { mail } = deps;
    const names = await mailNames(ctx.trx, row, ctx.caller.userId);
    await mail.enqueue(ctx.trx, {
      to: row.email,
      template: 'invitation',
      data: {
        account_name: names.account,
        inviter_name: names.inviter,
        role_name: names.role,
        accept_url: mail.link('/accept-invitation', token),
        expire_time: new Date(Number(row.expire_time)).toISOString(),
      },
    });
    ctx.afterCommit(() => mail.wake());
  }

  async function mailNames(trx: Trx, row: Row, inviterId: string) {
    const ref = refOfName(row);
    const names = await invitationMailNames(trx, row.account_id, inviterId, ref.kind === 'account_role' ? ref.id : undefined);
    const role = ref.kind === 'built_in' ? ref.role[0].toUpperCase() + ref.role.slice(1) : (names.accountRole ?? ref.id);
    return { account: names.account, inviter: names.inviter, role };
  }

  return {
    collection: 'invitations',
    singular: 'Invitation',
    table: 'invitations',
    description:
      'Invitations to join the account. Create sends a mail with a one-time link (token of 256 random bits, stored hashed, valid until `expire_time`, default 7 days, at most 30). ' +
      '`state`: PENDING, ACCEPTED, REVOKED, or EXPIRED (a pending invitation past `expire_time`). Inviting an address that already is a member, or that has a pending ' +
      'invitation, answers ALREADY_EXISTS naming `email` (use `:resend` or `:revoke`). The inviter cannot offer more than they hold (PERMISSION_DENIED GRANT_EXCEEDS_OWN). ' +
      'Mails per account are limited (INVITATION_RATE_LIMIT per hour, create and `:resend` alike): beyond, 429 RESOURCE_EXHAUSTED with RETRY_INFO.',
    collectionPath: 'accounts/{account_id}/invitations',
    itemPath: 'accounts/{account_id}/invitations/{invitation_id}',
    fields: {
      email: {
        type: 'string',
        description: 'Address the invitation is sent to; only the user holding it may accept.',
        behavior: ['REQUIRED', 'IMMUTABLE'],
        maxLength: 254,
        pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$',
        trim: true,
        lowercase: true,
        example: 'someone@example.com',
      },
      role: {
        type: 'string',
        description: 'Role of the membership: `roles/administrator`, `roles/editor`, `roles/restricted` or `accounts/{account}/account_roles/{id}`. An account role deleted before acceptance leaves `roles/restricted`.',
        behavior: ['REQUIRED', 'IMMUTABLE'],
        maxLength: 200,
        example: 'roles/editor',
      },
      grants: { ...grantsField('Grants of the membership on top of its role\'s.', { default: [] }), behavior: ['IMMUTABLE'] },
      website_ids: {
        type: 'string_list',
        description: 'Websites the membership will be limited to; empty: every website.',
        behavior: ['IMMUTABLE'],
        maxItems: 100,
        itemMaxLength: 63,
        default: [],
        refersTo: { table: 'websites', what: 'a website' },
      },
      state: { type: 'enum', values: ['PENDING', 'ACCEPTED', 'REVOKED', 'EXPIRED'], description: 'PENDING, ACCEPTED, REVOKED, or EXPIRED (pending past `expire_time`).', behavior: ['OUTPUT_ONLY'], column: false },
      expire_time: { type: 'timestamp', description: 'When the link stops working; default 7 days after create (or the latest `:resend`), at most 30 days ahead.', behavior: ['IMMUTABLE'] },
      inviter: { type: 'string', description: 'Who invited, `users/{user}`.', behavior: ['OUTPUT_ONLY'], column: false },
      accept_time: { type: 'timestamp', description: 'When the invitation was accepted.', behavior: ['OUTPUT_ONLY'] },
      member: { type: 'string', description: 'The membership the acceptance made, `accounts/{account}/members/{user}`.', behavior: ['OUTPUT_ONLY'], column: false },
    },
    filterable: ['create_time'],
    sortable: ['create_time'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create'],
    options: { clientId: true },
    rights: MEMBERS_RIGHTS,
    // `state` turns EXPIRED with the clock, without a write: the etag covers it.
    etagCoversComputed: true,
    hooks: {
      present(row, resource) {
        resource.state = stateOf(row, Date.now());
        if (row.inviter_user_id) resource.inviter = `users/${row.inviter_user_id}`;
        if (row.accepted_user_id) resource.member = `accounts/${row.account_id}/members/${row.accepted_user_id}`;
      },
      async beforeCreate(ctx, row) {
        const expire = row.expire_time === null || row.expire_time === undefined ? ctx.now + INVITATION_TTL_MS : Number(row.expire_time);
        if (expire <= ctx.now || expire > ctx.now + MAX_TTL_MS) throw InvalidArgument.field('expire_time', 'must be in the future and at most 30 days ahead');
        row.expire_time = expire;
        await checkTerms(ctx, row);
        await checkAddressFree(ctx, row);
        row.state = 'PENDING';
        row.inviter_user_id = ctx.caller.userId;
        row.send_count = 1;
        await send(ctx, row);
      },
    },
    customMethods: [
      {
        verb: 'revoke',
        on: 'item',
        summary: 'Revoke an Invitation',
        description: 'Ends a pending invitation: its link stops working. FAILED_PRECONDITION (INVITATION_NOT_PENDING) when it was accepted, revoked or expired already.',
        access: 'write',
        mutate(ctx, next, previous) {
          if (stateOf(previous, ctx.now) !== 'PENDING') throw new FailedPrecondition('INVITATION_NOT_PENDING', `the invitation is ${stateOf(previous, ctx.now)}`);
          next.state = 'REVOKED';
        },
      },
      {
        verb: 'resend',
        on: 'item',
        summary: 'Send an Invitation again',
        description:
          'Mints a new token and mails a new link; the previous link stops working. The invitation is valid for 7 days from now again (an EXPIRED one becomes PENDING). ' +
          'FAILED_PRECONDITION (INVITATION_NOT_PENDING) for an accepted or revoked invitation; ALREADY_EXISTS naming `email` when the address joined ' +
          'or got another pending invitation meanwhile; counts against the account\'s invitation mail limit (429 RESOURCE_EXHAUSTED).',
        access: 'write',
        async mutate(ctx, next, previous) {
          const state = stateOf(previous, ctx.now);
          if (state !== 'PENDING' && state !== 'EXPIRED') throw new FailedPrecondition('INVITATION_NOT_PENDING', `the invitation is ${state}`);
          await checkTerms(ctx, next);
          // An expired invitation does not hold its address: it may have joined, or got another invitation, since.
          await checkAddressFree(ctx, next);
          next.expire_time = ctx.now + INVITATION_TTL_MS;
          next.send_count = Number(previous.send_count) + 1;
          await send(ctx, next);
        },
      },
    ],
  };
};


