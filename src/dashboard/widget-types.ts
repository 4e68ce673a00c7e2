/**
 * The catalogue of dashboard widget types (`dashboard_widget_types`): what each widget shows, the
 * `analytics:query` body it runs, its settings (a JSON Schema) and its size on the 12-column grid.
 * Adding a widget type is one entry here; every dashboard may then use it (docs/architecture.md,
 * "Dashboard").
 *
 * A type's `query` is an `analytics:query` request body with placeholders for its settings: a string
 * that is exactly `{{name}}` takes the setting's value with its JSON type (an integer, an array, ...;
 * a property whose setting is null is left out), and `{{name}}` inside a longer string
 * (`"{{metric}} desc"`) is replaced by the value's text. `resolveQuery` applies that rule; every
 * widget of a dashboard answers its resolved body as `query`, and a layout whose resolved query
 * `:query` would refuse (`checkQuery`) is refused when written.
 */
import { COMPARES, DATE_RANGES as ANALYTICS_DATE_RANGES, INTERVALS, METRICS } from '../analytics/index.js';

/** Grid the dashboard is laid out on: 12 columns, rows of one unit each. */
export const GRID_COLUMNS = 12;
/** Tallest widget any type allows, in rows (also bounds `size.height` on the wire). */
export const MAX_WIDGET_HEIGHT = 12;

export const WIDGET_CATEGORIES = ['OVERVIEW', 'SOURCES', 'CONTENT', 'TECHNOLOGY', 'EVENTS'] as const;
export type WidgetCategory = (typeof WIDGET_CATEGORIES)[number];

export interface WidgetSize {
  width: number;
  height: number;
}

/** A JSON Schema of an object whose properties are the settings (each with its `default`). */
export interface SettingsSchema {
  type: 'object';
  additionalProperties: false;
  properties: Record<string, Record<string, unknown> & { default: unknown; description: string }>;
}

export interface WidgetType {
  id: string;
  display_name: string;
  description: string;
  category: WidgetCategory;
  query: Record<string, unknown>;
  settings_schema: SettingsSchema;
  default_size: WidgetSize;
  min_size: WidgetSize;
  max_size: WidgetSize;
}

/** Named periods of `analytics:query` (`custom` needs dates, so a widget does not offer it). */
const DATE_RANGES = ANALYTICS_DATE_RANGES.filter((range) => range !== 'custom');

const dateRange = {
  type: 'string',
  enum: DATE_RANGES,
  default: '30d',
  description: 'Period shown, in the website’s time zone (→ `date_range`).',
};
const limit = (byDefault: number) => ({
  type: 'integer',
  format: 'int32',
  minimum: 1,
  maximum: 100,
  default: byDefault,
  description: 'Rows shown, the largest first (→ `limit`).',
});
const metric = (byDefault: (typeof METRICS)[number], allowed: readonly string[] = METRICS) => ({
  type: 'string',
  enum: allowed,
  default: byDefault,
  description: 'Metric shown; rows are ordered by it, largest first (→ `metrics` and `order_by`).',
});
const settings = (properties: SettingsSchema['properties']): SettingsSchema => ({ type: 'object', additionalProperties: false, properties });

const BREAKDOWN_SIZES = { default_size: { width: 6, height: 6 }, min_size: { width: 3, height: 3 }, max_size: { width: 12, height: MAX_WIDGET_HEIGHT } };

/** A table of the top values of one dimension by one metric. */
function breakdown(
  id: string,
  display_name: string,
  category: WidgetCategory,
  description: string,
  dimension: string,
  byDefault: { metric: (typeof METRICS)[number]; limit?: number },
  extra: Record<string, unknown> = {},
): WidgetType {
  return {
    id,
    display_name,
    description,
    category,
    query: { metrics: ['{{metric}}'], date_range: '{{date_range}}', dimensions: [dimension], ...extra, order_by: '{{metric}} desc', limit: '{{limit}}' },
    settings_schema: settings({ metric: metric(byDefault.metric), limit: limit(byDefault.limit ?? 10), date_range: dateRange }),
    ...BREAKDOWN_SIZES,
  };
}

export const WIDGET_TYPES: readonly WidgetType[] = [
  {
    id: 'key_metrics',
    display_name: 'Key metrics',
    description: 'The headline figures of the period (unique visitors, visits, page views, views per visit, bounce rate, visit duration), each with its change against the comparison period.',
    category: 'OVERVIEW',
    query: { metrics: '{{metrics}}', date_range: '{{date_range}}', compare: '{{compare}}' },
    settings_schema: settings({
      metrics: {
        type: 'array',
        items: { type: 'string', enum: METRICS },
        minItems: 1,
        maxItems: METRICS.length,
        uniqueItems: true,
        default: ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration'],
        description: 'Figures shown, in this order (→ `metrics`).',
      },
      compare: {
        type: ['string', 'null'],
        enum: [...COMPARES, null],
        default: 'previous_period',
        description: 'Period each figure is compared with; null shows no comparison (→ `compare`, left out when null).',
      },
      date_range: dateRange,
    }),
    default_size: { width: 12, height: 2 },
    min_size: { width: 4, height: 2 },
    max_size: { width: 12, height: 4 },
  },
  {
    id: 'visitors_graph',
    display_name: 'Visitors graph',
    description: 'One metric over time: a line of the period, a point per hour, day, week or month.',
    category: 'OVERVIEW',
    query: { metrics: ['{{metric}}'], date_range: '{{date_range}}', interval: '{{interval}}' },
    settings_schema: settings({
      metric: { type: 'string', enum: METRICS, default: 'visitors', description: 'Metric drawn (→ `metrics`).' },
      interval: { type: 'string', enum: INTERVALS, default: 'day', description: 'One point per interval (→ `interval`); `hour` for periods of at most 31 days (not `12mo`).' },
      date_range: dateRange,
    }),
    default_size: { width: 12, height: 5 },
    min_size: { width: 4, height: 3 },
    max_size: { width: 12, height: MAX_WIDGET_HEIGHT },
  },
  breakdown('top_sources', 'Top sources', 'SOURCES', 'Where visits come from: the referring site’s host (`google.com`); direct visits have none.', 'source', { metric: 'visitors' }),
  {
    ...breakdown('utm_parameters', 'UTM parameters', 'SOURCES', 'Visits by one UTM parameter of the landing URL (campaign by default).', '{{parameter}}', { metric: 'visitors' }),
    settings_schema: settings({
      parameter: {
        type: 'string',
        enum: ['utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'],
        default: 'utm_campaign',
        description: 'UTM parameter the rows are (→ `dimensions`).',
      },
      metric: metric('visitors'),
      limit: limit(10),
      date_range: dateRange,
    }),
  },
  breakdown('top_pages', 'Top pages', 'CONTENT', 'The most visited page paths.', 'page', { metric: 'visitors' }),
  breakdown('entry_pages', 'Entry pages', 'CONTENT', 'The pages visits start on.', 'entry_page', { metric: 'visits' }),
  breakdown('exit_pages', 'Exit pages', 'CONTENT', 'The pages visits end on.', 'exit_page', { metric: 'visits' }),
  breakdown('views', 'Views', 'CONTENT', 'Visits by view of the website (language or store view) they were made in.', 'view', { metric: 'visitors' }),
  breakdown('devices', 'Devices', 'TECHNOLOGY', 'Visitors by device class: desktop, mobile, tablet.', 'device', { metric: 'visitors', limit: 3 }),
  breakdown('browsers', 'Browsers', 'TECHNOLOGY', 'Visitors by browser family (Chrome, Firefox, Safari, …).', 'browser', { metric: 'visitors' }),
  breakdown('operating_systems', 'Operating systems', 'TECHNOLOGY', 'Visitors by operating system family (Windows, iOS, Android, …).', 'os', { metric: 'visitors' }),
  {
    ...breakdown('events', 'Events', 'EVENTS', 'Custom events sent by the site (every named event but page views), the most frequent first.', 'event_name', { metric: 'events' }, {
      filters: [{ dimension: 'event_name', operator: 'IS_NOT', values: ['pageview'] }],
    }),
    settings_schema: settings({
      metric: metric('events', ['events', 'visitors', 'visits']),
      limit: limit(10),
      date_range: dateRange,
    }),
  },
];

const BY_ID = new Map(WIDGET_TYPES.map((type) => [type.id, type]));

export const widgetTypeOf = (id: string): WidgetType | undefined => BY_ID.get(id);

/** The settings a widget of this type has when none are sent: each setting's `default`. */
export function defaultSettings(type: WidgetType): Record<string, unknown> {
  return Object.fromEntries(Object.entries(type.settings_schema.properties).map(([name, schema]) => [name, structuredClone(schema.default)]));
}

const WHOLE = /^\{\{([a-z_]+)\}\}$/;
const INSIDE = /\{\{([a-z_]+)\}\}/g;

/** The `analytics:query` body a widget of `type` with `settings` runs (placeholder rule above). */
export function resolveQuery(type: WidgetType, settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value);
      if (whole) return settings[whole[1]] ?? null;
      return value.replace(INSIDE, (_, name: string) => String(settings[name] ?? ''));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        const filled = fill(inner);
        if (filled !== null) out[key] = filled;
      }
      return out;
    }
    return value;
  };
  return fill(type.query) as Record<string, unknown>;
}
