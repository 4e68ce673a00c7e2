import { parseOrderBy, formatOrderBy, type OrderKey } from './declarations.js';
import { humanize, nonNull, schemaTypes } from './schema.js';
import type { JsonSchema, Reference, ResourceModel } from './types.js';

/** A filter control of a list screen, one per declared filterable field. */
export interface FilterControl {
  field: string;
  label: string;
  /**
   * text: `field:"…"` (contains); select: `field = VALUE`; boolean: `field = true`; range: a from
   * and a to time (`field >= "…" AND field <= "…"`); number: `field = n`; has: a list holding a
   * value (`field:"id"`), exact: `field = "…"` for fields of unknown or id type.
   */
  kind: 'text' | 'select' | 'boolean' | 'range' | 'number' | 'has' | 'exact';
  options?: string[];
  /** The field is a list: a select matches lists holding the value (`capabilities:"TEXT"`). */
  list?: boolean;
  reference?: Reference;
}

/** Filter control values as they live in the URL: `{state: 'DRAFT', 'create_time.from': '2026-01-01T00:00:00Z'}`. */
export type FilterState = Record<string, string>;

function fieldSchema(resource: ResourceModel, field: string): JsonSchema | undefined {
  const raw = resource.schema.properties?.[field];
  return raw ? nonNull(raw) : undefined;
}

/** The controls of a collection's declared filters, typed by the resource schema. */
export function filterControls(resource: ResourceModel): FilterControl[] {
  return (resource.declaration?.filterable ?? []).map((field) => {
    const schema = fieldSchema(resource, field);
    const reference = resource.references[field];
    const base = { field, label: humanize(field), ...(reference && { reference }) };
    if (!schema) return { ...base, kind: 'exact' as const };
    const types = schemaTypes(schema);
    if (schema.enum) return { ...base, kind: 'select' as const, options: schema.enum.filter((v): v is string => typeof v === 'string') };
    if (types.includes('boolean')) return { ...base, kind: 'boolean' as const };
    if (types.includes('array')) {
      const items = nonNull(schema.items ?? {});
      if (items.enum) return { ...base, kind: 'select' as const, list: true, options: items.enum.filter((v): v is string => typeof v === 'string') };
      return { ...base, kind: 'has' as const };
    }
    if (schema.format === 'date-time') return { ...base, kind: 'range' as const };
    if (types.includes('integer') || types.includes('number')) return { ...base, kind: 'number' as const };
    if (reference || /_id$/.test(field)) return { ...base, kind: 'exact' as const };
    return { ...base, kind: 'text' as const };
  });
}

/** An AIP-160 string literal. */
export const quote = (value: string): string => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

/** The `filter` parameter for the controls' values (terms joined by AND); '' when nothing is set. */
export function buildFilter(controls: readonly FilterControl[], state: FilterState): string {
  const terms: string[] = [];
  for (const c of controls) {
    const v = state[c.field]?.trim();
    switch (c.kind) {
      case 'range': {
        const from = state[`${c.field}.from`]?.trim();
        const to = state[`${c.field}.to`]?.trim();
        if (from) terms.push(`${c.field} >= ${quote(from)}`);
        if (to) terms.push(`${c.field} <= ${quote(to)}`);
        break;
      }
      case 'text':
      case 'has':
        if (v) terms.push(`${c.field}:${quote(v)}`);
        break;
      case 'select':
        if (v) terms.push(c.list ? `${c.field}:${quote(v)}` : `${c.field} = ${v}`);
        break;
      case 'boolean':
        if (v === 'true' || v === 'false') terms.push(`${c.field} = ${v}`);
        break;
      case 'number':
        if (v && !Number.isNaN(Number(v))) terms.push(`${c.field} = ${Number(v)}`);
        break;
      case 'exact':
        if (v === 'null') terms.push(`${c.field} = null`);
        else if (v) terms.push(`${c.field} = ${quote(v)}`);
        break;
    }
  }
  return terms.join(' AND ');
}

/** Fields that name a row best, in order of preference. */
const NAMING = ['display_name', 'title', 'label', 'email', 'key', 'path', 'identifier', 'filename', 'topic', 'kind', 'code', 'version', 'locale'];
const STATUS = /^(state|status|type|provisioning_status|is_active|is_enabled|is_default|mode|provider|level)$/;
const TIMES = ['publish_time', 'slot_time', 'update_time', 'create_time'];

/** The columns of a list screen: what names a row, its state, when it last changed (at most `max`). */
export function listColumns(resource: ResourceModel, max = 5): string[] {
  const props = resource.schema.properties ?? {};
  const usable = (name: string) => {
    const s = props[name];
    if (!s || s.writeOnly) return false;
    const types = schemaTypes(nonNull(s));
    if (types.includes('object') || types.includes('array')) return false;
    return !((nonNull(s).maxLength ?? 0) > 1024);
  };
  const out: string[] = [];
  const add = (name: string) => {
    if (out.length < max && usable(name) && !out.includes(name)) out.push(name);
  };
  NAMING.forEach(add);
  if (out.length === 0) add('id');
  add('url_key');
  Object.keys(props).filter((n) => STATUS.test(n)).forEach(add);
  const time = TIMES.find((t) => props[t]);
  if (time) add(time);
  return out;
}

/** List screen state in the URL: filter controls, order, page. */
export interface ListSearch {
  filter?: FilterState;
  order_by?: string;
  page_token?: string;
  page_size?: number;
  /** Tokens of the pages before this one, so Previous works from a shared link too. */
  back?: string[];
}

export const PAGE_SIZES = [10, 25, 50, 100] as const;

/** Keeps only what a list screen understands (TanStack Router `validateSearch`). */
export function validateListSearch(raw: Record<string, unknown>): ListSearch {
  const out: ListSearch = {};
  if (raw.filter && typeof raw.filter === 'object' && !Array.isArray(raw.filter)) {
    const entries = Object.entries(raw.filter as Record<string, unknown>).filter(([, v]) => typeof v === 'string' && v !== '');
    if (entries.length) out.filter = Object.fromEntries(entries) as FilterState;
  }
  if (typeof raw.order_by === 'string' && raw.order_by) out.order_by = raw.order_by;
  if (typeof raw.page_token === 'string' && raw.page_token) out.page_token = raw.page_token;
  const size = Number(raw.page_size);
  if (PAGE_SIZES.includes(size as (typeof PAGE_SIZES)[number])) out.page_size = size;
  if (Array.isArray(raw.back)) out.back = raw.back.filter((t): t is string => typeof t === 'string');
  return out;
}

/** The List query for a screen's state: only declared sort keys are sent. */
export function listQuery(resource: ResourceModel, search: ListSearch): Record<string, string | number> {
  const query: Record<string, string | number> = {};
  const filter = buildFilter(filterControls(resource), search.filter ?? {});
  if (filter) query.filter = filter;
  const sortable = new Set(resource.declaration?.sortable ?? []);
  const keys = parseOrderBy(search.order_by).filter((k) => sortable.has(k.field));
  if (keys.length) query.order_by = formatOrderBy(keys);
  if (search.page_token) query.page_token = search.page_token;
  query.page_size = search.page_size ?? 25;
  return query;
}

/** Clicking a sortable column: first ascending, then descending, then back to the default order. */
export function toggleOrder(current: string | undefined, field: string): string | undefined {
  const [first] = parseOrderBy(current);
  if (!first || first.field !== field) return formatOrderBy([{ field, desc: false }]);
  if (!first.desc) return formatOrderBy([{ field, desc: true }]);
  return undefined;
}

export type { OrderKey };
