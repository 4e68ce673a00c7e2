import type { Area, ProvisioningStep, Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { findPageId, visibleViewsReference } from '../cms/index.js';
import { hasItemLinkingPage, insertItemOnce, insertMenuOnce } from './navigation.repo.js';
import { navigationItemResource } from './navigation-item.resource.js';
import { navigationMenuResource } from './navigation-menu.resource.js';

/** Id (and identifier) of the main menu every website gets at provisioning. */
export const MAIN_MENU_ID = 'main';

/** Provisioning: the main menu with one item linking to the home page; skipped where it exists. */
export const mainMenuStep = (dialect: SqlDialect): ProvisioningStep => ({
  name: 'CREATE_MAIN_MENU',
  async run(db, website) {
    const now = Date.now();
    const common = { account_id: website.account_id, website_id: website.id, revision: 1, create_time: now, update_time: now };
    await db.transaction().execute(async (trx) => {
      await insertMenuOnce(trx, { ...common, id: MAIN_MENU_ID, display_name: 'Main menu', identifier: MAIN_MENU_ID, visible_view_ids: dialect.json([]) });
      const home = await findPageId(trx, website.id, 'home');
      if (!home) return;
      await insertItemOnce(trx, {
        ...common,
        id: 'home',
        navigation_menu_id: MAIN_MENU_ID,
        parent_id: null,
        path: 'home',
        level: 0,
        sort_order: 0,
        label: 'Home',
        cms_page_id: home,
        url: null,
        open_in_new_tab: dialect.bool(false),
        is_active: dialect.bool(true),
        visible_view_ids: dialect.json([]),
      });
    });
  },
});

/**
 * Items linking to a page: a page Delete without `force` refuses while any exists (cms-page.resource.ts
 * asks through `referencesTo('cms_pages')`); with `force` the items and their sub-items go by
 * foreign-key cascade, so there is nothing to detach.
 */
const pageLinksReference: Reference = {
  target: 'cms_pages',
  describe: 'navigation_items.cms_page_id',
  // 1 stands for "at least one": the page's Delete only asks whether any item links to it.
  count: async (db, websiteId, pageId) => ((await hasItemLinkingPage(db, websiteId, pageId)) ? 1 : 0),
  async detach() {},
};

/** Navigation menus and their item trees. */
export const navigationArea: Area = {
  name: 'navigation',
  resources: () => [navigationMenuResource(), navigationItemResource()],
  provisioningSteps: (deps) => [mainMenuStep(deps.database.dialect)],
  references: (deps) => [
    visibleViewsReference('navigation_menus', deps.database.dialect, undefined),
    visibleViewsReference('navigation_items', deps.database.dialect, 'is_active'),
    pageLinksReference,
  ],
};
