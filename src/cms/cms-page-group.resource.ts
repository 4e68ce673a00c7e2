import type { Reference } from '../platform/area.js';
import { read, write } from '../platform/auth/rights.js';
import type { SqlDialect } from '../platform/db/database.js';
import { InvalidArgument } from '../platform/errors.js';
import type { FieldDecl, ResourceDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { idListReference, visibleViewIdsField, visibleViewsReference } from './cms.service.js';
import { PAGE_CONTENT_FIELDS, RICH_TEXT } from './cms-page.resource.js';
import { sanitizeFields } from './content-html.js';
import { deletePageGroupMembers, deletePageGroupMembersOfView, insertPageGroupMembers } from './cms.repo.js';

/** Customer groups one version can name. */
const MAX_GROUPS_PER_VERSION = 100;

/** A version names at least one customer group (the engine checks they are groups of the website). */
function checkSomeGroup(dialect: SqlDialect, row: Row): void {
  if ((dialect.readJson<string[]>(row.customer_group_ids) ?? []).length === 0) {
    throw InvalidArgument.field('customer_group_ids', 'must name at least one customer group');
  }
}

/**
 * Rewrites the membership rows `:resolve` reads (one per customer group and view, `''` for every
 * view); an inactive version has none.
 */
async function writeMembers(trx: WriteContext['trx'], dialect: SqlDialect, row: Row): Promise<void> {
  await deletePageGroupMembers(trx, row.website_id, row.id);
  const active = row.is_active === true || row.is_active === 1;
  if (!active) return;
  const groups = dialect.readJson<string[]>(row.customer_group_ids) ?? [];
  const views = dialect.readJson<string[]>(row.visible_view_ids) ?? [];
  const values = groups.flatMap((group) =>
    (views.length ? views : ['']).map((view) => ({
      website_id: row.website_id,
      cms_page_id: row.cms_page_id,
      cms_page_group_id: row.id,
      customer_group_id: group,
      view_id: view,
      priority: row.priority,
      create_time: Number(row.create_time),
    })),
  );
  if (values.length) await insertPageGroupMembers(trx, values);
}

/** A view deleted with `force` leaves the versions' lists (as for pages) and their membership rows. */
export function pageGroupViewReference(dialect: SqlDialect): Reference {
  const lists = visibleViewsReference('cms_page_groups', dialect, 'is_active');
  return {
    target: 'views',
    describe: lists.describe,
    count: lists.count,
    async detach(db, websiteId, viewId, now) {
      await lists.detach(db, websiteId, viewId, now);
      await deletePageGroupMembersOfView(db, websiteId, viewId);
    },
  };
}

/**
 * A deleted customer group leaves every version's `customer_group_ids` (its membership rows go by
 * cascade); a version that named only that group is switched off.
 */
export function pageGroupCustomerGroupReference(dialect: SqlDialect): Reference {
  return idListReference({ table: 'cms_page_groups', column: 'customer_group_ids', target: 'customer_groups', activeColumn: 'is_active' }, dialect);
}

/** Customer-group versions of a page: `websites/{w}/cms_pages/{p}/groups/{g}`. */
export function cmsPageGroupResource(deps: { dialect: SqlDialect }): ResourceDecl {
  const { dialect } = deps;
  const contentFields: Record<string, FieldDecl> = {};
  for (const [name, field] of Object.entries(PAGE_CONTENT_FIELDS)) {
    contentFields[name] = { ...field, description: `${field.description} Absent: the page's value (as the view shows it).` };
  }
  return {
    collection: 'groups',
    singular: 'CmsPageGroup',
    pluralNoun: 'CmsPageGroups',
    table: 'cms_page_groups',
    parentTable: 'cms_pages',
    description:
      'A customer-group version of a page: what members of the named customer groups read instead of the page. When several versions match ' +
      'a visitor, the highest `priority` wins (ties: the older one); visitors in none of the groups read the page. The fields a version sets ' +
      'replace the page\'s; `url_key`, `is_active` and the page\'s own `visible_view_ids` stay the page\'s. `cms_pages/{p}:resolve` with ' +
      '`customer_group_id` reads the page as a group sees it.',
    collectionPath: 'websites/{website_id}/cms_pages/{cms_page_id}/groups',
    itemPath: 'websites/{website_id}/cms_pages/{cms_page_id}/groups/{cms_page_group_id}',
    fields: {
      customer_group_ids: {
        type: 'string_list',
        description:
          'Customer groups (`customer_groups` of the same website, else INVALID_ARGUMENT) whose members read this version; at least one. ' +
          'A group deleted later no longer matches.',
        behavior: ['REQUIRED'],
        maxItems: MAX_GROUPS_PER_VERSION,
        itemMinLength: 1,
        itemMaxLength: 64,
        refersTo: { table: 'customer_groups', what: 'a customer group' },
      },
      priority: { type: 'integer', description: 'Higher wins when several versions match a visitor. Default 0.', minimum: -1_000_000, maximum: 1_000_000, default: 0 },
      is_active: { type: 'boolean', description: 'An inactive version never wins. Default true.', default: true },
      visible_view_ids: visibleViewIdsField('version'),
      ...contentFields,
    },
    filterable: ['create_time', 'update_time', 'priority', 'is_active', 'customer_group_ids', 'visible_view_ids'],
    sortable: ['priority', 'create_time'],
    defaultOrder: 'priority desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: { read: read('website.content'), write: write('website.content') },
    hooks: {
      async beforeCreate(ctx, row) {
        sanitizeFields(row, RICH_TEXT);
        checkSomeGroup(dialect, row);
      },
      async afterCreate(ctx, row) {
        await writeMembers(ctx.trx, dialect, row);
      },
      async beforeUpdate(ctx, next) {
        sanitizeFields(next, RICH_TEXT.filter((f) => ctx.updatedPaths.includes(f)));
        if (ctx.updatedPaths.includes('customer_group_ids')) checkSomeGroup(dialect, next);
        if (['customer_group_ids', 'visible_view_ids', 'priority', 'is_active'].some((f) => ctx.updatedPaths.includes(f))) {
          await writeMembers(ctx.trx, dialect, next);
        }
      },
    },
  };
}
