import { InvalidArgument } from '../platform/errors.js';
import type { OperationHandler } from '../platform/jobs/operations.js';
import type { ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import type { Db } from '../platform/db/schema.js';
import { compileRule, lockGroup, recomputeGroupMembers } from './customers.repo.js';
import type { CustomerAreaDeps } from './customer.resource.js';
import { CUSTOMER_RIGHTS } from './shared.js';

/** Operation type that recomputes the members of one DYNAMIC group after its rule was saved. */
export const RECOMPUTE_CUSTOMER_GROUP = 'RECOMPUTE_CUSTOMER_GROUP';

/** Customer groups (SPEC 2.14): MANUAL by hand, DYNAMIC by rule. */
export function customerGroupResource(deps: CustomerAreaDeps): ResourceDecl {
  const { dialect } = deps.database;

  /** Normalises and checks `rule` on the row; answers whether members must be recomputed. */
  function checkRule(row: Row): void {
    if (typeof row.rule === 'string' && row.rule.trim() === '') row.rule = null;
    if (row.rule === null || row.rule === undefined) return;
    if (row.type !== 'DYNAMIC') throw InvalidArgument.field('rule', 'a MANUAL group has no rule');
    compileRule(row.rule, dialect, row.website_id);
  }

  async function startRecompute(ctx: WriteContext, row: Row): Promise<void> {
    row.operation_id = await deps.operations.enqueue(
      ctx.trx,
      { type: RECOMPUTE_CUSTOMER_GROUP, accountId: row.account_id, websiteId: row.website_id, payload: { group_id: row.id }, step: 'QUEUED' },
      ctx.now,
    );
    ctx.afterCommit(() => deps.operations.wake());
  }

  return {
    collection: 'customer_groups',
    singular: 'CustomerGroup',
    table: 'customer_groups',
    description:
      'A group of customers: MANUAL (members chosen through `customer.manual_group_ids`) or DYNAMIC (members are the customers its `rule` matches, recomputed in the background by the Operation named in `operation` after the rule is saved).',
    collectionPath: 'websites/{website_id}/customer_groups',
    itemPath: 'websites/{website_id}/customer_groups/{customer_group_id}',
    fields: {
      display_name: { type: 'string', description: 'Unique on the website.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true, uniqueInParent: true },
      description: { type: 'string', description: 'Free text.', maxLength: 2000 },
      type: { type: 'enum', description: 'MANUAL (default) or DYNAMIC; fixed at creation.', behavior: ['IMMUTABLE'], values: ['MANUAL', 'DYNAMIC'], default: 'MANUAL' },
      rule: {
        type: 'string',
        description:
          'DYNAMIC only: a filter over customer `email`, `tags`, `create_time`, written like the customers List filter (e.g. `tags:"vip" AND create_time > "2026-01-01T00:00:00Z"`); empty means no members. Refused with a value on MANUAL groups.',
        maxLength: 2000,
        trim: true,
      },
      priority: { type: 'integer', description: 'Higher wins when a customer is in several groups with their own page version.', default: 0, minimum: -2147483648, maximum: 2147483647 },
      operation: {
        type: 'string',
        description: 'The Operation recomputing the members since the rule was last saved (`websites/{website}/operations/{operation}`); absent when none ran.',
        behavior: ['OUTPUT_ONLY'],
        column: false,
      },
    },
    filterable: ['create_time', 'display_name', 'priority', 'type'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: CUSTOMER_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        checkRule(row);
        if (row.rule) await startRecompute(ctx, row);
      },
      async beforeUpdate(ctx, next, previous) {
        checkRule(next);
        if ((next.rule ?? null) !== (previous.rule ?? null)) await startRecompute(ctx, next);
      },
      present(row, resource) {
        if (row.operation_id) resource.operation = `websites/${row.website_id}/operations/${row.operation_id}`;
      },
      // Memberships go with the group (foreign key cascade, same statement), so Delete answers with
      // the group gone from every customer's manual_group_ids and group_ids.
    },
  };
}

/** Runs a group recompute: the group row is locked for update, so recomputes and customer writes never interleave. */
export function recomputeGroupHandler(deps: { db: Db; dialect: CustomerAreaDeps['database']['dialect'] }): OperationHandler {
  return {
    async run(op) {
      const groupId = String(op.payload.group_id);
      await op.setStep('RECOMPUTING_MEMBERS');
      await op.checkpoint();
      return deps.db.transaction().execute(async (trx) => {
        const group = await lockGroup(trx, deps.dialect, op.websiteId!, groupId);
        const name = `websites/${op.websiteId}/customer_groups/${groupId}`;
        // Deleted since, or a newer save queued its own recompute: nothing left to do here.
        if (!group) return { name, deleted: true };
        if (group.operation_id !== op.id) return { name, superseded_by: `websites/${op.websiteId}/operations/${group.operation_id}` };
        const { members } = await recomputeGroupMembers(trx, deps.dialect, group.website_id, group.id, group.rule ?? null);
        return { name, member_count: members };
      });
    },
  };
}
