import { createHash } from 'node:crypto';
import { read, write } from '../platform/auth/rights.js';
import { NotFound } from '../platform/errors.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { WIDGET_SIZE_SCHEMA } from './layout.js';
import { WIDGET_CATEGORIES, WIDGET_TYPES, defaultSettings, widgetTypeOf, type WidgetType } from './widget-types.js';

const out = { behavior: ['OUTPUT_ONLY'] as const };
const EXAMPLE = widgetTypeOf('top_pages')!;

/** A widget type as the catalogue shows it; the etag changes when a release changes the type. */
function presentWidgetType(type: WidgetType): Record<string, unknown> {
  return {
    name: `dashboard_widget_types/${type.id}`,
    ...type,
    default_settings: defaultSettings(type),
    etag: createHash('sha256').update(JSON.stringify(type)).digest('base64url').slice(0, 16),
  };
}

const PRESENTED = WIDGET_TYPES.map(presentWidgetType);

/** `dashboard_widget_types`: the widgets a dashboard may hold (platform catalogue, read-only). */
export const dashboardWidgetTypeResource: ResourceDecl = {
  collection: 'dashboard_widget_types',
  singular: 'DashboardWidgetType',
  table: 'dashboard_widget_types',
  catalogue: true,
  description:
    'Platform catalogue (read-only) of the widgets a website dashboard may hold: what each shows, the `analytics:query` body it runs, its settings ' +
    '(a JSON Schema) and its size on the 12-column grid. In `query`, a string that is exactly `{{name}}` stands for the setting `name` with its JSON ' +
    'type (left out when the setting is null) and `{{name}}` inside a longer string for its text; each dashboard widget answers its filled-in `query`.',
  collectionPath: 'dashboard_widget_types',
  itemPath: 'dashboard_widget_types/{dashboard_widget_type_id}',
  fields: {
    display_name: { type: 'string', description: 'Label.', ...out },
    description: { type: 'string', description: 'What the widget shows.', ...out },
    category: { type: 'enum', description: 'Group in a widget picker.', values: WIDGET_CATEGORIES, ...out },
    query: {
      type: 'object',
      description: 'The `analytics:query` request body the widget runs, with `{{setting}}` placeholders (see the collection description).',
      example: EXAMPLE.query,
      ...out,
    },
    settings_schema: {
      type: 'object',
      description: 'JSON Schema (an object schema, unknown settings refused) of the widget’s `settings`: each property with its type, bounds or `enum`, and `default`.',
      example: EXAMPLE.settings_schema,
      ...out,
    },
    default_settings: { type: 'object', description: 'Settings of a widget sent without any: each property’s `default`.', example: defaultSettings(EXAMPLE), ...out },
    default_size: { type: 'object', description: 'Size a new widget of this type gets in the default layout and in widget pickers.', schema: WIDGET_SIZE_SCHEMA, ...out },
    min_size: { type: 'object', description: 'Smallest size a widget of this type may have.', schema: WIDGET_SIZE_SCHEMA, ...out },
    max_size: { type: 'object', description: 'Largest size a widget of this type may have.', schema: WIDGET_SIZE_SCHEMA, ...out },
  },
  filterable: ['category', 'display_name'],
  sortable: ['category', 'display_name'],
  defaultOrder: 'category asc',
  methods: ['list', 'get'],
  rights: { read: read(''), write: write('') },
  virtual: {
    all: async () => PRESENTED,
    async get(_ctx, params) {
      const found = PRESENTED.find((type) => type.id === params.dashboard_widget_type_id);
      if (!found) throw new NotFound(`dashboard widget type ${params.dashboard_widget_type_id}`);
      return found;
    },
  },
};
