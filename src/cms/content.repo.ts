import { sql } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import { dynamic } from '../platform/db/dynamic.js';
import type { Db, Trx } from '../platform/db/schema.js';
import type { Row } from '../platform/resource/declaration.js';
import { customerGroupQuery, customerGroupsOfQuery } from '../customers/index.js';
import { withViewChain } from '../views/index.js';

/*
 * Statements of the content resolution cms and blog share (url keys per view scope, id-list
 * references, per-view overlays, customer-group versions). Each runs over the table its caller
 * names (`cms_pages`, `blog_posts`, ...): the caller's own table, so the query builder is untyped here.
 */

/** The tables are named at run time by the caller: the platform's untyped boundary. */
const untyped = (db: Db | Trx) => dynamic(db);

/** Other rows of the website with `urlKey` (the view-scope check of `url_key`). */
export function rowsWithUrlKey(db: Db | Trx, table: string, websiteId: string, urlKey: string, exceptId: string): Promise<Row[]> {
  return untyped(db)
    .selectFrom(table)
    .select(['id', 'visible_view_ids'])
    .where('website_id', '=', websiteId)
    .where('url_key', '=', urlKey)
    .where('id', '!=', exceptId)
    .execute();
}

/** How many rows of the website list `id` in their JSON list `column`. */
export async function countRowsListing(db: Db | Trx, dialect: SqlDialect, table: string, column: string, websiteId: string, id: string): Promise<number> {
  const row = await untyped(db)
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where(dialect.arrayHas(column, id))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Switches off (`activeColumn` false) the rows whose list `column` names `id` alone. */
export async function switchOffRowsListingOnly(db: Db | Trx, dialect: SqlDialect, table: string, column: string, activeColumn: string, websiteId: string, id: string): Promise<void> {
  await untyped(db)
    .updateTable(table)
    .set({ [activeColumn]: dialect.bool(false) })
    .where('website_id', '=', websiteId)
    .where(dialect.arrayHas(column, id))
    .where(dialect.arrayLength(column), '=', 1)
    .execute();
}

/** Removes `id` from every row's list `column` (a new revision of each row changed). */
export async function removeFromLists(db: Db | Trx, dialect: SqlDialect, table: string, column: string, websiteId: string, id: string, now: number): Promise<void> {
  await untyped(db)
    .updateTable(table)
    .set((eb) => ({ [column]: dialect.arrayWithout(column, id), revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where(dialect.arrayHas(column, id))
    .execute();
}

/** How many overlays of the website overlay view `viewId` (an overlay's id is its view's id). */
export async function countOverlaysOfView(db: Db | Trx, overlayTable: string, websiteId: string, viewId: string): Promise<number> {
  const row = await untyped(db)
    .selectFrom(overlayTable)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where('id', '=', viewId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function deleteOverlaysOfView(db: Db | Trx, overlayTable: string, websiteId: string, viewId: string): Promise<void> {
  await untyped(db).deleteFrom(overlayTable).where('website_id', '=', websiteId).where('id', '=', viewId).execute();
}

/*
 * Queries of the view-overlay reader, compiled once with `slot(name)` placeholders and run as
 * prepared statements (`preparedQuery` in view-overlays.ts).
 */
type Slot = (name: string) => string;

/** The row by primary key within its account. */
export function overlaidRowQuery(db: Db | Trx, table: string, slot: Slot) {
  return untyped(db).selectFrom(table).selectAll().where('website_id', '=', slot('website')).where('id', '=', slot('id')).where('account_id', '=', slot('account'));
}

/** The view chain left-joined to the row's overlays along it, nearest first. */
export function viewChainWithOverlaysQuery(
  db: Db | Trx,
  dialect: SqlDialect,
  spec: { overlayTable: string; overlayParent: string; fields: readonly string[] },
  namedView: boolean,
  slot: Slot,
) {
  const overlayColumns = spec.fields.map((f) => `o.${f} as o_${f}`);
  return withViewChain(untyped(db), dialect, namedView, slot)
    .selectFrom('chain as c')
    .leftJoin(`${spec.overlayTable} as o`, (join) =>
      join.on('o.website_id', '=', slot('website')).on(`o.${spec.overlayParent}`, '=', slot('id')).onRef('o.id', '=', 'c.view_id'),
    )
    .select(['c.view_id', 'c.depth', 'o.id as overlay_id', 'o.overridden as o_overridden', 'o.update_time as o_update_time', ...overlayColumns])
    .orderBy('c.depth');
}

/** The view chain alone, nearest first. */
export function viewChainQuery(db: Db | Trx, dialect: SqlDialect, namedView: boolean, slot: Slot) {
  return withViewChain(untyped(db), dialect, namedView, slot).selectFrom('chain as c').select(['c.view_id', 'c.depth']).orderBy('c.depth');
}

/** Overlays of many rows for the views of a chain (primary key probes). */
export function overlaysOfRows(
  db: Db | Trx,
  spec: { overlayTable: string; overlayParent: string },
  fields: readonly string[],
  websiteId: string,
  rowIds: string[],
  viewIds: string[],
): Promise<Row[]> {
  return untyped(db)
    .selectFrom(spec.overlayTable)
    .select(['id', spec.overlayParent, 'overridden', 'update_time', ...fields])
    .where('website_id', '=', websiteId)
    .where(spec.overlayParent, 'in', rowIds)
    .where('id', 'in', viewIds)
    .execute();
}

/** Customer-group versions of pages: the version table and its membership table. */
export interface GroupVersionTables {
  table: string;
  membersTable: string;
}

/**
 * One row per existing customer group: the best matching version, or nulls when none matches.
 * Joined to the customers area's `customer_groups` (its derived table) in the one prepared statement (the group's existence decides
 * INVALID_ARGUMENT without a second round trip).
 */
export function bestGroupVersionQuery(db: Db | Trx, groups: GroupVersionTables, contentFields: readonly string[], slot: Slot) {
  return untyped(db)
    .selectFrom(customerGroupQuery(db, slot('website'), slot('group')).as('cg'))
    .leftJoin(`${groups.membersTable} as m`, (join) =>
      join
        .onRef('m.website_id', '=', 'cg.website_id')
        .onRef('m.customer_group_id', '=', 'cg.id')
        .on('m.cms_page_id', '=', slot('page'))
        // '' stands for "every view"; without a view only those match.
        .on('m.view_id', 'in', [slot('view'), '']),
    )
    .leftJoin(`${groups.table} as g`, (join) => join.onRef('g.website_id', '=', 'm.website_id').onRef('g.id', '=', 'm.cms_page_group_id'))
    .select(['cg.id as group_found', 'g.id as version_id', 'g.update_time as version_update_time', ...contentFields.map((f) => `g.${f} as g_${f}`)])
    .orderBy('m.priority', 'desc')
    .orderBy('m.create_time', 'asc')
    .limit(1);
}

/**
 * A customer: the best version among their groups' versions. SPEC 2.14: between groups the
 * customer group's `priority` decides; within one group the version's `priority`; then the older.
 */
export function bestCustomerVersionQuery(db: Db | Trx, groups: GroupVersionTables, contentFields: readonly string[], slot: Slot) {
  return untyped(db)
    .selectFrom(customerGroupsOfQuery(db, slot('website'), slot('customer')).as('c'))
    .leftJoin(`${groups.membersTable} as m`, (join) =>
      join
        .onRef('m.website_id', '=', 'c.website_id')
        .onRef('m.customer_group_id', '=', 'c.group_id')
        .on('m.cms_page_id', '=', slot('page'))
        .on('m.view_id', 'in', [slot('view'), '']),
    )
    .leftJoin(`${groups.table} as g`, (join) => join.onRef('g.website_id', '=', 'm.website_id').onRef('g.id', '=', 'm.cms_page_group_id'))
    .select([
      'c.customer_id as customer_found',
      'm.customer_group_id as matched_group_id',
      'g.id as version_id',
      'g.update_time as version_update_time',
      ...contentFields.map((f) => `g.${f} as g_${f}`),
    ])
    .orderBy(sql`case when g.id is null then 1 else 0 end`)
    .orderBy('c.priority', 'desc')
    .orderBy('m.priority', 'desc')
    .orderBy('m.create_time', 'asc')
    .limit(1);
}
