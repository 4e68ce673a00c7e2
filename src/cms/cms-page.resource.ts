import type { Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { read, write } from '../platform/auth/rights.js';
import { FailedPrecondition } from '../platform/errors.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import { checkUrlKeyFree, slugOf, visibleViewIdsField } from './cms.service.js';
import { sanitizeFields } from './content-html.js';
import { resolvedPageSchema, type PageResolver } from './resolve.js';

/** Longest rich-text body of a page or block, in characters (the request body limit is 1 MiB). */
export const MAX_CONTENT_LENGTH = 500_000;
/** `about`, `about-us`, `company/team_2025`: lowercase segments joined by `/`. */
export const URL_KEY_PATTERN = '^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?(?:/[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?)*$';

/** Fields of a page that a view overlay and a customer-group version may replace. */
export const PAGE_CONTENT_FIELDS: Record<string, FieldDecl> = {
  title: { type: 'string', description: 'Title (the `<h1>`/`<title>` fallback).', maxLength: 255, trim: true, notBlank: true, example: 'About us' },
  content_heading: { type: 'string', description: 'Heading shown above the content.', maxLength: 255, trim: true, example: 'Baking since 1998' },
  content: {
    type: 'string',
    description:
      'Rich text (HTML), sanitised on write with an allow-list: script, style, event-handler attributes, `javascript:`/`data:` URLs, forms, ' +
      'objects and iframes other than YouTube/Vimeo embeds are removed, so stored content never runs script on the rendered site. ' +
      `At most ${MAX_CONTENT_LENGTH} characters.`,
    maxLength: MAX_CONTENT_LENGTH,
    example: '<p>We bake sourdough bread every morning.</p>',
  },
  meta_title: { type: 'string', description: 'SEO `<title>`; the title when absent.', maxLength: 255, trim: true, example: "About Ada's Bakery" },
  meta_description: { type: 'string', description: 'SEO meta description.', maxLength: 1024, trim: true, example: 'Who we are and how we bake.' },
  meta_keywords: { type: 'string', description: 'SEO meta keywords, comma-separated.', maxLength: 1024, trim: true, example: 'bakery, sourdough' },
};

export const RICH_TEXT = ['content'] as const;

/**
 * CMS pages: `websites/{w}/cms_pages/{p}`. `url_key` is unique per website and view scope;
 * `content` is sanitised on write; `:resolve` reads the page as a view and a customer group see it.
 */
export function cmsPageResource(deps: { dialect: SqlDialect; resolver: PageResolver; references: () => Reference[] }): ResourceDecl {
  const { dialect } = deps;
  return {
    collection: 'cms_pages',
    singular: 'CmsPage',
    table: 'cms_pages',
    description:
      'A content page of the website, addressed on the site by `url_key` under each view it is visible in. Per-view overlays live in ' +
      '`cms_pages/{p}/views`, customer-group versions in `cms_pages/{p}/groups`; `:resolve` answers the page as a given view and customer group see it.',
    collectionPath: 'websites/{website_id}/cms_pages',
    itemPath: 'websites/{website_id}/cms_pages/{cms_page_id}',
    fields: {
      ...PAGE_CONTENT_FIELDS,
      title: { ...PAGE_CONTENT_FIELDS.title, behavior: ['REQUIRED'] },
      url_key: {
        notNull: true,
        type: 'string',
        description:
          'URL path of the page below the view prefix (`about`, `company/team`): lowercase letters, digits, `.`, `_`, `-`, segments joined by `/`. ' +
          'Derived from `title` when absent (and when cleared). Unique per website and view scope: another page may use the same key only when ' +
          'their `visible_view_ids` do not overlap (an empty list overlaps every view), else ALREADY_EXISTS. The same for every view (a page per ' +
          'locale with its own key and `visible_view_ids` gives localised URLs).',
        pattern: URL_KEY_PATTERN,
        maxLength: 255,
        trim: true,
        example: 'about',
      },
      is_active: { type: 'boolean', description: 'Whether the rendered site serves the page. Default true.', default: true },
      meta_robots: {
        type: 'enum',
        description: 'Robots directive of the page. Default INDEX_FOLLOW.',
        values: ['INDEX_FOLLOW', 'NOINDEX_FOLLOW', 'INDEX_NOFOLLOW', 'NOINDEX_NOFOLLOW'],
        default: 'INDEX_FOLLOW',
      },
      visible_view_ids: visibleViewIdsField('page'),
    },
    filterable: ['create_time', 'update_time', 'is_active', 'title', 'url_key', 'meta_robots', 'visible_view_ids'],
    sortable: ['create_time', 'update_time', 'title', 'url_key'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, requestId: true, validateOnly: true, force: true },
    rights: { read: read('website.content'), write: write('website.content') },
    hooks: {
      async beforeCreate(ctx, row) {
        sanitizeFields(row, RICH_TEXT);
        if (!row.url_key) row.url_key = slugOf(row.title);
        await checkUrlKeyFree(ctx, dialect, row);
      },
      async beforeUpdate(ctx, next, previous) {
        sanitizeFields(next, RICH_TEXT.filter((f) => ctx.updatedPaths.includes(f)));
        if (!next.url_key) next.url_key = slugOf(next.title);
        if (next.url_key !== previous.url_key || next.visible_view_ids !== previous.visible_view_ids) await checkUrlKeyFree(ctx, dialect, next);
      },
      async beforeDelete(ctx, row, force) {
        if (force) return;
        // The one reference to pages is navigation's items (`navigation.area.ts`); they go with the page by foreign-key cascade.
        let linked = false;
        for (const reference of deps.references()) if ((await reference.count(ctx.trx, row.website_id, row.id)) > 0) linked = true;
        if (linked) {
          throw new FailedPrecondition('PAGE_IN_NAVIGATION', 'navigation items link to this page; pass force=true to delete it with those items (and their sub-items)');
        }
      },
    },
    customMethods: [
      {
        verb: 'resolve',
        on: 'item',
        summary: 'Read a page as a view and a customer group see it',
        description:
          'Answers the page as the rendered site shows it (AIP-136 custom method; reads only, changes nothing). `view_id` (default: the ' +
          "website's default view) applies that view's overlays: each field shows the value of the nearest view along the view's fallback " +
          "chain (the view itself, then its `fallback_view_id`, …) whose overlay lists the field in `overridden`, else the page's own; " +
          '`overridden_fields` and `field_sources` say which fields came from which view. `customer_group_id` ' +
          'applies the customer-group version (`cms_pages/{p}/groups`) with the highest `priority` whose `customer_group_ids` contain the group ' +
          "and whose `visible_view_ids` admit the view (ties: the older version); the fields it sets replace what the view shows, the rest show the view's. " +
          'Without a matching version (or without a group) everybody reads the page. `is_visible` says whether the site would serve it in that ' +
          'view (`is_active` and `visible_view_ids`). `customer_id` reads as a customer (see the field). A view, customer group or customer of ' +
          'another website is INVALID_ARGUMENT. `is_visible` and the versions that match are decided by the view read as, never by its fallbacks. ' +
          'Prepared, indexed queries: the page, the view chain with its overlays, and the group version.',
        access: 'read',
        body: {
          properties: {
            view_id: { type: 'string', maxLength: 64, description: "View to read as; default: the website's default view." },
            customer_group_id: { type: 'string', maxLength: 64, description: 'Customer group to read as; absent: a visitor in no group.' },
            customer_id: {
              type: 'string',
              maxLength: 64,
              description:
                "Customer to read as (instead of `customer_group_id`): among the versions of the customer's groups, the group with the highest " +
                'customer-group `priority` wins (SPEC 2.14), then the highest version `priority`, then the older version.',
            },
          },
        },
        response: resolvedPageSchema,
        handle: (ctx, call) => deps.resolver.resolve(ctx, call.params, call.body),
      },
    ],
  };
}
