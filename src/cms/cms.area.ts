import type { Area, ProvisioningStep, Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { cmsBlockResource, BLOCK_CONTENT_FIELDS } from './cms-block.resource.js';
import { cmsPageGroupResource, pageGroupCustomerGroupReference, pageGroupViewReference } from './cms-page-group.resource.js';
import { cmsPageResource, PAGE_CONTENT_FIELDS, RICH_TEXT } from './cms-page.resource.js';
import { overlayReference, visibleViewsReference } from './cms.service.js';
import { overlayResource } from './overlay.js';
import { insertHomePageOnce } from './cms.repo.js';
import { cmsResolvers, cmsSite } from './cms.site.js';

/** Id of the home page every website gets at provisioning (ids are unique per website). */
export const HOME_PAGE_ID = 'home';

/** Provisioning: the home page (`cms_pages/home`, url_key `home`); skipped when it exists. */
export const homePageStep = (dialect: SqlDialect): ProvisioningStep => ({
  name: 'CREATE_HOME_PAGE',
  async run(db, website) {
    const now = Date.now();
    // Re-run after a crash: the page is already there.
    await insertHomePageOnce(db, {
      id: HOME_PAGE_ID,
      account_id: website.account_id,
      website_id: website.id,
      title: 'Home',
      url_key: 'home',
      is_active: dialect.bool(true),
      content_heading: website.display_name,
      content: `<p>Welcome to ${escapeHtml(website.display_name)}.</p>`,
      meta_title: website.display_name,
      meta_description: null,
      meta_keywords: null,
      meta_robots: 'INDEX_FOLLOW',
      visible_view_ids: dialect.json([]),
      revision: 1,
      create_time: now,
      update_time: now,
    });
  },
});

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** CMS pages and blocks with their per-view overlays and customer-group versions. */
export const cmsArea: Area = {
  name: 'cms',
  resources: (deps) => {
    const { dialect } = deps.database;
    // The resolvers the rendered site reads through too (cms.site.ts): one resolution, one set of prepared queries.
    const { pages: pageResolver, blocks: blockResolver } = cmsResolvers(deps.database);
    return [
      cmsPageResource({ dialect, resolver: pageResolver, references: () => deps.referencesTo('cms_pages') }),
      overlayResource({
        singular: 'CmsPageView',
        table: 'cms_page_views',
        parentTable: 'cms_pages',
        parentCollection: 'cms_pages',
        parentParam: 'cms_page_id',
        noun: 'page',
        fields: PAGE_CONTENT_FIELDS,
        richText: RICH_TEXT,
        dialect,
      }),
      cmsPageGroupResource({ dialect }),
      cmsBlockResource({ resolver: blockResolver }),
      overlayResource({
        singular: 'CmsBlockView',
        table: 'cms_block_views',
        parentTable: 'cms_blocks',
        parentCollection: 'cms_blocks',
        parentParam: 'cms_block_id',
        noun: 'block',
        fields: BLOCK_CONTENT_FIELDS,
        richText: ['content'],
        dialect,
      }),
    ];
  },
  provisioningSteps: (deps) => [homePageStep(deps.database.dialect)],
  site: (deps) => cmsSite(deps),
  references: (deps) => [...cmsViewReferences(deps.database.dialect), pageGroupCustomerGroupReference(deps.database.dialect)],
};

/** View references of the CMS, bound to a dialect (view Delete counts and detaches them). */
export function cmsViewReferences(dialect: SqlDialect): Reference[] {
  return [
    visibleViewsReference('cms_pages', dialect, 'is_active'),
    overlayReference('cms_page_views'),
    pageGroupViewReference(dialect),
    visibleViewsReference('cms_blocks', dialect, 'is_active'),
    overlayReference('cms_block_views'),
  ];
}
