/**
 * The dashboard's layout: widgets placed on a 12-column grid, their wire schema, the default
 * layout, and the rules a layout must meet (docs/decisions.md, "Dashboard layout").
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { checkQuery } from '../analytics/index.js';
import { InvalidArgument, type FieldViolation } from '../platform/errors.js';
import { violationsOf } from '../platform/http/errors.js';
import { GRID_COLUMNS, MAX_WIDGET_HEIGHT, WIDGET_TYPES, defaultSettings, resolveQuery, widgetTypeOf, type WidgetSize, type WidgetType } from './widget-types.js';

export const MAX_WIDGETS = 50;
/** Lowest row a widget may start on (a bound, so no layout is unboundedly tall). */
export const MAX_ROW = 999;
const WIDGET_ID = '^[a-z0-9][a-z0-9_-]{0,62}$';

export const WIDGET_POSITION_SCHEMA = {
  $id: 'DashboardWidgetPosition',
  type: 'object',
  description: 'Top-left cell of a widget on the 12-column grid.',
  additionalProperties: false,
  required: ['x', 'y'],
  properties: {
    x: { type: 'integer', format: 'int32', minimum: 0, maximum: GRID_COLUMNS - 1, description: 'Column, 0 (left) to 11.' },
    y: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_ROW, description: 'Row, 0 (top) down.' },
  },
};

export const WIDGET_SIZE_SCHEMA = {
  $id: 'DashboardWidgetSize',
  type: 'object',
  description: 'Extent of a widget in grid cells.',
  additionalProperties: false,
  required: ['width', 'height'],
  properties: {
    width: { type: 'integer', format: 'int32', minimum: 1, maximum: GRID_COLUMNS, description: 'Columns, 1 to 12.' },
    height: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_WIDGET_HEIGHT, description: `Rows, 1 to ${MAX_WIDGET_HEIGHT}.` },
  },
};

export const WIDGET_SCHEMA = {
  $id: 'DashboardWidget',
  type: 'object',
  description:
    'A widget of the dashboard: a widget type placed on the grid with its settings. `position.x + size.width` is at most 12, the size lies within the ' +
    'type’s `min_size`/`max_size`, and no two widgets share a cell.',
  additionalProperties: false,
  required: ['type', 'position', 'size'],
  properties: {
    id: {
      type: 'string',
      maxLength: 63,
      pattern: WIDGET_ID,
      description: 'Unique in the layout (lowercase letters, digits, `_`, `-`). When absent the server assigns one (the type id, then `{type}_2`, …); always answered.',
    },
    type: { type: 'string', maxLength: 64, description: 'Id of a `dashboard_widget_types` entry.' },
    position: WIDGET_POSITION_SCHEMA,
    size: WIDGET_SIZE_SCHEMA,
    settings: {
      type: 'object',
      additionalProperties: true,
      description: 'Settings, checked against the type’s `settings_schema`; a setting left out takes its default. Always answered complete.',
    },
    query: {
      type: 'object',
      additionalProperties: true,
      readOnly: true,
      description: 'The `analytics:query` body the widget runs: the type’s `query` with these settings filled in. Ignored when sent.',
    },
  },
};

export interface Widget {
  id: string;
  type: string;
  position: { x: number; y: number };
  size: WidgetSize;
  settings: Record<string, unknown>;
}

/** A widget as the body schema lets it through: `id` and `settings` may be left out. */
export type SentWidget = Omit<Widget, 'id' | 'settings'> & { id?: string; settings?: Record<string, unknown> };

/** The stored shape, key order fixed (PostgreSQL's jsonb reorders keys, so stored order means nothing). */
const storedWidget = (w: Widget): Widget => ({
  id: w.id,
  type: w.type,
  position: { x: w.position.x, y: w.position.y },
  size: { width: w.size.width, height: w.size.height },
  settings: Object.fromEntries(Object.keys(w.settings).sort().map((k) => [k, w.settings[k]])),
});

/** A widget of `typeId` at (x, y) with the type's default size and settings. */
function placed(typeId: string, x: number, y: number, size?: Partial<WidgetSize>): Widget {
  const type = widgetTypeOf(typeId)!;
  return storedWidget({ id: typeId, type: typeId, position: { x, y }, size: { ...type.default_size, ...size }, settings: defaultSettings(type) });
}

/**
 * The layout of a dashboard nobody wrote, and of one `:reset` (like Plausible's): the headline
 * figures, the visitors graph, sources beside pages, the three technology tables, events and views.
 */
export const DEFAULT_WIDGETS: readonly Widget[] = [
  placed('key_metrics', 0, 0),
  placed('visitors_graph', 0, 2),
  placed('top_sources', 0, 7),
  placed('top_pages', 6, 7),
  placed('devices', 0, 13, { width: 4, height: 5 }),
  placed('browsers', 4, 13, { width: 4, height: 5 }),
  placed('operating_systems', 8, 13, { width: 4, height: 5 }),
  placed('events', 0, 18, { height: 5 }),
  placed('views', 6, 18, { height: 5 }),
];

const DEFAULT_CANONICAL = JSON.stringify(DEFAULT_WIDGETS);

// Each type's settings schema compiled once; every violation reported, nothing coerced or filled.
const settingsAjv = addFormats.default(new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: false }));
const settingsValidators = new Map<string, ValidateFunction>(WIDGET_TYPES.map((type) => [type.id, settingsAjv.compile(type.settings_schema)]));

const overlaps = (a: Pick<Widget, 'position' | 'size'>, b: Pick<Widget, 'position' | 'size'>) =>
  a.position.x < b.position.x + b.size.width &&
  b.position.x < a.position.x + a.size.width &&
  a.position.y < b.position.y + b.size.height &&
  b.position.y < a.position.y + a.size.height;

/**
 * Checks a layout as sent (its structure already checked by the body schema) and answers it as
 * stored: ids assigned where absent, settings completed with their defaults, `query` dropped.
 * Every rule broken is a violation naming the field (`widgets[2].settings.limit`).
 */
export function normaliseLayout(sent: readonly SentWidget[]): { widgets: Widget[]; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const widgets: Array<SentWidget & { settings: Record<string, unknown> }> = [];
  const firstWithId = new Map<string, number>();
  const fits: boolean[] = [];
  sent.forEach((w, i) => {
    const at = `widgets[${i}]`;
    const widget = { id: w.id, type: w.type, position: w.position, size: w.size, settings: { ...(w.settings ?? {}) } };
    widgets.push(widget);
    if (widget.id !== undefined) {
      const first = firstWithId.get(widget.id);
      if (first !== undefined) violations.push({ field: `${at}.id`, description: `repeats widgets[${first}].id ${JSON.stringify(widget.id)}; ids are unique in the layout` });
      else firstWithId.set(widget.id, i);
    }
    let fitsGrid = widget.position.x + widget.size.width <= GRID_COLUMNS;
    if (!fitsGrid) {
      violations.push({ field: `${at}.size.width`, description: `reaches past the grid: position.x + size.width is ${widget.position.x + widget.size.width}, at most ${GRID_COLUMNS}` });
    }
    const type = widgetTypeOf(widget.type);
    if (!type) {
      violations.push({ field: `${at}.type`, description: `${JSON.stringify(widget.type)} is not a widget type (see dashboard_widget_types)` });
      fits.push(fitsGrid);
      return;
    }
    for (const side of ['width', 'height'] as const) {
      const value = widget.size[side];
      if (value < type.min_size[side]) violations.push({ field: `${at}.size.${side}`, description: `must be at least ${type.min_size[side]} for a ${type.id} widget` });
      if (value > type.max_size[side]) violations.push({ field: `${at}.size.${side}`, description: `must be at most ${type.max_size[side]} for a ${type.id} widget` });
      if (value < type.min_size[side] || value > type.max_size[side]) fitsGrid = false;
    }
    fits.push(fitsGrid);
    widget.settings = { ...defaultSettings(type), ...widget.settings };
    const validate = settingsValidators.get(type.id)!;
    if (!validate(widget.settings)) violations.push(...violationsOf(validate.errors ?? [], 'body', `${at}.settings`));
    else {
      const refused = queryRefusal(type, widget.settings);
      if (refused) violations.push({ field: `${at}.${refused.field}`, description: refused.description });
    }
  });
  // Overlap is judged only between widgets whose own extent is valid, so one mistake is reported once.
  widgets.forEach((widget, j) => {
    if (!fits[j]) return;
    const other = widgets.findIndex((earlier, i) => i < j && fits[i] && overlaps(earlier, widget));
    if (other >= 0) violations.push({ field: `widgets[${j}].position`, description: `overlaps widgets[${other}]; widgets may not share a grid cell` });
  });
  // Ids for widgets sent without one: the type id, then `{type}_2`, `{type}_3`, … — never one taken.
  const complete = widgets.map((widget): Widget => {
    if (widget.id !== undefined) return { ...widget, id: widget.id };
    let candidate = widget.type;
    for (let n = 2; firstWithId.has(candidate); n++) candidate = `${widget.type}_${n}`;
    firstWithId.set(candidate, -1);
    return { ...widget, id: candidate };
  });
  return { widgets: violations.length ? [] : complete.map(storedWidget), violations };
}

/**
 * Why `analytics:query` would refuse the widget's resolved query (settings valid one by one may
 * still combine badly: `interval` hour over `12mo`), as the setting to blame; undefined when it runs.
 */
function queryRefusal(type: WidgetType, settings: Record<string, unknown>): FieldViolation | undefined {
  try {
    checkQuery(resolveQuery(type, settings));
    return undefined;
  } catch (err) {
    const violation = err instanceof InvalidArgument ? (err.details.find((d) => d.type === 'FIELD_VIOLATION') as FieldViolation | undefined) : undefined;
    if (!violation) throw err;
    // The query field filled by one whole setting (`interval: '{{interval}}'`) names that setting.
    const placeholder = /^\{\{([a-z_]+)\}\}$/.exec(String(type.query[violation.field.split(/[.[]/)[0]] ?? ''));
    return { field: placeholder ? `settings.${placeholder[1]}` : 'settings', description: violation.description };
  }
}

/** A stored widget as answered: settings completed with defaults added since it was written, and its resolved `query`. */
export function presentWidget(stored: Widget): Record<string, unknown> {
  const type = widgetTypeOf(stored.type);
  if (!type) return storedWidget(stored) as unknown as Record<string, unknown>;
  const settings = { ...defaultSettings(type), ...stored.settings };
  return { ...storedWidget({ ...stored, settings }), query: resolveQuery(type, settings) };
}

/** Whether a stored layout is the default one. */
export const isDefaultLayout = (stored: readonly Widget[]) => JSON.stringify(stored.map(storedWidget)) === DEFAULT_CANONICAL;
