import { read, write, holdsAll, type Grant } from '../platform/auth/rights.js';
import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, PermissionDenied } from '../platform/errors.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { countRoleMembers, dropRoleFromMembers, lockAccountRole, websiteLimitsOfRoleMembers } from './access.repo.js';
import { checkGrants, grantsField } from './grants.js';

/** Rights of everything about who may do what in an account: members, invitations, account roles. */
export const MEMBERS_RIGHTS = { read: read('account.members'), write: write('account.members') };

/**
 * Account roles (`accounts/{a}/account_roles`): named sets of grants an account defines and assigns
 * to members like a built-in role. Their grants name sections of the permission tree only; nobody
 * defines a role holding more than they hold themselves (administrators hold everything).
 */
export const accountRoleResource = (dialect: SqlDialect): ResourceDecl => {
  async function checkRoleGrants(ctx: WriteContext, row: Row): Promise<void> {
    const grants = checkGrants('grants', dialect.readJson<Grant[]>(row.grants) ?? []);
    row.grants = dialect.json(grants);
    if (ctx.access && !ctx.access.administrator && !holdsAll(ctx.access.grants ?? [], grants)) {
      throw new PermissionDenied('you cannot define a role holding more than you hold', 'GRANT_EXCEEDS_OWN', [{ field: 'grants', description: 'holds grants you do not hold' }]);
    }
  }
  return {
    collection: 'account_roles',
    singular: 'AccountRole',
    table: 'account_roles',
    description:
      'Named sets of grants an account defines (besides the built-in `roles`) and assigns to members and invitations as `accounts/{account}/account_roles/{id}`. ' +
      'A grant names a section of the permission tree (`permissions`) and READ or WRITE; it covers everything beneath the section. ' +
      'Changing a role changes what its members hold at once. Deleting a role some member holds is refused with FAILED_PRECONDITION (ROLE_IN_USE) unless `force=true`: ' +
      'then its members fall back to `roles/restricted` (keeping only their membership\'s own grants). Nobody defines or changes a role to hold more than they hold; ' +
      'a member limited to some websites changes only roles whose every holder is limited to those websites too (else PERMISSION_DENIED GRANT_EXCEEDS_OWN).',
    collectionPath: 'accounts/{account_id}/account_roles',
    itemPath: 'accounts/{account_id}/account_roles/{account_role_id}',
    fields: {
      display_name: { type: 'string', description: 'Name of the role, unique in the account.', behavior: ['REQUIRED'], maxLength: 100, trim: true, notBlank: true, uniqueInParent: true },
      description: { type: 'string', description: 'What the role is for.', maxLength: 2000 },
      grants: grantsField('What members holding the role may do: sections of the permission tree with READ or WRITE.', { default: [] }),
    },
    filterable: ['create_time'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true, force: true },
    rights: MEMBERS_RIGHTS,
    hooks: {
      beforeCreate: checkRoleGrants,
      async beforeUpdate(ctx, next, previous) {
        await checkRoleGrants(ctx, next);
        // Members of the role would hold the old grants too: a non-administrator changes only roles within their own reach.
        if (ctx.access && !ctx.access.administrator && !holdsAll(ctx.access.grants ?? [], dialect.readJson<Grant[]>(previous.grants) ?? [])) {
          throw new PermissionDenied('the role holds more than you do', 'GRANT_EXCEEDS_OWN');
        }
        // Grants do not name websites: a caller limited to some websites would otherwise widen what
        // members elsewhere hold. They change only roles whose every holder is limited to their websites too.
        const limited = ctx.access?.administrator ? [] : (ctx.access?.websiteIds ?? []);
        if (limited.length) {
          await lockAccountRole(ctx.trx, dialect, previous.account_id, previous.id);
          const holders = await websiteLimitsOfRoleMembers(ctx.trx, dialect, previous.account_id, previous.id);
          if (holders.some((sites) => sites.length === 0 || sites.some((w) => !limited.includes(w)))) {
            throw new PermissionDenied('members outside your websites hold this role', 'GRANT_EXCEEDS_OWN', [{ field: 'grants', description: 'the role is held by members beyond your websites' }]);
          }
        }
      },
      async beforeDelete(ctx, row, force) {
        await lockAccountRole(ctx.trx, dialect, row.account_id, row.id);
        const members = await countRoleMembers(ctx.trx, row.account_id, row.id);
        if (members === 0) return;
        if (!force) {
          throw new FailedPrecondition('ROLE_IN_USE', `${members} member(s) hold this role; assign them another role first, or pass force=true to make them roles/restricted`);
        }
        await dropRoleFromMembers(ctx.trx, row.account_id, row.id, ctx.now);
      },
    },
  };
};
