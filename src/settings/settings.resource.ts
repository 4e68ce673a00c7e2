import { read, write } from '../platform/auth/rights.js';
import type { FieldDecl, ResourceDecl } from '../platform/resource/declaration.js';
import type { SettingType } from './setting-registry.js';

const SETTING_TYPES: readonly SettingType[] = ['STRING', 'BOOLEAN', 'INTEGER', 'ENUM', 'STRING_LIST'];

// Untyped on purpose: a string, number, boolean, array of strings or null as the descriptor says;
// the descriptor checks it and names `value` (a typed union would also make the response
// serializer coerce arrays to strings).
const valueSchema = {};

/** The catalogue of settable paths (platform-wide, read-only). */
export const settingDescriptorResource: ResourceDecl = {
  collection: 'setting_descriptors',
  singular: 'SettingDescriptor',
  table: 'setting_descriptors',
  catalogue: true,
  description:
    'Platform catalogue (read-only) of every website setting: its dotted `path` (also the id), `type`, `default_value`, allowed values and bounds, ' +
    'and whether a view may override it. Settings outside this catalogue do not exist.',
  collectionPath: 'setting_descriptors',
  itemPath: 'setting_descriptors/{setting_descriptor_id}',
  fields: {
    path: { type: 'string', description: 'Dotted path, e.g. `general.site.name`; also the id. `path:"general."` filters by prefix.', behavior: ['OUTPUT_ONLY'], hasMatchesPrefix: true },
    description: { type: 'string', description: 'What the setting does.', behavior: ['OUTPUT_ONLY'] },
    type: { type: 'enum', description: 'JSON type of `value`: STRING (string), BOOLEAN, INTEGER, ENUM (one of `allowed_values`), STRING_LIST (array of strings).', values: SETTING_TYPES, behavior: ['OUTPUT_ONLY'] },
    default_value: { type: 'json', description: 'Value of the setting while nobody wrote it (null: not set).', behavior: ['OUTPUT_ONLY'], schema: valueSchema },
    allowed_values: { type: 'string_list', description: 'ENUM members.', behavior: ['OUTPUT_ONLY'] },
    min_value: { type: 'integer', description: 'Smallest INTEGER accepted.', behavior: ['OUTPUT_ONLY'] },
    max_value: { type: 'integer', description: 'Largest INTEGER accepted.', behavior: ['OUTPUT_ONLY'] },
    max_length: { type: 'integer', description: 'Longest STRING (or STRING_LIST item) accepted.', behavior: ['OUTPUT_ONLY'] },
    max_items: { type: 'integer', description: 'Most STRING_LIST items accepted.', behavior: ['OUTPUT_ONLY'] },
    format: { type: 'enum', description: 'Syntax a STRING must have: EMAIL or HOSTNAME (lowercased, no scheme, port or path).', values: ['EMAIL', 'HOSTNAME'], behavior: ['OUTPUT_ONLY'] },
    item_prefix: { type: 'string', description: 'Text each STRING_LIST item must start with.', behavior: ['OUTPUT_ONLY'] },
    view_overridable: { type: 'boolean', description: 'Whether a view may hold its own value (`websites/{w}/views/{v}/settings/{path}`).', behavior: ['OUTPUT_ONLY'] },
  },
  filterable: ['path', 'type', 'view_overridable'],
  sortable: ['path'],
  defaultOrder: 'path asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: write('') },
};

const common = (sources: readonly string[], scopeText: string): Record<string, FieldDecl> => ({
  path: { type: 'string', description: 'Dotted path of the setting; also its id. `filter=path:"general.web"` lists a prefix.', behavior: ['OUTPUT_ONLY'], hasMatchesPrefix: true },
  value: {
    type: 'json',
    description:
      `The value in force ${scopeText}, typed as the descriptor says. Send \`null\` with \`update_mask=value\` (or null in \`:batch_update\`) to return to the inherited value; ` +
      'a value the descriptor refuses is INVALID_ARGUMENT on `value`.',
    schema: valueSchema,
  },
  type: { type: 'enum', description: 'Type from the descriptor.', values: SETTING_TYPES, behavior: ['OUTPUT_ONLY'] },
  source: { type: 'enum', description: 'Where `value` comes from: ' + sources.join(', ') + ' (DEFAULT: the registry default; nobody wrote it).', values: sources, behavior: ['OUTPUT_ONLY'] },
  view_overridable: { type: 'boolean', description: 'Whether a view may hold its own value.', behavior: ['OUTPUT_ONLY'] },
});

/**
 * A website's settings: one virtual row per registry descriptor (its default until written),
 * addressed by dotted path (SPEC 2.1, 4.1 rule 10).
 */
export const websiteSettingResource: ResourceDecl = {
  collection: 'settings',
  singular: 'Setting',
  table: 'settings',
  description:
    'Website settings keyed by dotted path (`websites/{w}/settings/general.site.name`). Every path of `setting_descriptors` is listed; ' +
    'a never-written setting answers its default (`source` DEFAULT, etag `0`, no timestamps). Update writes `value` only. ' +
    '`:batch_update` writes several atomically. Writing `general.web.custom_domain` sets the website’s `custom_domain`.',
  collectionPath: 'websites/{website_id}/settings',
  itemPath: 'websites/{website_id}/settings/{path}',
  fields: common(['DEFAULT', 'WEBSITE'], 'on the website'),
  filterable: ['path', 'type', 'source', 'view_overridable'],
  sortable: ['path'],
  defaultOrder: 'path asc',
  methods: ['list', 'get', 'update'],
  options: { validateOnly: true },
  rights: { read: read('website.settings'), write: write('website.settings') },
};

/** The settings in force in one view: the view's own value where it overrides, else the website's. */
export const viewSettingResource: ResourceDecl = {
  collection: 'settings',
  singular: 'ViewSetting',
  pluralNoun: 'ViewSettings',
  table: 'settings',
  description:
    'Settings as they apply in one view: its own value where it overrides (`source` VIEW), else the website’s value or default. ' +
    'Every descriptor is listed; only those with `view_overridable` accept an Update (others answer FAILED_PRECONDITION, reason `SETTING_NOT_VIEW_OVERRIDABLE`). ' +
    'Sending `value: null` with `update_mask=value` removes the override. The etag covers both the override and the website value.',
  collectionPath: 'websites/{website_id}/views/{view_id}/settings',
  itemPath: 'websites/{website_id}/views/{view_id}/settings/{path}',
  fields: common(['DEFAULT', 'WEBSITE', 'VIEW'], 'in the view'),
  filterable: ['path', 'type', 'source', 'view_overridable'],
  sortable: ['path'],
  defaultOrder: 'path asc',
  methods: ['list', 'get', 'update'],
  options: { validateOnly: true },
  rights: { read: read('website.views'), write: write('website.views') },
};
