import type { Database } from '../platform/db/database.js';
import { menuById, menuItemsInPathOrder } from './navigation.repo.js';

/** Items of one menu the site reads at most (a menu is a handful; a hostile one stays bounded). */
const MAX_MENU_ITEMS = 500;

/** An item of a menu as the site shows it in one view, its sub-items in menu order. */
export interface SiteMenuItem {
  id: string;
  label: string;
  cmsPageId: string | null;
  url: string | null;
  openInNewTab: boolean;
  children: SiteMenuItem[];
}

export interface SiteMenu {
  id: string;
  displayName: string;
  items: SiteMenuItem[];
}

const truthy = (v: unknown) => v === true || v === 1;
const visibleIn = (database: Database, ids: unknown, viewId: string) => {
  const list = database.dialect.readJson<string[]>(ids) ?? [];
  return list.length === 0 || list.includes(viewId);
};

/**
 * Menu `menuId` of the website as view `viewId` shows it: undefined when the menu is missing or
 * not visible in the view; items that are inactive or not visible in the view are left out with
 * their sub-items (an item hides its subtree, as `is_active` says). Targets are as stored: the
 * caller maps `cmsPageId` to the page's path in the view (and drops items whose page it does not show).
 */
export async function readSiteMenu(database: Database, websiteId: string, accountId: string, menuId: string, viewId: string): Promise<SiteMenu | undefined> {
  const db = database.db;
  const menu = await menuById(db, websiteId, accountId, menuId);
  if (!menu || !visibleIn(database, menu.visible_view_ids, viewId)) return undefined;
  const rows = await menuItemsInPathOrder(db, websiteId, menuId, MAX_MENU_ITEMS);
  const children = new Map<string | null, typeof rows>();
  for (const row of rows) {
    if (!truthy(row.is_active) || !visibleIn(database, row.visible_view_ids, viewId)) continue;
    const parent = (row.parent_id as string | null) ?? null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(row);
  }
  const build = (parent: string | null): SiteMenuItem[] =>
    (children.get(parent) ?? [])
      .sort((a, b) => Number(a.sort_order) - Number(b.sort_order))
      .map((row) => ({
        id: row.id,
        label: row.label,
        cmsPageId: row.cms_page_id ?? null,
        url: row.url ?? null,
        openInNewTab: truthy(row.open_in_new_tab),
        children: build(row.id),
      }));
  return { id: menu.id, displayName: menu.display_name, items: build(null) };
}
