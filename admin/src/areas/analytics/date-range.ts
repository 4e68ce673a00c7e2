/**
 * The dashboard's period and comparison controls → `analytics:query` fields (pure;
 * test/admin-unit/). Ranges are local dates of the website's time zone, as the API reads them:
 * presets go as they are (the server resolves them against its own clock in that zone), a custom
 * range as `start_date`/`end_date`, and "today" for the picker is today in the site's zone, not the
 * browser's.
 */
export const PRESETS = ['today', 'yesterday', '7d', '30d', 'month', 'last_month', '12mo'] as const;
export type Preset = (typeof PRESETS)[number];
export type RangeName = Preset | 'custom';
export const COMPARES = ['previous_period', 'year_over_year'] as const;
export type Compare = (typeof COMPARES)[number];

export const PRESET_LABELS: Record<RangeName, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  month: 'This month',
  last_month: 'Last month',
  '12mo': 'Last 12 months',
  custom: 'Custom range',
};
export const COMPARE_LABELS: Record<Compare | 'none', string> = {
  none: 'No comparison',
  previous_period: 'Previous period',
  year_over_year: 'Same period last year',
};

/** The controls as they live in the URL (`?range=custom&from=2026-11-01&to=2026-11-07&compare=none`). */
export interface RangeSearch {
  range?: RangeName;
  from?: string;
  to?: string;
  compare?: Compare | 'none';
}

export const MAX_CUSTOM_DAYS = 731;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Today's local date (`YYYY-MM-DD`) in `timeZone` at instant `now`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  // en-CA formats as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/** `YYYY-MM-DD` plus `days` (calendar arithmetic: no time zone involved). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Days from `a` to `b` inclusive. */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000) + 1;
}

/** Parses the URL's values, dropping what is not well formed (a shared link never breaks the screen). */
export function validateRangeSearch(search: Record<string, unknown>): RangeSearch {
  const out: RangeSearch = {};
  if (typeof search.range === 'string' && (search.range === 'custom' || (PRESETS as readonly string[]).includes(search.range))) out.range = search.range as RangeName;
  if (typeof search.from === 'string' && DATE.test(search.from)) out.from = search.from;
  if (typeof search.to === 'string' && DATE.test(search.to)) out.to = search.to;
  if (typeof search.compare === 'string' && (search.compare === 'none' || (COMPARES as readonly string[]).includes(search.compare))) out.compare = search.compare as Compare | 'none';
  return out;
}

export interface RangeQuery {
  date_range: RangeName;
  start_date?: string;
  end_date?: string;
  compare?: Compare;
}

/**
 * The query fields for the controls. A custom range missing a date, reversed, reaching past today
 * in the site's zone or longer than the API allows answers `error` (shown by the picker) and the
 * query fields of the default period, so the widgets keep showing something.
 */
export function rangeQuery(search: RangeSearch, timeZone: string, now: Date = new Date()): { query: RangeQuery; error?: string } {
  const compare = search.compare === 'none' ? undefined : (search.compare ?? 'previous_period');
  const withCompare = (q: RangeQuery): RangeQuery => (compare ? { ...q, compare } : q);
  const range = search.range ?? '30d';
  if (range !== 'custom') return { query: withCompare({ date_range: range }) };
  const fallback = withCompare({ date_range: '30d' });
  const { from, to } = search;
  if (!from || !to) return { query: fallback, error: 'Choose the first and the last day.' };
  if (from > to) return { query: fallback, error: 'The first day must not be after the last day.' };
  const today = todayIn(timeZone, now);
  if (to > today) return { query: fallback, error: `The last day can be today (${today}) at the latest.` };
  if (daysBetween(from, to) > MAX_CUSTOM_DAYS) return { query: fallback, error: `A range covers at most ${MAX_CUSTOM_DAYS} days.` };
  return { query: withCompare({ date_range: 'custom', start_date: from, end_date: to }) };
}

/** A widget's query with the page's period and comparison in place of its own. */
export function applyRange(widgetQuery: Record<string, unknown>, range: RangeQuery, kind: WidgetKind): Record<string, unknown> {
  const { date_range: _r, start_date: _s, end_date: _e, compare: _c, ...rest } = widgetQuery;
  // Breakdown tables show no comparison; totals and time series do.
  const compare = kind === 'table' ? undefined : range.compare;
  return { ...rest, date_range: range.date_range, ...(range.start_date && { start_date: range.start_date, end_date: range.end_date }), ...(compare && { compare }) };
}

export type WidgetKind = 'number' | 'chart' | 'table';

/** How a widget shows its answer: a time series as a chart, a breakdown as a table, totals as numbers. */
export function widgetKind(query: Record<string, unknown> | undefined): WidgetKind {
  if (query?.interval) return 'chart';
  if (Array.isArray(query?.dimensions) && query.dimensions.length > 0) return 'table';
  return 'number';
}

/** Change against the comparison period in percent (one decimal); undefined when there is nothing to compare with. */
export function percentChange(current: number | undefined, previous: number | undefined): number | undefined {
  if (current === undefined || previous === undefined || previous === 0) return undefined;
  return Math.round(((current - previous) / previous) * 1000) / 10;
}
