import type { ProvisioningStep, Reference } from '../platform/area.js';
import { read, write } from '../platform/auth/rights.js';
import type { SqlDialect } from '../platform/db/database.js';
import { InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { ResourceDecl, Row } from '../platform/resource/declaration.js';
import { menuIdByIdentifier } from '../navigation/index.js';
import { DEFAULT_VARIABLES, THEME_PRESETS, THEME_VARIABLES } from './theme-variables.js';
import { clearThemeReference, insertThemeOnce, themeRefersTo, type ThemeReferenceField } from './theme.repo.js';

/**
 * The CSS variables every theme knows (theme-variables.ts), with the values a new website starts
 * with. Themes may carry others (a custom template's own variables): they are stored and answered as sent.
 */
export { DEFAULT_VARIABLES };

const VARIABLE_NAME = /^--[A-Za-z0-9_-]{1,64}$/;
/** Characters that would end the declaration or the style element a value is written into. */
const UNSAFE_VALUE = /[;{}<>\\]|\/\*/;
export const MAX_VARIABLES = 200;
const MAX_VALUE_LENGTH = 256;

/** What each reference field must point at: a row of that table on the same website. */
const REFERENCES: ReadonlyArray<{ field: ThemeReferenceField; table: string; what: string }> = [
  { field: 'logo_media_id', table: 'media', what: 'a media item' },
  { field: 'favicon_media_id', table: 'media', what: 'a media item' },
  { field: 'main_menu_id', table: 'navigation_menus', what: 'a navigation menu' },
  { field: 'footer_block_id', table: 'cms_blocks', what: 'a CMS block' },
];

/**
 * What a Delete of a referenced row does to the theme: the field is cleared (the site falls back to
 * no logo, no footer, ...), like WordPress's custom logo when its image is deleted.
 */
export const themeReferences: Reference[] = REFERENCES.map(({ field, table }) => ({
  target: table,
  describe: `theme.${field}`,
  count: async (db, websiteId, id) => ((await themeRefersTo(db, websiteId, field, id)) ? 1 : 0),
  detach: (db, websiteId, id, now) => clearThemeReference(db, websiteId, field, id, now),
}));

function variableViolations(variables: Record<string, unknown>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const names = Object.keys(variables);
  if (names.length > MAX_VARIABLES) violations.push({ field: 'variables', description: `must have at most ${MAX_VARIABLES} entries` });
  for (const name of names) {
    const value = variables[name];
    const field = `variables.${name}`;
    if (!VARIABLE_NAME.test(name)) violations.push({ field, description: 'is not a CSS custom property name (`--` then up to 64 letters, digits, `-` or `_`)' });
    else if (typeof value !== 'string') violations.push({ field, description: 'must be a string' });
    else if (value.length > MAX_VALUE_LENGTH) violations.push({ field, description: `must have at most ${MAX_VALUE_LENGTH} characters` });
    else if (UNSAFE_VALUE.test(value)) violations.push({ field, description: 'must not contain ; { } < > \\ or /*' });
  }
  return violations;
}

/**
 * The website's theme (`websites/{w}/theme`, a singleton): CSS variables, logo, favicon, main
 * menu and footer block. References must name rows of the same website; ids of other websites
 * look exactly like missing ones and are never followed.
 */
export function themeResource(deps: { dialect: SqlDialect }): ResourceDecl {
  return {
    kind: 'singleton',
    collection: 'theme',
    singular: 'Theme',
    table: 'themes',
    description:
      'The website’s theme (singleton; only Get and Update). `variables` maps CSS custom properties (`--name`) to values; the known ones ' +
      `(${Object.keys(DEFAULT_VARIABLES).join(', ')}) have defaults, any other well-formed variable is kept as sent and answered back. ` +
      '`variables` is replaced whole when sent; a known variable left out returns to its default. References name a media item, navigation menu or CMS block ' +
      'of the same website; a missing or foreign id is INVALID_ARGUMENT naming the field. A never-written theme answers its defaults without timestamps.',
    collectionPath: 'websites/{website_id}/theme',
    itemPath: 'websites/{website_id}/theme',
    fields: {
      variables: {
        type: 'object',
        description: `CSS custom property → value (at most ${MAX_VARIABLES}; values at most ${MAX_VALUE_LENGTH} characters without ; { } < > \\ or /*).`,
        default: DEFAULT_VARIABLES,
        schema: { additionalProperties: { type: 'string', maxLength: MAX_VALUE_LENGTH } },
      },
      logo_media_id: { type: 'string', description: 'Media item shown as the site logo.', maxLength: 128, refersTo: { table: 'media', what: 'a media item' } },
      favicon_media_id: { type: 'string', description: 'Media item used as the favicon.', maxLength: 128, refersTo: { table: 'media', what: 'a media item' } },
      main_menu_id: { type: 'string', description: 'Navigation menu shown as the main menu.', maxLength: 128, refersTo: { table: 'navigation_menus', what: 'a navigation menu' } },
      footer_block_id: { type: 'string', description: 'CMS block rendered as the footer.', maxLength: 128, refersTo: { table: 'cms_blocks', what: 'a CMS block' } },
      variable_definitions: {
        type: 'json',
        column: false,
        behavior: ['OUTPUT_ONLY'],
        description:
          'The variables the site’s design uses, for an editor to show as controls: `name`, `type` (`color`, `font`, `length`), `group` ' +
          '(`colors`, `dark_colors` for visitors who prefer a dark scheme, `typography`, `layout`), `default`, `description`, and for fonts the offered system `options` (nothing is downloaded at run time).',
        schema: {
          type: 'array',
          maxItems: MAX_VARIABLES,
          items: {
            type: 'object',
            required: ['name', 'type', 'group', 'default', 'description'],
            properties: {
              name: { type: 'string', maxLength: 66 },
              type: { type: 'string', enum: ['color', 'font', 'length'] },
              group: { type: 'string', enum: ['colors', 'dark_colors', 'typography', 'layout'] },
              default: { type: 'string', maxLength: MAX_VALUE_LENGTH },
              description: { type: 'string', maxLength: 500 },
              options: {
                type: 'array',
                maxItems: 50,
                items: { type: 'object', required: ['value', 'label'], properties: { value: { type: 'string', maxLength: MAX_VALUE_LENGTH }, label: { type: 'string', maxLength: 100 } } },
              },
            },
          },
        },
      },
      presets: {
        type: 'json',
        column: false,
        behavior: ['OUTPUT_ONLY'],
        description: 'Starting points (business, magazine, personal blog): apply one by sending `variables` with its `variables` merged over the defaults.',
        schema: {
          type: 'array',
          maxItems: 20,
          items: {
            type: 'object',
            required: ['id', 'display_name', 'description', 'variables'],
            properties: {
              id: { type: 'string', maxLength: 64 },
              display_name: { type: 'string', maxLength: 100 },
              description: { type: 'string', maxLength: 500 },
              variables: { type: 'object', additionalProperties: { type: 'string', maxLength: MAX_VALUE_LENGTH } },
            },
          },
        },
      },
    },
    filterable: [],
    sortable: [],
    defaultOrder: '',
    methods: ['get', 'update'],
    options: { validateOnly: true },
    rights: { read: read('website.theme'), write: write('website.theme') },
    hooks: {
      async beforeUpdate(ctx, next) {
        const violations: FieldViolation[] = [];
        if (ctx.updatedPaths.includes('variables') && next.variables !== null) {
          violations.push(...variableViolations(deps.dialect.readJson<Record<string, unknown>>(next.variables)));
        }
        if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
      },
      present(row: Row, resource) {
        // Known variables always answer (a default where the theme has none); unknown ones as stored.
        resource.variables = { ...DEFAULT_VARIABLES, ...((resource.variables as Record<string, string> | undefined) ?? {}) };
        resource.variable_definitions = THEME_VARIABLES;
        resource.presets = THEME_PRESETS;
      },
    },
  };
}

/**
 * Provisioning: the default theme, linked to the website's main menu (identifier `main`) when the
 * navigation area is part of the platform and made it in an earlier step. Skipped where the
 * website already has a theme (safe to re-run, keeps edits).
 */
export function defaultThemeStep(dialect: SqlDialect, navigationPresent: () => boolean): ProvisioningStep {
  return {
    name: 'DEFAULT_THEME',
    async run(db, website) {
      const now = Date.now();
      const mainMenuId = navigationPresent() ? await menuIdByIdentifier(db, website.id, 'main') : undefined;
      await insertThemeOnce(db, {
        id: website.id,
        account_id: website.account_id,
        variables: dialect.json(DEFAULT_VARIABLES),
        main_menu_id: mainMenuId ?? null,
        revision: 1,
        create_time: now,
        update_time: now,
      });
    },
  };
}
