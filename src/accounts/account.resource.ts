import { read, write } from '../platform/auth/rights.js';
import { FailedPrecondition } from '../platform/errors.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { accountHasProjects } from '../projects/index.js';

/**
 * Accounts: the tenant. Listing shows the caller's memberships; the creator becomes its
 * administrator. `onCreate` runs what other areas need in every new account (same transaction).
 */
export const accountResource = (onCreate: (ctx: WriteContext, row: Row) => Promise<void>): ResourceDecl => ({
  collection: 'accounts',
  singular: 'Account',
  table: 'accounts',
  description: 'An account owns projects; users reach its websites through a membership.',
  collectionPath: 'accounts',
  itemPath: 'accounts/{account_id}',
  fields: {
    display_name: { type: 'string', description: 'Name of the account.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
    is_active: { type: 'boolean', description: 'Whether the account is in good standing; set by the platform.', behavior: ['OUTPUT_ONLY'], default: true },
  },
  filterable: ['create_time', 'display_name', 'is_active'],
  sortable: ['create_time', 'display_name'],
  defaultOrder: 'create_time desc',
  methods: ['list', 'get', 'create', 'update', 'delete'],
  options: { requestId: true, validateOnly: true, force: true },
  rights: { read: read('account'), write: write('account') },
  hooks: {
    async afterCreate(ctx, row) {
      // The creator's administrator membership is the access area's (`onAccountCreate` in app.ts runs it first).
      await onCreate(ctx, row);
    },
    async beforeDelete(ctx, row, force) {
      if (force) return;
      if (await accountHasProjects(ctx.trx, row.id)) throw new FailedPrecondition('ACCOUNT_NOT_EMPTY', 'the account still has projects; delete them first or pass force=true');
    },
  },
});
