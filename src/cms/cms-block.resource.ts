import { read, write } from '../platform/auth/rights.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import { visibleViewIdsField } from './cms.service.js';
import { MAX_CONTENT_LENGTH } from './cms-page.resource.js';
import { sanitizeFields } from './content-html.js';
import { resolvedBlockSchema, type PageResolver } from './resolve.js';

/** A stable handle: lowercase letter or digit, then letters, digits, `_`, `-`, `.`. */
export const IDENTIFIER_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,127}$';

/** Fields of a block a view overlay may replace. */
export const BLOCK_CONTENT_FIELDS: Record<string, FieldDecl> = {
  title: { type: 'string', description: 'Title (admin label; themes may show it as a heading).', maxLength: 255, trim: true, notBlank: true },
  content: {
    type: 'string',
    description:
      'Rich text (HTML), sanitised on write with the same allow-list as page content (no script, event handlers, `javascript:` URLs, ' +
      `forms or foreign iframes). At most ${MAX_CONTENT_LENGTH} characters.`,
    maxLength: MAX_CONTENT_LENGTH,
  },
};

/** CMS blocks: reusable content addressed by `identifier` (unique per website), with per-view overlays. */
export function cmsBlockResource(deps: { resolver: PageResolver }): ResourceDecl {
  return {
    collection: 'cms_blocks',
    singular: 'CmsBlock',
    table: 'cms_blocks',
    description:
      'A reusable piece of content (footer, banner) that themes and pages place by its `identifier`. Per-view overlays live in ' +
      '`cms_blocks/{b}/views`; `:resolve` answers the block as a given view sees it.',
    collectionPath: 'websites/{website_id}/cms_blocks',
    itemPath: 'websites/{website_id}/cms_blocks/{cms_block_id}',
    fields: {
      identifier: {
        type: 'string',
        description:
          'Stable handle sites use to place the block (`footer_links`): lowercase letters, digits, `_`, `-`, `.`; unique per website ' +
          '(ALREADY_EXISTS otherwise). Changing it breaks placements that use the old one.',
        behavior: ['REQUIRED'],
        pattern: IDENTIFIER_PATTERN,
        maxLength: 128,
        trim: true,
        uniqueInParent: true,
        example: 'footer_links',
      },
      ...BLOCK_CONTENT_FIELDS,
      title: { ...BLOCK_CONTENT_FIELDS.title, behavior: ['REQUIRED'] },
      is_active: { type: 'boolean', description: 'Whether the site shows the block. Default true.', default: true },
      visible_view_ids: visibleViewIdsField('block'),
    },
    filterable: ['create_time', 'update_time', 'is_active', 'title', 'identifier', 'visible_view_ids'],
    sortable: ['create_time', 'update_time', 'title', 'identifier'],
    defaultOrder: 'create_time desc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: { read: read('website.content'), write: write('website.content') },
    hooks: {
      async beforeCreate(ctx, row) {
        sanitizeFields(row, ['content']);
      },
      async beforeUpdate(ctx, next) {
        if (ctx.updatedPaths.includes('content')) sanitizeFields(next, ['content']);
      },
    },
    customMethods: [
      {
        verb: 'resolve',
        on: 'item',
        summary: 'Read a block as a view sees it',
        description:
          "Answers the block as the rendered site shows it in `view_id` (default: the website's default view): each field shows the value of " +
          "the nearest view along the view's fallback chain (the view itself, then its `fallback_view_id`, …) whose overlay lists the field in " +
          "`overridden`, else the block's own; `field_sources` names the view of each. `is_visible` says whether the site shows it there (decided " +
          'by the view read as). A view of another website is INVALID_ARGUMENT. Reads only; two prepared, indexed queries.',
        access: 'read',
        body: { properties: { view_id: { type: 'string', maxLength: 64, description: "View to read as; default: the website's default view." } } },
        response: resolvedBlockSchema,
        handle: (ctx, call) => deps.resolver.resolve(ctx, call.params, call.body),
      },
    ],
  };
}
