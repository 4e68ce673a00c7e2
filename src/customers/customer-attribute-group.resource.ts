import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, WriteContext } from '../platform/resource/declaration.js';
import { lockWebsite } from '../websites/index.js';
import { countOnWebsite, moveAttributesToDefaultSection } from './customers.repo.js';
import { appendSortOrder } from '../platform/resource/ordering.js';
import type { CustomerAreaDeps } from './customer.resource.js';
import { CUSTOMER_RIGHTS, labelsField, SORT_ORDER_FIELD } from './shared.js';

/** SPEC 8: attribute sections per website. */
export const MAX_ATTRIBUTE_GROUPS = 20;

/** Refuses a changed `sort_order` on Update: it moves only through `:move`. */
export function refuseSortOrderChange(ctx: WriteContext, current: number): void {
  const sent = ctx.input.sort_order;
  if (sent !== undefined && sent !== null && sent !== current) {
    throw InvalidArgument.field('sort_order', 'is changed only by :move');
  }
}

/** Sections of the admin customer form (SPEC 2.12). */
export function customerAttributeGroupResource(deps: CustomerAreaDeps): ResourceDecl {
  const { dialect } = deps.database;
  return {
    collection: 'customer_attribute_groups',
    singular: 'CustomerAttributeGroup',
    table: 'customer_attribute_groups',
    description: `A section of the admin customer form; at most ${MAX_ATTRIBUTE_GROUPS} per website. Deleting one moves its attributes to the default section.`,
    collectionPath: 'websites/{website_id}/customer_attribute_groups',
    itemPath: 'websites/{website_id}/customer_attribute_groups/{attribute_group_id}',
    fields: {
      display_name: { type: 'string', description: 'Heading of the section.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      labels: labelsField('Locale (e.g. `de`, `pt-BR`) to heading, each at most 255 characters; replaced whole when sent.'),
      sort_order: SORT_ORDER_FIELD,
    },
    filterable: ['display_name'],
    sortable: ['sort_order'],
    defaultOrder: 'sort_order asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { requestId: true, validateOnly: true },
    rights: CUSTOMER_RIGHTS,
    hooks: {
      async beforeCreate(ctx, row) {
        await lockWebsite(ctx.trx, dialect, row.website_id);
        if ((await countOnWebsite(ctx.trx, 'customer_attribute_groups', row.website_id)) >= MAX_ATTRIBUTE_GROUPS) {
          throw new FailedPrecondition('ATTRIBUTE_GROUP_LIMIT', `a website has at most ${MAX_ATTRIBUTE_GROUPS} customer attribute sections`);
        }
        row.sort_order = await appendSortOrder(ctx.trx, 'customer_attribute_groups', { website_id: row.website_id });
      },
      beforeUpdate(ctx, _next, previous) {
        refuseSortOrderChange(ctx, Number(previous.sort_order));
      },
      async beforeDelete(ctx, row) {
        // SPEC 4.6: the section's attributes move to the default section before Delete answers.
        await moveAttributesToDefaultSection(ctx.trx, row.website_id, row.id, ctx.now);
      },
    },
  };
}
