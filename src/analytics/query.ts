import type { Db } from '../platform/db/schema.js';
import { DateTime } from 'luxon';
import type { SqlDialect } from '../platform/db/database.js';
import { FailedPrecondition, InvalidArgument } from '../platform/errors.js';
import {
  addCounters,
  DIMENSIONS,
  eventCount,
  loadRollupState,
  rawHourRows,
  rollupRows,
  websiteTimeZone,
  HOUR_MS,
  type Dimension,
  type Filter,
  type FilterOperator,
  isEventDimension,
  type HourRow,
} from './analytics.repo.js';
import { SKETCH_RELATIVE_ERROR, VisitorSketch } from './sketches.js';

/** `:query` (docs/architecture.md, "Analytics"): request rules, ranges in the website's zone, execution. */

export const METRICS = ['visitors', 'visits', 'pageviews', 'views_per_visit', 'bounce_rate', 'visit_duration', 'events'] as const;
export type Metric = (typeof METRICS)[number];
/** Metrics counted per visit: a visit must count once in any cell holding several values of page or event_name. */
const VISIT_METRICS: ReadonlySet<Metric> = new Set(['visits', 'views_per_visit', 'bounce_rate', 'visit_duration']);
export const DATE_RANGES = ['today', 'yesterday', '7d', '30d', 'month', 'last_month', '12mo', 'custom'] as const;
export const INTERVALS = ['hour', 'day', 'week', 'month'] as const;
export const OPERATORS: readonly FilterOperator[] = ['IS', 'IS_NOT', 'CONTAINS'];
export const COMPARES = ['previous_period', 'year_over_year'] as const;
/** Longest custom range (two years and a day). */
export const MAX_RANGE_DAYS = 731;
/** Longest range with hourly buckets (at most 31 × 25 rows). */
export const MAX_HOURLY_DAYS = 31;
/**
 * Up to this many raw events in a retained range, visitors are counted exactly from raw rows;
 * above it (or where raw rows were purged) hourly sketches are merged (`approximate`).
 */
export const EXACT_VISITORS_MAX_EVENTS = 20_000;
const MAX_LIMIT = 1000;
const MAX_FILTERS = 10;
const MAX_FILTER_VALUES = 20;

export interface AnalyticsQuery {
  metrics: Metric[];
  date_range: (typeof DATE_RANGES)[number];
  start_date?: string;
  end_date?: string;
  interval?: (typeof INTERVALS)[number];
  dimensions?: Dimension[];
  filters?: Filter[];
  compare?: (typeof COMPARES)[number];
  order_by?: string;
  limit?: number;
}

/** JSON Schema of the request body (validated by the engine; rules between fields in `checkQuery`). */
export const QUERY_BODY_SCHEMA = {
  type: 'object',
  required: ['metrics'],
  properties: {
    metrics: { type: 'array', minItems: 1, maxItems: METRICS.length, items: { type: 'string', enum: METRICS }, description: 'Metrics to answer, each once.' },
    date_range: { type: 'string', enum: DATE_RANGES, default: '30d', description: 'Range in the website’s time zone: today, yesterday, the last 7 or 30 days including today, this month, last month, the last 12 months including this one, or custom.' },
    start_date: { type: 'string', maxLength: 10, pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'First local date (`custom` only), inclusive.' },
    end_date: { type: 'string', maxLength: 10, pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: `Last local date (\`custom\` only), inclusive; at most ${MAX_RANGE_DAYS} days after start_date.` },
    interval: { type: 'string', enum: INTERVALS, description: `Answer a time series with one row per local hour, day, ISO week (from Monday) or month; \`hour\` for ranges up to ${MAX_HOURLY_DAYS} days.` },
    dimensions: { type: 'array', minItems: 1, maxItems: 1, items: { type: 'string', enum: DIMENSIONS }, description: 'Break the answer down by one dimension (one row per value).' },
    filters: {
      type: 'array',
      maxItems: MAX_FILTERS,
      description: 'Conditions, all of which must hold.',
      items: {
        type: 'object',
        required: ['dimension', 'operator', 'values'],
        additionalProperties: false,
        properties: {
          dimension: { type: 'string', enum: DIMENSIONS, description: 'Dimension compared.' },
          operator: { type: 'string', enum: OPERATORS, description: 'IS: equals one of the values; IS_NOT: equals none (a missing value matches); CONTAINS: contains one of them, ignoring case.' },
          values: { type: 'array', minItems: 1, maxItems: MAX_FILTER_VALUES, items: { type: 'string', minLength: 1, maxLength: 2000 }, description: 'Values compared.' },
        },
      },
    },
    compare: { type: 'string', enum: COMPARES, description: 'Also answer the previous period of the same length (whole months for month ranges) or the same dates a year earlier.' },
    order_by: { type: 'string', maxLength: 100, description: 'Breakdowns: a requested metric or the dimension, then `asc` or `desc` (default: the first metric, descending).' },
    limit: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_LIMIT, default: 100, description: `Breakdown rows, 1..${MAX_LIMIT}.` },
  },
} as const;

const hourlyTooLong = () => InvalidArgument.field('interval', `hour is for ranges up to ${MAX_HOURLY_DAYS} days; ask for day, week or month`);

/**
 * The rules between fields of a `:query` body already valid against QUERY_BODY_SCHEMA; throws
 * INVALID_ARGUMENT naming the field. Pure (no website, no clock): the dashboard checks its
 * widgets' resolved queries with it too.
 */
export function checkQuery(input: Readonly<Record<string, unknown>>): AnalyticsQuery {
  // Valid against QUERY_BODY_SCHEMA (the engine's validation of `:query`, the dashboard's of its widgets): each field has its type.
  const body = input as Partial<AnalyticsQuery>;
  const query: AnalyticsQuery = { ...body, date_range: body.date_range ?? '30d', metrics: body.metrics ?? [] };
  query.metrics.forEach((metric, i) => {
    if (query.metrics.indexOf(metric) !== i) throw InvalidArgument.field(`metrics[${i}]`, `${metric} is asked twice`);
  });
  if (query.date_range !== 'custom') {
    if (body.start_date !== undefined) throw InvalidArgument.field('start_date', 'only with date_range custom');
    if (body.end_date !== undefined) throw InvalidArgument.field('end_date', 'only with date_range custom');
  } else {
    const dates: Record<'start_date' | 'end_date', string> = { start_date: '', end_date: '' };
    for (const field of ['start_date', 'end_date'] as const) {
      const date = body[field];
      if (date === undefined) throw InvalidArgument.field(field, 'required with date_range custom');
      if (!DateTime.fromISO(date, { zone: 'UTC' }).isValid) throw InvalidArgument.field(field, `${date} is not a calendar date`);
      dates[field] = date;
    }
    const days = DateTime.fromISO(dates.end_date, { zone: 'UTC' }).diff(DateTime.fromISO(dates.start_date, { zone: 'UTC' }), 'days').days;
    if (days < 0) throw InvalidArgument.field('end_date', 'must not be before start_date');
    if (days + 1 > MAX_RANGE_DAYS) throw InvalidArgument.field('end_date', `the range is unbounded: at most ${MAX_RANGE_DAYS} days`);
    if (query.interval === 'hour' && days + 1 > MAX_HOURLY_DAYS) throw hourlyTooLong();
  }
  // Of the named ranges only 12mo is longer than MAX_HOURLY_DAYS (30d and a month are at most 31 local days).
  if (query.interval === 'hour' && query.date_range === '12mo') throw hourlyTooLong();
  if (query.dimensions && query.interval) throw InvalidArgument.field('interval', 'a breakdown (dimensions) answers one row per value: ask for either');
  if (!query.dimensions && body.order_by !== undefined) throw InvalidArgument.field('order_by', 'only with dimensions');
  if (!query.dimensions && body.limit !== undefined) throw InvalidArgument.field('limit', 'only with dimensions');
  if (query.dimensions) {
    const order = (body.order_by ?? `${query.metrics[0]} desc`).trim().split(/\s+/);
    const [key, direction = 'asc'] = order;
    if (order.length > 2 || !['asc', 'desc'].includes(direction) || !(key === query.dimensions[0] || (query.metrics as string[]).includes(key))) {
      throw InvalidArgument.field('order_by', 'a requested metric or the dimension, optionally followed by asc or desc');
    }
    query.order_by = `${key} ${direction}`;
    query.limit = body.limit ?? 100;
  }
  return query;
}

export interface ResolvedRange {
  start_date: string;
  end_date: string;
  /** Instants: start inclusive, end exclusive (the local midnight after end_date). */
  start: DateTime;
  end: DateTime;
}

/** The local dates of a named range, as `now` is in `zone`. */
export function resolveRange(query: AnalyticsQuery, zone: string, now: number): ResolvedRange {
  const today = DateTime.fromMillis(now, { zone }).startOf('day');
  const month = today.startOf('month');
  const days = (first: DateTime, last: DateTime) => ({ first, last });
  const { first, last } = (() => {
    switch (query.date_range) {
      case 'today':
        return days(today, today);
      case 'yesterday':
        return days(today.minus({ days: 1 }), today.minus({ days: 1 }));
      case '7d':
        return days(today.minus({ days: 6 }), today);
      case '30d':
        return days(today.minus({ days: 29 }), today);
      case 'month':
        return days(month, month.endOf('month').startOf('day'));
      case 'last_month':
        return days(month.minus({ months: 1 }), month.minus({ days: 1 }));
      case '12mo':
        return days(month.minus({ months: 11 }), month.endOf('month').startOf('day'));
      case 'custom':
        return days(DateTime.fromISO(query.start_date!, { zone }), DateTime.fromISO(query.end_date!, { zone }));
    }
  })();
  return rangeOf(first, last);
}

function rangeOf(first: DateTime, last: DateTime): ResolvedRange {
  // Local midnights converted to instants: a 23- or 25-hour day is one day.
  return { start_date: first.toISODate()!, end_date: last.toISODate()!, start: first.startOf('day'), end: last.plus({ days: 1 }).startOf('day') };
}

/** The compared period: the previous one of the same length (whole months for month-aligned ranges), or a year earlier. */
export function comparedRange(query: AnalyticsQuery, range: ResolvedRange): ResolvedRange {
  const first = range.start;
  const last = range.end.minus({ days: 1 });
  if (query.compare === 'year_over_year') return rangeOf(first.minus({ years: 1 }), last.minus({ years: 1 }));
  const monthAligned = first.day === 1 && range.end.day === 1;
  if (monthAligned) {
    const months = Math.round(range.end.diff(first, 'months').months);
    return rangeOf(first.minus({ months }), first.minus({ days: 1 }));
  }
  const days = Math.round(range.end.diff(first, 'days').days);
  return rangeOf(first.minus({ days }), first.minus({ days: 1 }));
}

/** Local starts of the time-series buckets (instants), clipped to the range. */
export function bucketStarts(range: ResolvedRange, interval: NonNullable<AnalyticsQuery['interval']>): DateTime[] {
  const starts: DateTime[] = [];
  if (interval === 'hour') {
    // Instants an hour apart: a DST day has 23 or 25 of them.
    for (let t = range.start.toMillis(); t < range.end.toMillis(); t += HOUR_MS) starts.push(DateTime.fromMillis(t, { zone: range.start.zone }));
    return starts;
  }
  const unit = interval === 'day' ? 'day' : interval === 'week' ? 'week' : 'month';
  for (let t = range.start; t < range.end; t = t.startOf(unit).plus({ [`${unit}s`]: 1 }).startOf(unit)) starts.push(t);
  return starts;
}

/** A combined cell: counters and visitors of one bucket, one value or the totals. */
interface Cell {
  visits: number;
  pageviews: number;
  bounces: number;
  duration_sum: number;
  events: number;
  rows: number;
  /** Visitors of the one row, when the cell holds one: exact for an hour, maybe estimated for a day. */
  hourVisitors: number;
  hourVisitorsApproximate: boolean;
  sketch: VisitorSketch;
}

/**
 * A cell about to receive rows whose hourly visitor counts sum to `expected`: past the exact limit
 * its union starts dense (merging hundreds of thousands of hashes through an exact set first is what
 * a 12-month series would otherwise spend its time on); below it the union is exact.
 */
function newCell(limit: number, expected = 0): Cell {
  const sketch = new VisitorSketch(limit);
  if (expected > limit) sketch.densify();
  return { visits: 0, pageviews: 0, bounces: 0, duration_sum: 0, events: 0, rows: 0, hourVisitors: 0, hourVisitorsApproximate: false, sketch };
}

function addRow(cell: Cell, row: HourRow): void {
  addCounters(cell, row);
  cell.rows += 1;
  cell.hourVisitors = row.visitors;
  cell.hourVisitorsApproximate = row.approximateVisitors === true;
  if (row.sketch) cell.sketch.merge(row.sketch);
  else cell.sketch.mergeBytes(row.sketchBytes!);
}

function addCell(into: Cell, cell: Cell): void {
  addCounters(into, cell);
  if (cell.rows === 1) {
    into.hourVisitors = cell.hourVisitors;
    into.hourVisitorsApproximate = cell.hourVisitorsApproximate;
  }
  into.rows += cell.rows;
  into.sketch.merge(cell.sketch);
}

/** The metric values of a cell; `approximate` when its visitors came from a merged dense sketch. */
function metricsOf(cell: Cell, metrics: readonly Metric[]): { values: Record<string, number>; approximate: boolean } {
  const values: Record<string, number> = {};
  let approximate = false;
  for (const metric of metrics) {
    switch (metric) {
      case 'visitors':
        if (cell.rows === 1) {
          values.visitors = cell.hourVisitors;
          approximate = cell.hourVisitorsApproximate;
        } else {
          values.visitors = cell.sketch.count();
          approximate = cell.sketch.approximate;
        }
        break;
      case 'visits':
        values.visits = cell.visits;
        break;
      case 'pageviews':
        values.pageviews = cell.pageviews;
        break;
      case 'events':
        values.events = cell.events;
        break;
      case 'views_per_visit':
        values.views_per_visit = cell.visits ? Math.round((cell.pageviews / cell.visits) * 100) / 100 : 0;
        break;
      case 'bounce_rate':
        values.bounce_rate = cell.visits ? Math.round((cell.bounces / cell.visits) * 1000) / 10 : 0;
        break;
      case 'visit_duration':
        values.visit_duration = cell.visits ? Math.round(cell.duration_sum / cell.visits / 1000) : 0;
        break;
    }
  }
  return { values, approximate };
}

/** Does a row's value pass a filter (the same rule as the raw SQL, on the value a roll-up keeps; '' is a missing value)? */
function passes(filter: Filter, value: string): boolean {
  if (filter.operator === 'IS') return filter.values.includes(value);
  if (filter.operator === 'IS_NOT') return !filter.values.includes(value);
  const lower = value.toLowerCase();
  return value !== '' && filter.values.some((v) => lower.includes(v.toLowerCase()));
}

interface PeriodAnswer {
  start_date: string;
  end_date: string;
  start_time: string;
  end_time: string;
  rows: Array<Record<string, unknown>>;
  totals: Record<string, number>;
  approximate: boolean;
}

export interface QueryDeps {
  db: Db;
  dialect: SqlDialect;
}

/** Answers `:query` for a website (its existence and the caller's right were checked by the route). */
export async function runQuery(deps: QueryDeps, websiteId: string, body: Readonly<Record<string, unknown>>, now: number): Promise<Record<string, unknown>> {
  const query = checkQuery(body);
  const zone = await websiteTimeZone(deps.db, websiteId);
  const range = resolveRange(query, zone, now);
  const state = await loadRollupState(deps.db, deps.dialect, websiteId);
  const main = await answerPeriod(deps, websiteId, query, range, zone, state);
  const answer: Record<string, unknown> = {
    start_date: main.start_date,
    end_date: main.end_date,
    time_zone: zone,
    start_time: main.start_time,
    end_time: main.end_time,
    ...(query.interval ? { interval: query.interval } : {}),
    ...(query.dimensions ? { dimensions: query.dimensions } : {}),
    metrics: query.metrics,
    rows: main.rows,
    totals: main.totals,
  };
  let approximate = main.approximate;
  if (query.compare) {
    const compared = await answerPeriod(deps, websiteId, query, comparedRange(query, range), zone, state);
    approximate ||= compared.approximate;
    answer.comparison = { compare: query.compare, start_date: compared.start_date, end_date: compared.end_date, start_time: compared.start_time, end_time: compared.end_time, rows: compared.rows, totals: compared.totals };
  }
  answer.approximate = approximate;
  answer.approximate_metrics = approximate ? ['visitors'] : [];
  answer.sketch_relative_error = SKETCH_RELATIVE_ERROR;
  return answer;
}

async function answerPeriod(
  deps: QueryDeps,
  websiteId: string,
  query: AnalyticsQuery,
  range: ResolvedRange,
  zone: string,
  state: Awaited<ReturnType<typeof loadRollupState>>,
): Promise<PeriodAnswer> {
  const span = { from: range.start.toMillis(), to: range.end.toMillis() };
  const filters = query.filters ?? [];
  const breakdown = query.dimensions?.[0];
  // The one dimension whose hourly rows answer the query: the breakdown, else the filters' (when they share one).
  const filterDimensions = [...new Set(filters.map((f) => f.dimension))];
  const keyDimension = breakdown ?? (filterDimensions.length === 1 ? filterDimensions[0] : undefined);
  const fromRollups = filterDimensions.every((d) => d === keyDimension);
  const rolledUntil = state?.rolledUpUntil ?? span.from;
  const rawRetained = state?.purgedBefore == null || span.from >= state.purgedBefore;
  // A row of page or event_name holds a visit under each value it touched: summing such rows (a
  // filter on them without a breakdown by them) would count a visit once per value, so visit
  // counters of such cells come from raw visits matched by the filter (docs/decisions.md).
  const countsVisits = query.metrics.some((m) => VISIT_METRICS.has(m));
  const visitsOnce = !breakdown && countsVisits && filters.some((f) => isEventDimension(f.dimension));
  const exact = rawRetained && (await eventCount(deps.db, websiteId, span, rolledUntil)) <= EXACT_VISITORS_MAX_EVENTS;
  const limit = exact ? Infinity : undefined;

  let rows: HourRow[];
  if (!fromRollups || visitsOnce) {
    // Dimensions combined, or visits of an event filter: only raw rows hold them together.
    if (!rawRetained) {
      throw new FailedPrecondition(
        'RAW_EVENTS_PURGED',
        fromRollups
          ? 'visits, views_per_visit, bounce_rate and visit_duration filtered by page or event_name are counted from raw events (a visit may touch several values), which are kept analytics.raw_retention_days days; narrow the range or ask for visitors, pageviews or events'
          : 'filters or a breakdown over different dimensions are answered from raw events, which are kept analytics.raw_retention_days days; narrow the range or use one dimension',
      );
    }
    rows = await rawHourRows(deps.db, deps.dialect, websiteId, span, breakdown ?? '', filters, limit);
  } else {
    const dimension = keyDimension ?? '';
    if (exact) rows = await rawHourRows(deps.db, deps.dialect, websiteId, span, dimension, [], Infinity);
    else {
      const split = Math.max(span.from, Math.min(span.to, rolledUntil));
      // Whole local days merged in this zone come from daily rows (a range starts at a local midnight); never for hourly buckets.
      const daily = query.interval !== 'hour' && state?.dailyTimeZone === zone && state.dailyUntil != null;
      const daysUntil = daily ? Math.max(span.from, Math.min(split, DateTime.fromMillis(state.dailyUntil!, { zone }).startOf('day').toMillis())) : span.from;
      const only = filters.length === 1 && filters[0].operator === 'IS' ? filters[0].values : undefined;
      rows = [
        ...(daysUntil > span.from ? await rollupRows(deps.db, websiteId, dimension, { from: span.from, to: daysUntil }, only, 'day') : []),
        ...(split > daysUntil ? await rollupRows(deps.db, websiteId, dimension, { from: daysUntil, to: split }, only) : []),
        ...(split < span.to ? await rawHourRows(deps.db, deps.dialect, websiteId, { from: split, to: span.to }, dimension) : []),
      ];
    }
    rows = rows.filter((row) => filters.every((f) => passes(f, row.value)));
  }

  const sketchLimit = exact ? Infinity : undefined;
  const totals = newCell(sketchLimit ?? 512, rows.reduce((sum, row) => sum + row.visitors, 0));
  const out: Array<Record<string, unknown>> = [];
  let approximate = false;
  if (breakdown) {
    const expected = new Map<string, number>();
    for (const row of rows) expected.set(row.value, (expected.get(row.value) ?? 0) + row.visitors);
    const cells = new Map<string, Cell>();
    for (const row of rows) {
      let cell = cells.get(row.value);
      if (!cell) cells.set(row.value, (cell = newCell(sketchLimit ?? 512, expected.get(row.value))));
      addRow(cell, row);
    }
    for (const cell of cells.values()) addCell(totals, cell);
    const [key, direction] = query.order_by!.split(' ');
    const ranked = [...cells.entries()].map(([value, cell]) => ({ value, ...metricsOf(cell, query.metrics) }));
    const sign = direction === 'desc' ? -1 : 1;
    ranked.sort((a, b) => {
      const byKey = key === breakdown ? (a.value < b.value ? -1 : a.value > b.value ? 1 : 0) : a.values[key] - b.values[key];
      return sign * byKey || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
    });
    for (const r of ranked.slice(0, query.limit)) {
      approximate ||= r.approximate;
      out.push({ dimensions: { [breakdown]: r.value === '' ? null : r.value }, metrics: r.values });
    }
  } else if (query.interval) {
    const starts = bucketStarts(range, query.interval);
    const edges = starts.map((s) => s.toMillis());
    const indexes = rows.map((row) => bucketIndex(edges, row.hour));
    const expected = starts.map(() => 0);
    rows.forEach((row, i) => {
      if (indexes[i] >= 0) expected[indexes[i]] += row.visitors;
    });
    const cells = starts.map((_, i) => newCell(sketchLimit ?? 512, expected[i]));
    rows.forEach((row, i) => {
      if (indexes[i] >= 0) addRow(cells[indexes[i]], row);
    });
    // The totals are the union of the buckets (each row merged once, not twice).
    for (const cell of cells) addCell(totals, cell);
    starts.forEach((start, i) => {
      const m = metricsOf(cells[i], query.metrics);
      approximate ||= m.approximate;
      out.push({ start_time: start.toFormat("yyyy-MM-dd'T'HH:mm:ssZZ"), metrics: m.values });
    });
  } else {
    for (const row of rows) addRow(totals, row);
  }
  let total = metricsOf(totals, query.metrics);
  if (breakdown && isEventDimension(breakdown)) {
    // Totals count each visit once: the same query without the breakdown (its rows hold a visit under every value it touched).
    const whole = await answerPeriod(deps, websiteId, { ...query, dimensions: undefined, order_by: undefined, limit: undefined }, range, zone, state);
    total = { values: whole.totals, approximate: whole.approximate };
  }
  return {
    start_date: range.start_date,
    end_date: range.end_date,
    start_time: range.start.toUTC().toISO({ suppressMilliseconds: true })!,
    end_time: range.end.toUTC().toISO({ suppressMilliseconds: true })!,
    rows: out,
    totals: total.values,
    approximate: approximate || total.approximate,
  };
}

/** The bucket holding `hour` (the last edge at or before it), or -1 before the first. */
function bucketIndex(edges: number[], hour: number): number {
  let lo = 0;
  let hi = edges.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (edges[mid] <= hour) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
