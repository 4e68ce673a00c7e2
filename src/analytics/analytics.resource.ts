import { read, write } from '../platform/auth/rights.js';
import type { Database } from '../platform/db/database.js';
import type { ResourceDecl } from '../platform/resource/declaration.js';
import { DIMENSIONS, loadRollupState, rawRetentionDays, websiteTimeZone } from './analytics.repo.js';
import { EXACT_VISITORS_MAX_EVENTS, METRICS, QUERY_BODY_SCHEMA, runQuery } from './query.js';
import { SKETCH_RELATIVE_ERROR } from './sketches.js';

const metricsSchema = {
  type: 'object',
  description: 'The requested metrics: visitors (unique visitor ids), visits, pageviews, views_per_visit (pageviews / visits, 2 decimals), bounce_rate (percent of visits with one page view and no custom event, 1 decimal), visit_duration (mean seconds), events (custom events).',
  properties: Object.fromEntries(METRICS.map((m) => [m, { type: 'number', description: `The ${m} metric.` }])),
  additionalProperties: false,
};
const rowsSchema = {
  type: 'array',
  maxItems: 1000,
  description: 'Time series: one row per bucket with `start_time` (its local start, RFC 3339 with the zone’s offset). Breakdown: one row per value with `dimensions` (null for a missing value, e.g. direct traffic), ordered by `order_by`, at most `limit`. Neither: empty (see `totals`).',
  items: {
    type: 'object',
    properties: {
      start_time: { type: 'string', format: 'date-time', maxLength: 32, description: 'Local start of the bucket.' },
      dimensions: { type: 'object', description: 'Dimension → value.', additionalProperties: { type: ['string', 'null'], maxLength: 2000 } },
      metrics: metricsSchema,
    },
    required: ['metrics'],
  },
};
const periodProperties = {
  start_date: { type: 'string', format: 'date', maxLength: 10, description: 'First local date of the range, inclusive.' },
  end_date: { type: 'string', format: 'date', maxLength: 10, description: 'Last local date, inclusive.' },
  start_time: { type: 'string', format: 'date-time', maxLength: 32, description: 'The local midnight starting start_date, as a UTC instant.' },
  end_time: { type: 'string', format: 'date-time', maxLength: 32, description: 'The local midnight after end_date, as a UTC instant (exclusive).' },
  rows: rowsSchema,
  totals: { ...metricsSchema, description: 'The metrics over the whole range (every value, not only the rows answered).' },
};

/** The answer of `:query`. */
const QUERY_RESPONSE = {
  type: 'object',
  title: 'QueryAnalyticsResponse',
  description: 'Metrics of a range in the website’s time zone.',
  properties: {
    ...periodProperties,
    time_zone: { type: 'string', maxLength: 64, description: 'The website’s IANA time zone the range and buckets are in.' },
    interval: { type: 'string', enum: ['hour', 'day', 'week', 'month'], description: 'The time series interval, when asked.' },
    dimensions: { type: 'array', maxItems: 1, items: { type: 'string', enum: DIMENSIONS }, description: 'The breakdown dimension, when asked.' },
    metrics: { type: 'array', maxItems: METRICS.length, items: { type: 'string', enum: METRICS }, description: 'The metrics answered, as requested.' },
    comparison: {
      type: 'object',
      description: 'The compared period (when `compare` was sent), same shape; its rows follow the compared period’s own buckets.',
      properties: { compare: { type: 'string', enum: ['previous_period', 'year_over_year'], description: 'As requested.' }, ...periodProperties },
      required: ['compare', 'start_date', 'end_date', 'start_time', 'end_time', 'rows', 'totals'],
    },
    approximate: {
      type: 'boolean',
      description: `True when a visitors count answered came from merged HyperLogLog sketches (relative standard error \`sketch_relative_error\`): ranges whose raw events were purged or that hold more than ${EXACT_VISITORS_MAX_EVENTS} events. Every other count is exact.`,
    },
    approximate_metrics: { type: 'array', maxItems: 1, items: { type: 'string', enum: ['visitors'] }, description: 'Which metrics are approximate (empty when `approximate` is false).' },
    sketch_relative_error: { type: 'number', description: 'Relative standard error of an approximate visitors count (1.04 / √4096).' },
  },
  required: ['start_date', 'end_date', 'time_zone', 'start_time', 'end_time', 'metrics', 'rows', 'totals', 'approximate', 'approximate_metrics', 'sketch_relative_error'],
};

/**
 * The website's analytics (`websites/{w}/analytics`, a read-only singleton) and its `:query`
 * custom method (AIP-136: a read with a structured body, so POST; no side effects).
 */
export function analyticsResource(database: Database): ResourceDecl {
  const { db, dialect } = database;
  return {
    kind: 'singleton',
    collection: 'analytics',
    singular: 'Analytics',
    table: 'analytics_rollup_state',
    description:
      'The website’s visitor analytics (read-only): the time zone its ranges are read in, how long raw events are kept and how far hourly roll-ups reach. ' +
      'Metrics are read with `:query`.',
    collectionPath: 'websites/{website_id}/analytics',
    itemPath: 'websites/{website_id}/analytics',
    fields: {
      time_zone: { type: 'string', maxLength: 64, description: 'The website’s IANA time zone: `:query` ranges and buckets are local to it.', behavior: ['OUTPUT_ONLY'] },
      raw_retention_days: { type: 'integer', description: 'Days raw events are kept (setting `analytics.raw_retention_days`); hourly roll-ups are kept beyond.', behavior: ['OUTPUT_ONLY'] },
      rolled_up_until: { type: 'timestamp', description: 'Hours before this instant are rolled up; absent before the first roll-up.', behavior: ['OUTPUT_ONLY'] },
      raw_events_since: { type: 'timestamp', description: 'Raw events before this instant may have been purged; absent while none were.', behavior: ['OUTPUT_ONLY'] },
      exact_visitors_max_events: { type: 'integer', description: 'Up to this many events in a range with raw events kept, visitors are counted exactly.', behavior: ['OUTPUT_ONLY'] },
      sketch_relative_error: { type: 'number', description: 'Relative standard error of approximate visitor counts.', behavior: ['OUTPUT_ONLY'] },
    },
    filterable: [],
    sortable: [],
    defaultOrder: '',
    methods: ['get'],
    rights: { read: read('website.analytics'), write: write('website.analytics') },
    virtual: {
      async get(_ctx, params) {
        const websiteId = params.website_id;
        const [zone, retention, state] = await Promise.all([websiteTimeZone(db, websiteId), rawRetentionDays(db, dialect, websiteId), loadRollupState(db, dialect, websiteId)]);
        const resource: Record<string, unknown> = {
          name: `websites/${websiteId}/analytics`,
          time_zone: zone,
          raw_retention_days: retention,
          exact_visitors_max_events: EXACT_VISITORS_MAX_EVENTS,
          sketch_relative_error: SKETCH_RELATIVE_ERROR,
        };
        if (state?.rolledUpUntil != null) resource.rolled_up_until = new Date(state.rolledUpUntil).toISOString();
        if (state?.purgedBefore != null) resource.raw_events_since = new Date(state.purgedBefore).toISOString();
        resource.etag = `${state?.rolledUpUntil ?? 0}-${state?.purgedBefore ?? 0}-${retention}`;
        return resource;
      },
    },
    customMethods: [
      {
        verb: 'query',
        on: 'item',
        access: 'read',
        summary: 'Query visitor metrics',
        description:
          'Answers metrics of a date range in the website’s time zone (local midnights; a 23- or 25-hour DST day is one day), as totals, a time series (`interval`) or a breakdown by one dimension (`dimensions`), ' +
          'narrowed by `filters` (AND-ed) and optionally compared with another period. Rolled-up time is read from daily roll-ups (whole local days) and hourly roll-ups, recent hours from raw events. ' +
          '`approximate` says whether a visitors count came from merged sketches. Unknown or inconsistent fields are INVALID_ARGUMENT naming the field; ' +
          'FAILED_PRECONDITION (`RAW_EVENTS_PURGED`) when the answer needs raw events older than those kept: filters and a breakdown over different dimensions, or visit metrics (visits, views_per_visit, bounce_rate, visit_duration) filtered by `page` or `event_name` without a breakdown by it (a visit counts once in any total). Reads only.',
        body: QUERY_BODY_SCHEMA as unknown as Record<string, unknown>,
        response: QUERY_RESPONSE,
        async handle(ctx, call) {
          // The main connection, not `read`: SQLite's reader threads copy every row's sketch bytes across
          // threads, measured 130–550 ms for a 12-month series against 45–85 ms here (docs/decisions.md).
          return runQuery({ db, dialect }, call.params.website_id, call.body, ctx.now);
        },
      },
    ],
  };
}
