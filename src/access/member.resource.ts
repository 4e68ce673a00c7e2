import type { AccessScope } from '../platform/auth/context.js';
import { anyMember, type Grant } from '../platform/auth/rights.js';
import type { ResourceService } from '../platform/resource/engine.js';
import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, InvalidArgument, PermissionDenied } from '../platform/errors.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { usersById } from '../users/index.js';
import { accountRoleGrants, countAdministrators, lockAccountRole, lockAdministrators } from './access.repo.js';
import { MEMBERS_RIGHTS } from './account-role.resource.js';
import { builtInGrants, checkGrants, checkNotMoreThanHeld, GRANT_SCHEMA, grantsField, MAX_GRANTS, parseRole, roleColumns, roleName, type RoleRef } from './grants.js';

/** Role reference of stored membership columns. */
const refOf = (row: Row): RoleRef => (row.role === 'account_role' ? { kind: 'account_role', id: row.account_role_id } : { kind: 'built_in', role: row.role });

/** The grants a role reference holds (an account role read inside the write's transaction, locked). */
export async function grantsOfRole(ctx: WriteContext, dialect: SqlDialect, accountId: string, ref: RoleRef, field: string): Promise<readonly Grant[]> {
  if (ref.kind === 'built_in') return builtInGrants(ref.role);
  await lockAccountRole(ctx.trx, dialect, accountId, ref.id);
  const grants = await accountRoleGrants(ctx.trx, dialect, accountId, ref.id);
  if (!grants) throw InvalidArgument.field(field, `accounts/${accountId}/account_roles/${ref.id} does not exist`);
  return grants;
}

/** Refuses a non-administrator's change to a membership that holds more than the caller (before or after). */
async function checkReach(ctx: WriteContext, dialect: SqlDialect, row: Row): Promise<void> {
  const caller = ctx.access as AccessScope | undefined;
  if (!caller || caller.administrator) return;
  const role = refOf(row);
  const roleGrants = role.kind === 'built_in' ? builtInGrants(role.role) : ((await accountRoleGrants(ctx.trx, dialect, row.account_id, role.id)) ?? []);
  checkNotMoreThanHeld(caller, {
    role,
    roleGrants,
    grants: dialect.readJson<Grant[]>(row.grants) ?? [],
    websiteIds: dialect.readJson<string[]>(row.website_ids) ?? [],
  });
}

/** At least one administrator always remains: refuses removing the last one (under the account's administrators lock). */
async function keepAnAdministrator(ctx: WriteContext, dialect: SqlDialect, accountId: string, what: string): Promise<void> {
  await lockAdministrators(ctx.trx, dialect, accountId);
  if ((await countAdministrators(ctx.trx, accountId)) <= 1) {
    throw new FailedPrecondition('LAST_ADMINISTRATOR', `${what} would leave the account without an administrator; make another member an administrator first`);
  }
}

/**
 * Members (`accounts/{a}/members/{user id}`): who belongs to the account and what they hold: a role
 * (built-in or an account role), extra grants, and optionally the websites the membership is
 * limited to. Members join by accepting an invitation; the account's creator is its first
 * administrator.
 */
export const memberResource = (dialect: SqlDialect, services: () => Record<string, ResourceService>): ResourceDecl => ({
  collection: 'members',
  singular: 'Member',
  table: 'memberships',
  description:
    'Who belongs to the account. A member holds its `role` (`roles/administrator`, `roles/editor`, `roles/restricted` or an account role) plus its own `grants`; ' +
    'with `website_ids` set, the membership reaches only those websites (others answer NOT_FOUND, and Lists of websites leave them out). ' +
    'Members join by accepting an invitation. Guards: the account always keeps an administrator (demoting or removing the last one is FAILED_PRECONDITION LAST_ADMINISTRATOR, ' +
    'also under concurrent requests); only administrators make administrators or change a member holding more than they hold; nobody grants more than they hold ' +
    '(PERMISSION_DENIED GRANT_EXCEEDS_OWN). Delete removes the membership only: what the member wrote stays. Changes take effect on the member\'s next request.',
  collectionPath: 'accounts/{account_id}/members',
  itemPath: 'accounts/{account_id}/members/{member_id}',
  fields: {
    user: { type: 'string', description: 'The user, `users/{user}`; the member id is the user id.', behavior: ['OUTPUT_ONLY'], column: false },
    email: { type: 'string', description: 'Email address of the user.', behavior: ['OUTPUT_ONLY'], column: false },
    display_name: { type: 'string', description: 'Display name of the user (from their profile).', behavior: ['OUTPUT_ONLY'], column: false },
    role: {
      type: 'string',
      description: 'Role resource name: `roles/administrator`, `roles/editor`, `roles/restricted` (holds only `grants`) or `accounts/{account}/account_roles/{id}`.',
      maxLength: 200,
      column: false,
      example: 'roles/editor',
    },
    grants: grantsField('Grants of this membership on top of its role\'s.', { default: [] }),
    website_ids: {
      type: 'string_list',
      description: 'Websites of the account the membership is limited to; empty: every website. Not allowed for administrators, who hold the whole account.',
      maxItems: 100,
      itemMaxLength: 63,
      default: [],
      refersTo: { table: 'websites', what: 'a website' },
    },
  },
  filterable: ['create_time'],
  sortable: ['create_time'],
  defaultOrder: 'create_time desc',
  methods: ['list', 'get', 'update', 'delete'],
  options: { validateOnly: true },
  rights: MEMBERS_RIGHTS,
  hooks: {
    async enrich(db, rows) {
      const users = await usersById(db, rows.map((r) => r.user_id));
      for (const row of rows) row.$user = users.get(row.user_id);
    },
    present(row, resource) {
      resource.user = `users/${row.user_id}`;
      resource.email = row.$user?.email;
      resource.display_name = row.$user?.display_name ?? undefined;
      resource.role = roleName(row.account_id, row.role, row.account_role_id);
    },
    async beforeUpdate(ctx, next, previous) {
      // What the member held before must be within the caller's reach too (no demoting those above you).
      await checkReach(ctx, dialect, previous);
      if (ctx.updatedPaths.includes('role')) {
        const sent = ctx.input.role;
        if (typeof sent !== 'string') throw InvalidArgument.field('role', 'is required and cannot be cleared');
        const ref = parseRole('role', sent, previous.account_id);
        await grantsOfRole(ctx, dialect, previous.account_id, ref, 'role');
        Object.assign(next, roleColumns(ref));
      }
      next.grants = dialect.json(checkGrants('grants', dialect.readJson<Grant[]>(next.grants) ?? []));
      if (next.role === 'administrator' && (dialect.readJson<string[]>(next.website_ids) ?? []).length > 0) {
        throw InvalidArgument.field('website_ids', 'an administrator holds the whole account and cannot be limited to websites');
      }
      await checkReach(ctx, dialect, next);
      if (previous.role === 'administrator' && next.role !== 'administrator') {
        await keepAnAdministrator(ctx, dialect, previous.account_id, 'demoting this member');
      }
    },
    async beforeDelete(ctx, row) {
      if (ctx.access && !ctx.access.administrator && row.role === 'administrator') {
        throw new PermissionDenied('only administrators remove administrators', 'ADMINISTRATOR_REQUIRED');
      }
      await checkReach(ctx, dialect, row);
      if (row.role === 'administrator') await keepAnAdministrator(ctx, dialect, row.account_id, 'removing this member');
    },
  },
  customMethods: [
    {
      // What the caller may do in the account, so a client (the admin) offers only that; every
      // route still checks its own right.
      verb: 'my_access',
      on: 'collection',
      summary: "The caller's own access to the account",
      description:
        "What the signed-in member holds in the account, whatever that is (no `account.members` right needed): the role, the effective grants (the role's and the membership's own, " +
        'without those another covers) and the websites the membership is limited to. A grant on a section covers every section beneath it; WRITE implies READ. ' +
        'Every route of this API names the section it needs in its description. Changes nothing.',
      access: 'read',
      right: anyMember,
      response: {
        title: 'MyAccessResponse',
        type: 'object',
        description: "The caller's access to the account.",
        additionalProperties: false,
        required: ['role', 'administrator', 'grants', 'website_ids'],
        properties: {
          role: { type: 'string', maxLength: 200, description: 'The role resource name: `roles/administrator`, `roles/editor`, `roles/restricted` or `accounts/{account}/account_roles/{id}`.' },
          administrator: { type: 'boolean', description: 'Whether the caller is an administrator of the account.' },
          grants: { type: 'array', maxItems: MAX_GRANTS * 2, items: GRANT_SCHEMA, description: 'Effective grants: the role\'s and the membership\'s own.' },
          website_ids: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 63 }, description: 'The websites the membership is limited to; empty: every website of the account.' },
        },
      },
      async handle(ctx) {
        const access = ctx.access!;
        return { role: access.role, administrator: access.administrator ?? false, grants: access.grants ?? [], website_ids: access.websiteIds ?? [] };
      },
    },
    {
      verb: 'leave',
      on: 'collection',
      summary: 'Leave the account',
      description:
        'Ends the caller\'s own membership, whatever the caller holds. The last administrator cannot leave (FAILED_PRECONDITION LAST_ADMINISTRATOR): ' +
        'make another member an administrator first. What the caller wrote stays.',
      access: 'write',
      right: anyMember,
      response: { title: 'LeaveAccountResponse', type: 'object', description: 'The caller is no member of the account any more.', properties: {}, additionalProperties: false },
      async handle(ctx, call) {
        await services()['accounts/{account_id}/members'].delete(ctx, { account_id: call.params.account_id, member_id: ctx.caller.userId });
        return {};
      },
    },
  ],
});
