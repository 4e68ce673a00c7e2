import { read, write } from '../platform/auth/rights.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { IDENTIFIER_PATTERN, visibleViewIdsField } from '../cms/index.js';

/** Navigation menus: `websites/{w}/navigation_menus/{m}`; their items are a tree under `…/items`. */
export function navigationMenuResource(): ResourceDecl {
  return {
    collection: 'navigation_menus',
    singular: 'NavigationMenu',
    table: 'navigation_menus',
    description:
      'A navigation menu (main menu, footer links). Its entries are `navigation_menus/{m}/items`, a tree ordered with `:move`. ' +
      'Every website gets the menu `main` (identifier `main`) at provisioning. Delete removes the menu with its items.',
    collectionPath: 'websites/{website_id}/navigation_menus',
    itemPath: 'websites/{website_id}/navigation_menus/{navigation_menu_id}',
    fields: {
      display_name: { type: 'string', description: 'Name in the admin.', behavior: ['REQUIRED'], maxLength: 255, trim: true, notBlank: true },
      identifier: {
        type: 'string',
        description: 'Stable handle themes use to place the menu (`main`, `footer`); unique per website (ALREADY_EXISTS otherwise).',
        behavior: ['REQUIRED'],
        pattern: IDENTIFIER_PATTERN,
        maxLength: 128,
        trim: true,
        uniqueInParent: true,
        example: 'footer',
      },
      visible_view_ids: visibleViewIdsField('menu'),
    },
    filterable: ['create_time', 'update_time', 'display_name', 'identifier', 'visible_view_ids'],
    sortable: ['create_time', 'display_name'],
    defaultOrder: 'create_time asc',
    methods: ['list', 'get', 'create', 'update', 'delete'],
    options: { clientId: true, validateOnly: true },
    rights: { read: read('website.navigation'), write: write('website.navigation') },
  };
}
