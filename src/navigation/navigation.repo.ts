import type { ExpressionBuilder, Insertable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/** Statements over `navigation_menus` and `navigation_items`. */

/** Inserts a menu unless one with its id exists (provisioning may run again after a crash). */
export async function insertMenuOnce(db: Db | Trx, values: Insertable<DB['navigation_menus']>): Promise<void> {
  await db
    .insertInto('navigation_menus')
    .values(values)
    .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
    .execute();
}

/** Inserts an item unless one with its id exists. */
export async function insertItemOnce(db: Db | Trx, values: Insertable<DB['navigation_items']>): Promise<void> {
  await db
    .insertInto('navigation_items')
    .values(values)
    .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
    .execute();
}

/** Whether any navigation item of the website links to the page (a page Delete without `force` refuses then). */
export async function hasItemLinkingPage(db: Db | Trx, websiteId: string, cmsPageId: string): Promise<boolean> {
  const linked = await db
    .selectFrom('navigation_items')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('cms_page_id', '=', cmsPageId)
    .limit(1)
    .executeTakeFirst();
  return linked !== undefined;
}

/** A menu by id within its account (the rendered site's chrome). */
export function menuById(db: Db | Trx, websiteId: string, accountId: string, menuId: string) {
  return db
    .selectFrom('navigation_menus')
    .select(['id', 'display_name', 'visible_view_ids'])
    .where('website_id', '=', websiteId)
    .where('account_id', '=', accountId)
    .where('id', '=', menuId)
    .executeTakeFirst();
}

/** A menu's items in tree (`path`) order, at most `limit`. */
export function menuItemsInPathOrder(db: Db | Trx, websiteId: string, menuId: string, limit: number) {
  return db
    .selectFrom('navigation_items')
    .select(['id', 'parent_id', 'label', 'cms_page_id', 'url', 'open_in_new_tab', 'is_active', 'visible_view_ids', 'sort_order'])
    .where('website_id', '=', websiteId)
    .where('navigation_menu_id', '=', menuId)
    .orderBy('path')
    .limit(limit)
    .execute();
}

/** `visible_view_ids` empty (every view) or naming the view. */
const visibleIn = (dialect: SqlDialect, viewId: string) => (eb: ExpressionBuilder<DB, 'navigation_menus' | 'navigation_items'>) =>
  eb.or([dialect.arrayHas('visible_view_ids', viewId), eb(dialect.arrayLength('visible_view_ids'), '=', 0)]);

/** A menu by identifier when visible in the view. */
export function visibleMenuByIdentifier(db: Db | Trx, dialect: SqlDialect, key: { websiteId: string; accountId: string; viewId: string; identifier: string }) {
  return db
    .selectFrom('navigation_menus')
    .select(['id', 'identifier', 'display_name'])
    .where('website_id', '=', key.websiteId)
    .where('account_id', '=', key.accountId)
    .where('identifier', '=', key.identifier)
    .where(visibleIn(dialect, key.viewId))
    .executeTakeFirst();
}

/** A menu's active items visible in the view, by level, `sort_order` and id; at most `limit`. */
export function visibleActiveMenuItems(db: Db | Trx, dialect: SqlDialect, websiteId: string, menuId: string, viewId: string, limit: number) {
  return db
    .selectFrom('navigation_items')
    .select(['id', 'parent_id', 'label', 'cms_page_id', 'url', 'open_in_new_tab', 'sort_order'])
    .where('website_id', '=', websiteId)
    .where('navigation_menu_id', '=', menuId)
    .where('is_active', '=', dialect.bool(true))
    .where(visibleIn(dialect, viewId))
    .orderBy('level')
    .orderBy('sort_order')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Id of the website's menu with `identifier` (the theme's provisioning points `main_menu_id` at the main menu). */
export async function menuIdByIdentifier(db: Db | Trx, websiteId: string, identifier: string): Promise<string | undefined> {
  const menu = await db.selectFrom('navigation_menus').select('id').where('website_id', '=', websiteId).where('identifier', '=', identifier).executeTakeFirst();
  return menu?.id;
}

/** Id of the menu with `identifier` within the website's account (the site's footer menu). */
export async function menuIdByIdentifierInAccount(db: Db | Trx, websiteId: string, accountId: string, identifier: string): Promise<string | undefined> {
  const menu = await db
    .selectFrom('navigation_menus')
    .select('id')
    .where('website_id', '=', websiteId)
    .where('account_id', '=', accountId)
    .where('identifier', '=', identifier)
    .executeTakeFirst();
  return menu?.id;
}
