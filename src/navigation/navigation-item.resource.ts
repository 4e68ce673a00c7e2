import { read, write } from '../platform/auth/rights.js';
import { InvalidArgument } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { placeNewInTree, treeMoveMethod, type TreeSpec } from '../platform/resource/tree.js';
import { visibleViewIdsField } from '../cms/index.js';

/** Menus are at most 5 levels deep (root 0): deeper menus do not render usably. */
const MAX_LEVEL = 4;
/** Absolute http(s), mailto: and tel: links, or a site-relative path / fragment. Never `javascript:` or `data:`. */
const URL_PATTERN = '^(?:https?://[^\\s]+|mailto:[^\\s]+|tel:[+0-9()\\s.-]+|/[^\\s]*|#[^\\s]*)$';

const treeOf = (row: Row): TreeSpec => ({
  table: 'navigation_items',
  scope: { website_id: row.website_id, navigation_menu_id: row.navigation_menu_id },
  maxLevel: MAX_LEVEL,
});

/** Exactly one target: a page of the same website or a URL. */
function checkTarget(row: Row): void {
  const hasPage = row.cms_page_id !== null && row.cms_page_id !== undefined;
  const hasUrl = row.url !== null && row.url !== undefined;
  if (hasPage === hasUrl) throw InvalidArgument.field(hasPage ? 'url' : 'cms_page_id', 'an item links to exactly one of cms_page_id or url');
}

/** Navigation items: a tree per menu, `websites/{w}/navigation_menus/{m}/items/{i}`. */
export function navigationItemResource(): ResourceDecl {
  return {
    collection: 'items',
    singular: 'NavigationItem',
    pluralNoun: 'NavigationItems',
    table: 'navigation_items',
    parentTable: 'navigation_menus',
    description:
      'An entry of a navigation menu: a label linking to a page of the website (`cms_page_id`, follows the page\'s `url_key`) or to a `url`. ' +
      'Items form a tree (materialised path, like media folders); `:move` changes the parent and the place among siblings. Deleting an item ' +
      'deletes its sub-items. Default order `path asc` lists the tree depth-first; `filter=parent_id = "x"` with `order_by=sort_order` lists one level in menu order.',
    collectionPath: 'websites/{website_id}/navigation_menus/{navigation_menu_id}/items',
    itemPath: 'websites/{website_id}/navigation_menus/{navigation_menu_id}/items/{navigation_item_id}',
    fields: {
      label: { type: 'string', description: 'Text of the entry.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      cms_page_id: {
        type: 'string',
        description: 'Page of the same website the entry links to (else INVALID_ARGUMENT); exactly one of `cms_page_id` and `url`. Deleting the page with `force` deletes the entry.',
        maxLength: 64,
        refersTo: { table: 'cms_pages', what: 'a page' },
      },
      url: {
        type: 'string',
        description: 'Link target when not a page: `http(s)://…`, `mailto:`, `tel:`, a site path `/…` or a fragment `#…`; `javascript:` and `data:` are refused.',
        pattern: URL_PATTERN,
        maxLength: 2048,
        trim: true,
      },
      open_in_new_tab: { type: 'boolean', description: 'Open the link in a new tab. Default false.', default: false },
      is_active: { type: 'boolean', description: 'Whether the menu shows the entry (and its sub-items). Default true.', default: true },
      visible_view_ids: visibleViewIdsField('item'),
      parent_id: {
        type: 'string',
        description: 'Parent item in the same menu; absent at the top level. Settable on create, then changed only by `:move`.',
        behavior: ['IMMUTABLE'],
        maxLength: 64,
      },
      path: { type: 'string', description: 'Ids of the ancestors and the item joined by `/`; sorting by it lists the tree depth-first.', behavior: ['OUTPUT_ONLY'], notNull: true },
      level: { type: 'integer', description: 'Depth; top level is 0, at most 4.', behavior: ['OUTPUT_ONLY'], notNull: true },
      sort_order: { type: 'integer', description: 'Place among its siblings; a new item comes last; changed by `:move`.', behavior: ['OUTPUT_ONLY'], notNull: true },
    },
    filterable: ['create_time', 'update_time', 'label', 'parent_id', 'level', 'path', 'cms_page_id', 'is_active', 'visible_view_ids'],
    sortable: ['path', 'sort_order', 'level', 'parent_id', 'create_time', 'label'],
    defaultOrder: 'path asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: { read: read('website.navigation'), write: write('website.navigation') },
    hooks: {
      async beforeCreate(ctx, row) {
        checkTarget(row);
        await placeNewInTree(ctx.trx, treeOf(row), row);
      },
      async beforeUpdate(ctx, next) {
        if (ctx.updatedPaths.includes('cms_page_id') || ctx.updatedPaths.includes('url')) checkTarget(next);
      },
    },
    customMethods: [
      treeMoveMethod({
        summary: 'Move a navigation item (and its sub-items)',
        description: 'Puts the item under `parent_id` (absent or null: top level) right after its sibling `after_id` (absent or null: first).',
        treeOf,
      }),
    ],
  };
}
