import type { Area } from '../platform/area.js';
import type { CustomMethodDecl } from '../platform/resource/declaration.js';
import { placeAfter } from '../platform/resource/ordering.js';
import { customerAttributeGroupResource } from './customer-attribute-group.resource.js';
import { customerAttributeResource } from './customer-attribute.resource.js';
import { customerGroupResource, recomputeGroupHandler, RECOMPUTE_CUSTOMER_GROUP } from './customer-group.resource.js';
import { createCustomerSessions } from './customer-sessions.service.js';
import { customerResource, type CustomerAreaDeps } from './customer.resource.js';
import { customersSite } from './customers.site.js';

/** `:move` of a website-wide sibling list (sections, attributes): `after_id` null or absent puts the item first. */
export function moveMethod(table: string, noun: string): CustomMethodDecl {
  return {
    verb: 'move',
    on: 'item',
    summary: `Move a ${noun}`,
    description: `Puts the ${noun} right after \`after_id\` (null or \`{}\`: first); the others are renumbered. \`after_id\` that is not a sibling is INVALID_ARGUMENT.`,
    access: 'write',
    body: {
      type: 'object',
      properties: { after_id: { type: ['string', 'null'], maxLength: 64, description: `Id of the ${noun} to come after; null or absent: first.` } },
      additionalProperties: false,
    },
    async mutate(ctx, next, _previous, body) {
      next.sort_order = await placeAfter(ctx.trx, { table, scope: { website_id: next.website_id }, id: next.id, afterId: body.after_id, now: ctx.now });
    },
  };
}

/**
 * Customers (SPEC 2.12–2.15, 4.6): attribute sections and definitions, groups (DYNAMIC members
 * recomputed by an Operation), customers, and the customer session store the rendered site uses;
 * on rendered websites, visitors sign up and in as customers (customers.site.ts).
 */
export const customersArea: Area = {
  name: 'customers',
  resources(deps) {
    const areaDeps: CustomerAreaDeps = { database: deps.database, operations: deps.operations, sessions: createCustomerSessions({ db: deps.database.db }) };
    const groups = customerAttributeGroupResource(areaDeps);
    const attributes = customerAttributeResource(areaDeps);
    return [
      { ...groups, customMethods: [moveMethod('customer_attribute_groups', 'section')] },
      { ...attributes, customMethods: [moveMethod('customer_attributes', 'attribute')] },
      customerGroupResource(areaDeps),
      customerResource(areaDeps),
    ];
  },
  site: (deps) => customersSite(deps),
  jobs(operations, deps) {
    operations.register(RECOMPUTE_CUSTOMER_GROUP, recomputeGroupHandler({ db: deps.database.db, dialect: deps.database.dialect }));
  },
};
