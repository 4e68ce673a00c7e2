import { sql, type Expression, type Selectable, type SqlBool } from 'kysely';
import type { Db, DB, Trx } from '../platform/db/schema.js';
import type { SqlDialect } from '../platform/db/database.js';
import { readWebsiteSetting } from '../settings/index.js';
import { siteWebsiteRow } from '../websites/index.js';
import { isDenseSketch, VisitorSketch } from './sketches.js';

/** SQL of analytics queries and roll-ups. Every statement is scoped by `website_id` first. */

export const HOUR_MS = 3_600_000;

/** Dimensions of a visit (its first event's values), by the column of `analytics_sessions` holding them. */
export const VISIT_DIMENSION_COLUMNS = {
  entry_page: 'entry_page',
  exit_page: 'exit_page',
  source: 'referrer_source',
  utm_source: 'utm_source',
  utm_medium: 'utm_medium',
  utm_campaign: 'utm_campaign',
  utm_term: 'utm_term',
  utm_content: 'utm_content',
  device: 'device',
  browser: 'browser',
  os: 'os',
  view: 'view_id',
} as const;
/** Dimensions of an event, by the column of `analytics_events`. */
export const EVENT_DIMENSION_COLUMNS = { page: 'path', event_name: 'name' } as const;
export type VisitDimension = keyof typeof VISIT_DIMENSION_COLUMNS;
export type EventDimension = keyof typeof EVENT_DIMENSION_COLUMNS;
export type Dimension = VisitDimension | EventDimension;
export const DIMENSIONS = [...Object.keys(EVENT_DIMENSION_COLUMNS), ...Object.keys(VISIT_DIMENSION_COLUMNS)] as Dimension[];
export const isEventDimension = (d: string): d is EventDimension => d in EVENT_DIMENSION_COLUMNS;

export type FilterOperator = 'IS' | 'IS_NOT' | 'CONTAINS';
export interface Filter {
  dimension: Dimension;
  operator: FilterOperator;
  values: string[];
}

/**
 * One hour of one dimension value: the additive counters plus the visitor set. `value` is '' for
 * the totals (dimension '') and for a missing value (direct traffic has no source).
 */
export interface HourRow {
  hour: number;
  value: string;
  /** Exact distinct visitors of this hour and value. */
  visitors: number;
  visits: number;
  pageviews: number;
  bounces: number;
  /** Milliseconds. */
  duration_sum: number;
  events: number;
  /** True on a daily row whose `visitors` is the estimate of a merged HyperLogLog. */
  approximateVisitors?: boolean;
  /** Live rows carry the set; stored rows its bytes. */
  sketch?: VisitorSketch;
  sketchBytes?: Uint8Array;
}

/** The additive counters of a roll-up row or cell. */
export type Counters = Pick<HourRow, 'visits' | 'pageviews' | 'bounces' | 'duration_sum' | 'events'>;

/** Adds `from`'s counters to `into` (rows merged into a day, a bucket or the totals). */
export function addCounters(into: Counters, from: Counters): void {
  into.visits += from.visits;
  into.pageviews += from.pageviews;
  into.bounces += from.bounces;
  into.duration_sum += from.duration_sum;
  into.events += from.events;
}

const hourOf = (column: string) => sql<number>`(${sql.ref(column)} - ${sql.ref(column)} % ${sql.lit(HOUR_MS)})`;

/** A filter as SQL over raw rows: visit dimensions on the visit (`s`), event dimensions on an event (`alias`). */
function filterSql(dialect: SqlDialect, filter: Filter, eventAlias: string): Expression<SqlBool> {
  const column = isEventDimension(filter.dimension) ? `${eventAlias}.${EVENT_DIMENSION_COLUMNS[filter.dimension]}` : `s.${VISIT_DIMENSION_COLUMNS[filter.dimension]}`;
  const ref = sql.ref(column);
  if (filter.operator === 'IS') return sql<SqlBool>`${ref} in (${sql.join(filter.values)})`;
  if (filter.operator === 'IS_NOT') return sql<SqlBool>`(${ref} is null or ${ref} not in (${sql.join(filter.values)}))`;
  return sql<SqlBool>`(${sql.join(filter.values.map((v) => dialect.containsText(undefined, column, v)), sql` or `)})`;
}

/**
 * Hourly rows of raw events and visits in [from, to), by `dimension` ('' = totals), narrowed by
 * `filters` (raw SQL; used when a query combines dimensions the roll-ups keep apart). The roll-up
 * job stores exactly these rows; `:query` computes them live for hours not rolled up yet.
 * `sketchLimit`: largest exact visitor set per row (Infinity: exact whatever the size).
 *
 * Semantics: pageviews and custom events count in the hour of the event; `visits`, `bounces` and
 * `duration_sum` in the hour the visit started (totals and visit dimensions), or, by page and
 * event name, once per visit and hour with such an event.
 */
export async function rawHourRows(
  db: Db | Trx,
  dialect: SqlDialect,
  websiteId: string,
  range: { from: number; to: number },
  dimension: Dimension | '',
  filters: readonly Filter[] = [],
  sketchLimit?: number,
): Promise<HourRow[]> {
  const visitFilters = filters.filter((f) => !isEventDimension(f.dimension));
  const eventFilters = filters.filter((f) => isEventDimension(f.dimension));
  const visitDimension = dimension !== '' && !isEventDimension(dimension);
  const valueOfEvent =
    dimension === '' ? sql<string>`''` : isEventDimension(dimension) ? sql.ref(`e.${EVENT_DIMENSION_COLUMNS[dimension]}`) : sql<string>`coalesce(${sql.ref(`s.${VISIT_DIMENSION_COLUMNS[dimension]}`)}, '')`;
  const joinVisit = visitDimension || visitFilters.length > 0;

  // Events: pageviews, custom events and the visitors, per (hour, value, visitor).
  let events = db
    .selectFrom('analytics_events as e')
    .select([
      hourOf('e.time').as('hour'),
      valueOfEvent.as('value'),
      'e.visitor_id',
      sql<number>`sum(case when e.name = 'pageview' then 1 else 0 end)`.as('pageviews'),
      sql<number>`sum(case when e.name <> 'pageview' then 1 else 0 end)`.as('events'),
    ])
    .where('e.website_id', '=', websiteId)
    .where('e.time', '>=', range.from)
    .where('e.time', '<', range.to);
  if (joinVisit) events = events.innerJoin('analytics_sessions as s', (j) => j.onRef('s.website_id', '=', 'e.website_id').onRef('s.id', '=', 'e.session_id'));
  for (const f of filters) events = events.where(filterSql(dialect, f, 'e'));
  const eventRows = await events.groupBy([sql`1`, sql`2`, 'e.visitor_id']).execute();

  // Visits: by their start hour (totals, visit dimensions), or once per visit and hour with an event of the value.
  let visitRows: Array<{ hour: number; value: string; visits: number; bounces: number; duration_sum: number }>;
  const visitCounters = [
    sql<number>`count(*)`.as('visits'),
    sql<number>`sum(case when s.pageviews = 1 and s.events = 0 then 1 else 0 end)`.as('bounces'),
    sql<number>`sum(s.end_time - s.start_time)`.as('duration_sum'),
  ];
  if (dimension !== '' && isEventDimension(dimension)) {
    let touched = db
      .selectFrom('analytics_events as e')
      .select([hourOf('e.time').as('hour'), sql.ref(`e.${EVENT_DIMENSION_COLUMNS[dimension]}`).as('value'), 'e.session_id'])
      .distinct()
      .where('e.website_id', '=', websiteId)
      .where('e.time', '>=', range.from)
      .where('e.time', '<', range.to);
    for (const f of eventFilters) touched = touched.where(filterSql(dialect, f, 'e'));
    let visits = db
      .selectFrom(touched.as('t'))
      .innerJoin('analytics_sessions as s', (j) => j.on('s.website_id', '=', websiteId).onRef('s.id', '=', 't.session_id'))
      .select(['t.hour', 't.value', ...visitCounters]);
    for (const f of visitFilters) visits = visits.where(filterSql(dialect, f, 'e'));
    visitRows = (await visits.groupBy(['t.hour', 't.value']).execute()) as typeof visitRows;
  } else {
    const valueOfVisit = dimension === '' ? sql<string>`''` : sql<string>`coalesce(${sql.ref(`s.${VISIT_DIMENSION_COLUMNS[dimension]}`)}, '')`;
    let visits = db
      .selectFrom('analytics_sessions as s')
      .select([hourOf('s.start_time').as('hour'), valueOfVisit.as('value'), ...visitCounters])
      .where('s.website_id', '=', websiteId)
      .where('s.start_time', '>=', range.from)
      .where('s.start_time', '<', range.to);
    for (const f of visitFilters) visits = visits.where(filterSql(dialect, f, 'e'));
    for (const f of eventFilters) {
      // A visit matches an event filter when one of its events does (its pageview of the page).
      visits = visits.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('analytics_events as f')
            .select(sql`1`.as('one'))
            .where('f.website_id', '=', websiteId)
            .whereRef('f.session_id', '=', 's.id')
            .where(filterSql(dialect, f, 'f')),
        ),
      );
    }
    visitRows = (await visits.groupBy([sql`1`, sql`2`]).execute()) as typeof visitRows;
  }

  const rows = new Map<string, HourRow>();
  const rowOf = (hour: number, value: string): HourRow => {
    const key = `${hour}\u0000${value}`;
    let row = rows.get(key);
    if (!row) {
      row = { hour, value, visitors: 0, visits: 0, pageviews: 0, bounces: 0, duration_sum: 0, events: 0, sketch: new VisitorSketch(sketchLimit) };
      rows.set(key, row);
    }
    return row;
  };
  for (const r of eventRows) {
    const row = rowOf(Number(r.hour), String(r.value ?? ''));
    row.visitors += 1;
    row.pageviews += Number(r.pageviews);
    row.events += Number(r.events);
    row.sketch!.addVisitorId(r.visitor_id);
  }
  for (const r of visitRows) {
    const row = rowOf(Number(r.hour), String(r.value ?? ''));
    row.visits += Number(r.visits);
    row.bounces += Number(r.bounces);
    row.duration_sum += Number(r.duration_sum);
  }
  return [...rows.values()].sort((a, b) => a.hour - b.hour || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}

/**
 * `rawHourRows` of every visit dimension at once, for the roll-up: one events ⋈ visits statement and
 * one visits statement grouped by all visit columns, split per dimension here. Same rows as
 * `rawHourRows(…, dimension)` for each (the roll-up test compares them through `:query`), at a
 * twelfth of the statements.
 */
export async function rawHourRowsOfVisitDimensions(db: Db | Trx, websiteId: string, range: { from: number; to: number }): Promise<Map<VisitDimension, HourRow[]>> {
  const dims = Object.keys(VISIT_DIMENSION_COLUMNS) as VisitDimension[];
  const columns = dims.map((d) => sql<string>`coalesce(${sql.ref(`s.${VISIT_DIMENSION_COLUMNS[d]}`)}, '')`.as(d));
  const groupBy = dims.map((_, i) => sql.raw(String(i + 2)));
  const eventRows = (await db
    .selectFrom('analytics_events as e')
    .innerJoin('analytics_sessions as s', (j) => j.onRef('s.website_id', '=', 'e.website_id').onRef('s.id', '=', 'e.session_id'))
    .select([
      hourOf('e.time').as('hour'),
      ...columns,
      'e.visitor_id',
      sql<number>`sum(case when e.name = 'pageview' then 1 else 0 end)`.as('pageviews'),
      sql<number>`sum(case when e.name <> 'pageview' then 1 else 0 end)`.as('events'),
    ])
    .where('e.website_id', '=', websiteId)
    .where('e.time', '>=', range.from)
    .where('e.time', '<', range.to)
    .groupBy([sql`1`, ...groupBy, 'e.visitor_id'])
    .execute());
  const visitRows = (await db
    .selectFrom('analytics_sessions as s')
    .select([
      hourOf('s.start_time').as('hour'),
      ...columns,
      sql<number>`count(*)`.as('visits'),
      sql<number>`sum(case when s.pageviews = 1 and s.events = 0 then 1 else 0 end)`.as('bounces'),
      sql<number>`sum(s.end_time - s.start_time)`.as('duration_sum'),
    ])
    .where('s.website_id', '=', websiteId)
    .where('s.start_time', '>=', range.from)
    .where('s.start_time', '<', range.to)
    .groupBy([sql`1`, ...groupBy])
    .execute());

  const result = new Map<VisitDimension, HourRow[]>();
  for (const dim of dims) {
    const rows = new Map<string, HourRow & { ids: Set<string> }>();
    const rowOf = (hour: number, value: string) => {
      const key = `${hour}\u0000${value}`;
      let row = rows.get(key);
      if (!row) rows.set(key, (row = { hour, value, visitors: 0, visits: 0, pageviews: 0, bounces: 0, duration_sum: 0, events: 0, sketch: new VisitorSketch(), ids: new Set() }));
      return row;
    };
    for (const r of eventRows) {
      const row = rowOf(Number(r.hour), String(r[dim]));
      row.pageviews += Number(r.pageviews);
      row.events += Number(r.events);
      // One visitor may have visits of other values in the hour: counted once per value.
      if (!row.ids.has(r.visitor_id)) {
        row.ids.add(r.visitor_id);
        row.visitors += 1;
        row.sketch!.addVisitorId(r.visitor_id);
      }
    }
    for (const r of visitRows) {
      const row = rowOf(Number(r.hour), String(r[dim]));
      row.visits += Number(r.visits);
      row.bounces += Number(r.bounces);
      row.duration_sum += Number(r.duration_sum);
    }
    result.set(dim, [...rows.values()].map(({ ids: _ids, ...row }) => row));
  }
  return result;
}

/** The two grains of stored roll-ups: table and the column holding a row's start instant. */
const GRAINS = { hour: { table: 'analytics_rollups', start: 'hour' }, day: { table: 'analytics_daily_rollups', start: 'day' } } as const;
export type RollupGrain = keyof typeof GRAINS;

/**
 * Stored roll-up rows of one dimension starting in [from, to), optionally only some values. Daily
 * rows come back as rows whose `hour` is the day's start, their visitors an estimate when the
 * merged set is a HyperLogLog.
 */
export async function rollupRows(
  db: Db | Trx,
  websiteId: string,
  dimension: Dimension | '',
  range: { from: number; to: number },
  values?: readonly string[],
  grain: RollupGrain = 'hour',
): Promise<HourRow[]> {
  const { table, start } = GRAINS[grain];
  let query = db
    .selectFrom(table)
    .select([sql.ref(start).as('start'), 'value', 'visitors', 'visits', 'pageviews', 'bounces', 'duration_sum', 'events', 'visitor_sketch'])
    .where('website_id', '=', websiteId)
    .where('dimension', '=', dimension)
    .where(start, '>=', range.from)
    .where(start, '<', range.to);
  if (values) query = query.where('value', 'in', values);
  const rows = await query.execute();
  return rows.map((r) => ({ ...storedRow(r, Number(r.start)), ...(grain === 'day' ? { approximateVisitors: isDenseSketch(r.visitor_sketch) } : {}) }));
}

/** The counters and sketch of a stored roll-up row (the columns both grains share). */
type StoredRollupRow = Pick<Selectable<DB['analytics_rollups']>, 'value' | 'visitors' | 'visits' | 'pageviews' | 'bounces' | 'duration_sum' | 'events' | 'visitor_sketch'>;

/** A stored roll-up row (either grain) as an HourRow starting at `start`. */
const storedRow = (r: StoredRollupRow, start: number): HourRow => ({
  hour: start,
  value: r.value,
  visitors: Number(r.visitors),
  visits: Number(r.visits),
  pageviews: Number(r.pageviews),
  bounces: Number(r.bounces),
  duration_sum: Number(r.duration_sum),
  events: Number(r.events),
  sketchBytes: r.visitor_sketch as Uint8Array,
});

/** Replaces a grain's rows starting in [from, to) with `rows` (their `hour` is each row's start), in bounded statements. */
async function replaceRows(trx: Db | Trx, grain: RollupGrain, websiteId: string, range: { from: number; to: number }, rows: Array<{ dimension: string; row: HourRow }>): Promise<void> {
  const { table, start } = GRAINS[grain];
  await trx.deleteFrom(table).where('website_id', '=', websiteId).where(start, '>=', range.from).where(start, '<', range.to).execute();
  const values = rows.map(({ dimension, row }) => ({
    website_id: websiteId,
    dimension,
    [start]: row.hour,
    value: row.value,
    visitors: row.visitors,
    visits: row.visits,
    pageviews: row.pageviews,
    bounces: row.bounces,
    duration_sum: row.duration_sum,
    events: row.events,
    visitor_sketch: Buffer.from(row.sketch!.toBytes()),
  }));
  // 12 columns a row: 1 000 rows a statement stays under SQLite's 32 766 bound parameters.
  for (let i = 0; i < values.length; i += 1000) await trx.insertInto(table).values(values.slice(i, i + 1000)).execute();
}

/** Page views plus custom events in [from, to): from the totals roll-ups before `rolledUntil`, raw after. */
export async function eventCount(db: Db | Trx, websiteId: string, range: { from: number; to: number }, rolledUntil: number): Promise<number> {
  const split = Math.max(range.from, Math.min(range.to, rolledUntil));
  const [rolled, raw] = await Promise.all([
    split > range.from
      ? db
          .selectFrom('analytics_rollups')
          .select(sql<number>`coalesce(sum(pageviews + events), 0)`.as('n'))
          .where('website_id', '=', websiteId)
          .where('dimension', '=', '')
          .where('hour', '>=', range.from)
          .where('hour', '<', split)
          .executeTakeFirst()
      : undefined,
    split < range.to
      ? db.selectFrom('analytics_events').select(sql<number>`count(*)`.as('n')).where('website_id', '=', websiteId).where('time', '>=', split).where('time', '<', range.to).executeTakeFirst()
      : undefined,
  ]);
  return Number(rolled?.n ?? 0) + Number(raw?.n ?? 0);
}

export interface RollupState {
  websiteId: string;
  accountId: string;
  rolledUpUntil: number | null;
  purgedBefore: number | null;
  tickId: string | null;
  /** Zone the daily rows were cut in, and the instant local days before which are rolled up. */
  dailyTimeZone: string | null;
  dailyUntil: number | null;
}

export async function loadRollupState(db: Db | Trx, dialect: SqlDialect, websiteId: string, lock = false): Promise<RollupState | undefined> {
  let query = db.selectFrom('analytics_rollup_state').selectAll().where('website_id', '=', websiteId);
  if (lock) query = dialect.forUpdate(query);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  return {
    websiteId,
    accountId: row.account_id,
    rolledUpUntil: row.rolled_up_until === null ? null : Number(row.rolled_up_until),
    purgedBefore: row.purged_before === null ? null : Number(row.purged_before),
    tickId: row.tick_id,
    dailyTimeZone: row.daily_time_zone ?? null,
    dailyUntil: row.daily_until == null ? null : Number(row.daily_until),
  };
}

/** Replaces the roll-up rows of [from, to) of every dimension and moves the state on, in the caller's transaction. */
export async function replaceRollups(trx: Db | Trx, websiteId: string, range: { from: number; to: number }, rows: Array<{ dimension: string; row: HourRow }>, now: number): Promise<void> {
  await replaceRows(trx, 'hour', websiteId, range, rows);
  await trx
    .updateTable('analytics_rollup_state')
    // Days holding hours written again are merged again (a re-run after a kill writes the same rows, but need not).
    .set({ rolled_up_until: range.to, daily_until: sql`case when daily_until > ${range.from} then ${range.from} else daily_until end`, update_time: now })
    .where('website_id', '=', websiteId)
    .execute();
}

/** Every stored hourly row (all dimensions) starting in [from, to): what the days of that stretch merge. */
export async function hourlyRowsOfAllDimensions(db: Db | Trx, websiteId: string, range: { from: number; to: number }): Promise<Array<{ dimension: string; row: HourRow }>> {
  const rows = await db
    .selectFrom('analytics_rollups')
    .select(['dimension', 'hour', 'value', 'visitors', 'visits', 'pageviews', 'bounces', 'duration_sum', 'events', 'visitor_sketch'])
    .where('website_id', '=', websiteId)
    // Each dimension's range of the primary key (website_id, dimension, hour, value).
    .where('dimension', 'in', ['', ...DIMENSIONS])
    .where('hour', '>=', range.from)
    .where('hour', '<', range.to)
    .execute();
  return rows.map((r) => ({ dimension: r.dimension, row: storedRow(r, Number(r.hour)) }));
}

/**
 * Replaces the daily rows of the local days starting in [from, to) and records the days done (in
 * `zone`), in the caller's transaction. `rows` carry the day's start as `hour` and a merged sketch.
 */
export async function replaceDailyRollups(trx: Db | Trx, websiteId: string, range: { from: number; to: number }, rows: Array<{ dimension: string; row: HourRow }>, zone: string, now: number): Promise<void> {
  await replaceRows(trx, 'day', websiteId, range, rows);
  await trx.updateTable('analytics_rollup_state').set({ daily_until: range.to, daily_time_zone: zone, update_time: now }).where('website_id', '=', websiteId).execute();
}

/** The website's time zone changed: its daily rows go (one statement) and the days start again in `zone`. */
export async function restartDailyRollups(trx: Db | Trx, websiteId: string, zone: string, now: number): Promise<void> {
  await trx.deleteFrom('analytics_daily_rollups').where('website_id', '=', websiteId).execute();
  await trx.updateTable('analytics_rollup_state').set({ daily_until: null, daily_time_zone: zone, update_time: now }).where('website_id', '=', websiteId).execute();
}

/** Start of the earliest stored hourly row at or after `from` (days skip stretches without traffic), or undefined. */
export async function firstRolledUpHour(db: Db | Trx, websiteId: string, from: number): Promise<number | undefined> {
  const row = await db.selectFrom('analytics_rollups').select('hour').where('website_id', '=', websiteId).where('dimension', '=', '').where('hour', '>=', from).orderBy('hour').limit(1).executeTakeFirst();
  return row ? Number(row.hour) : undefined;
}

/** Earliest raw event at or after `from` (roll-ups skip empty stretches), or undefined. */
export async function firstEventTime(db: Db | Trx, websiteId: string, from: number): Promise<number | undefined> {
  const row = await db.selectFrom('analytics_events').select('time').where('website_id', '=', websiteId).where('time', '>=', from).orderBy('time').limit(1).executeTakeFirst();
  return row ? Number(row.time) : undefined;
}

/**
 * Deletes at most about `batch` raw events (and, separately, visits) that started before `before`.
 * Answers how many rows went, so the job knows whether to come back.
 */
export async function purgeRawBatch(db: Db | Trx, websiteId: string, before: number, batch: number): Promise<number> {
  let deleted = 0;
  for (const [table, column] of [
    ['analytics_events', 'time'],
    ['analytics_sessions', 'start_time'],
  ] as const) {
    // The time of the batch-th oldest row bounds the statement (ties may add a few), read from the (website_id, time) index.
    const edge = await db.selectFrom(table).select(column).where('website_id', '=', websiteId).where(column, '<', before).orderBy(column).offset(batch - 1).limit(1).executeTakeFirst();
    const bound = edge ? Number(edge[column]) + 1 : before;
    const result = await db.deleteFrom(table).where('website_id', '=', websiteId).where(column, '<', bound).executeTakeFirst();
    deleted += Number(result.numDeletedRows);
  }
  return deleted;
}

export async function hasRawRows(db: Db | Trx, websiteId: string): Promise<boolean> {
  return (await firstEventTime(db, websiteId, Number.MIN_SAFE_INTEGER)) !== undefined;
}

/** The website's `analytics.raw_retention_days` (its own value, else the registry default). */
export async function rawRetentionDays(db: Db | Trx, dialect: SqlDialect, websiteId: string): Promise<number> {
  return Number(await readWebsiteSetting(db, dialect, websiteId, 'analytics.raw_retention_days'));
}

export async function websiteTimeZone(db: Db | Trx, websiteId: string): Promise<string> {
  const row = await siteWebsiteRow(db, { id: websiteId });
  return row?.time_zone ?? 'UTC';
}

/** A website's roll-up state row, created on its first events (the tick chain arms it). */
export async function insertRollupStateOnce(trx: Db | Trx, websiteId: string, accountId: string, now: number): Promise<void> {
  await trx
    .insertInto('analytics_rollup_state')
    .values({ website_id: websiteId, account_id: accountId, rolled_up_until: null, purged_before: null, tick_id: null, update_time: now })
    .onConflict((oc) => oc.column('website_id').doNothing())
    .execute();
}

/** The live tick of the website's chain. */
export async function setTick(trx: Db | Trx, websiteId: string, tickId: string, now: number): Promise<void> {
  await trx.updateTable('analytics_rollup_state').set({ tick_id: tickId, update_time: now }).where('website_id', '=', websiteId).execute();
}

/** The chain ends (no tick live until `armRollups` starts it again). */
export async function clearTick(trx: Db | Trx, websiteId: string, now: number): Promise<void> {
  await trx.updateTable('analytics_rollup_state').set({ tick_id: null, update_time: now }).where('website_id', '=', websiteId).execute();
}

/** Hours before `until` are rolled up (written only while `tickId` is still the live tick). */
export async function markRolledUpUntil(db: Db | Trx, websiteId: string, tickId: string, until: number, now: number): Promise<void> {
  await db.updateTable('analytics_rollup_state').set({ rolled_up_until: until, update_time: now }).where('website_id', '=', websiteId).where('tick_id', '=', tickId).execute();
}

/** Raw rows before `before` may be gone from now on (written only while `tickId` is still the live tick). */
export async function markPurgedBefore(db: Db | Trx, websiteId: string, tickId: string, before: number, now: number): Promise<void> {
  await db.updateTable('analytics_rollup_state').set({ purged_before: before, update_time: now }).where('website_id', '=', websiteId).where('tick_id', '=', tickId).execute();
}

/** The day's visitor-id salt, unless a process stored one first. */
export async function insertSaltOnce(db: Db | Trx, day: string, salt: string, now: number): Promise<void> {
  await db
    .insertInto('analytics_salts')
    .values({ day, salt, create_time: now })
    .onConflict((oc) => oc.column('day').doNothing())
    .execute();
}

export async function saltOfDay(db: Db | Trx, day: string): Promise<string> {
  const row = await db.selectFrom('analytics_salts').select('salt').where('day', '=', day).executeTakeFirstOrThrow();
  return row.salt;
}

export async function deleteSaltsBefore(db: Db | Trx, day: string): Promise<void> {
  await db.deleteFrom('analytics_salts').where('day', '<', day).execute();
}
