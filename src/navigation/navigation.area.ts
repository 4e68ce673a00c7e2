import type { Area, ProvisioningStep } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { visibleViewsReference } from '../cms/cms.service.js';
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
      await trx
        .insertInto('navigation_menus')
        .values({ ...common, id: MAIN_MENU_ID, display_name: 'Main menu', identifier: MAIN_MENU_ID, visible_view_ids: dialect.json([]) })
        .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
        .execute();
      const home = await trx.selectFrom('cms_pages').select('id').where('website_id', '=', website.id).where('id', '=', 'home').executeTakeFirst();
      if (!home) return;
      await trx
        .insertInto('navigation_items')
        .values({
          ...common,
          id: 'home',
          navigation_menu_id: MAIN_MENU_ID,
          parent_id: null,
          path: 'home',
          level: 0,
          sort_order: 0,
          label: 'Home',
          cms_page_id: home.id,
          url: null,
          open_in_new_tab: dialect.bool(false),
          is_active: dialect.bool(true),
          visible_view_ids: dialect.json([]),
        })
        .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
        .execute();
    });
  },
});

/** Navigation menus and their item trees. */
export const navigationArea: Area = {
  name: 'navigation',
  resources: () => [navigationMenuResource(), navigationItemResource()],
  provisioningSteps: (deps) => [mainMenuStep(deps.database.dialect)],
  references: (deps) => [
    visibleViewsReference('navigation_menus', deps.database.dialect, undefined),
    visibleViewsReference('navigation_items', deps.database.dialect, 'is_active'),
  ],
};
