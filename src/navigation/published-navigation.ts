import type { Database } from '../platform/db/database.js';
import { visibleActiveMenuItems, visibleMenuByIdentifier } from './navigation.repo.js';

/** Most items one menu read returns (menus are small; this bounds a pathological one). */
export const MAX_MENU_ITEMS = 1000;

/** An entry of a menu as one view shows it. */
export interface PublishedMenuItem {
  label: string;
  /** Site path of the linked page, or the item's URL. */
  href: string;
  /** Set when the item links to a page. */
  cms_page_id?: string;
  open_in_new_tab: boolean;
  children: PublishedMenuItem[];
}

export interface PublishedMenu {
  identifier: string;
  display_name: string;
  items: PublishedMenuItem[];
}

/**
 * A menu by identifier as one view shows it, for callers without a request context (the rendered
 * site): undefined when the menu is not visible in the view. Items that are inactive or invisible in
 * the view are left out with their sub-items, and so are items linking to a page the view does not
 * serve (`pageHref` answers undefined); siblings in `sort_order`.
 */
export async function readPublishedMenu(
  database: Database,
  key: { websiteId: string; accountId: string; viewId: string; identifier: string },
  pageHref: (pageId: string) => Promise<string | undefined>,
): Promise<PublishedMenu | undefined> {
  const { dialect, db } = database;
  const menu = await visibleMenuByIdentifier(db, dialect, key);
  if (!menu) return undefined;
  const rows = await visibleActiveMenuItems(db, dialect, key.websiteId, menu.id, key.viewId, MAX_MENU_ITEMS);
  const byParent = new Map<string, typeof rows>();
  for (const row of rows) {
    const parent = (row.parent_id as string | null) ?? '';
    byParent.set(parent, [...(byParent.get(parent) ?? []), row]);
  }
  const hrefs = new Map<string, string | undefined>();
  async function level(parent: string): Promise<PublishedMenuItem[]> {
    const items: PublishedMenuItem[] = [];
    for (const row of byParent.get(parent) ?? []) {
      let href: string | undefined = row.url ?? undefined;
      if (row.cms_page_id) {
        if (!hrefs.has(row.cms_page_id)) hrefs.set(row.cms_page_id, await pageHref(row.cms_page_id));
        href = hrefs.get(row.cms_page_id);
      }
      if (href === undefined) continue;
      items.push({
        label: row.label,
        href,
        ...(row.cms_page_id ? { cms_page_id: row.cms_page_id } : {}),
        open_in_new_tab: row.open_in_new_tab === true || row.open_in_new_tab === 1,
        children: await level(row.id),
      });
    }
    return items;
  }
  return { identifier: menu.identifier, display_name: menu.display_name, items: await level('') };
}
