import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Daily analytics roll-ups (issue 16): the hourly roll-ups of each local day of the website's time
 * zone merged into one row per (dimension, value), so a 12-month query reads 365 rows per value,
 * not 8 760 (Matomo's day archives, kept in the site's zone the same way).
 *
 * - `analytics_daily_rollups`: as `analytics_rollups`, keyed by `day`, the UTC instant of the local
 *   midnight the day starts at; a day holds the hourly rows whose hour starts in it. `visitors` is
 *   the count of the merged set (an estimate when `visitor_sketch` is a HyperLogLog).
 * - `analytics_rollup_state.daily_time_zone`: the zone the daily rows were cut in (the job deletes
 *   them and starts again when the website's zone changes; `:query` ignores them meanwhile);
 *   `daily_until`: local days starting before this instant are rolled up (lowered when hourly rows
 *   of an earlier hour are written again, so the days holding them are merged again).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bytes = columnTypes(db).pg ? sql`bytea` : sql`blob`;
  await db.schema
    .createTable('analytics_daily_rollups')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    // Epoch milliseconds (UTC) of the local midnight the day starts at.
    .addColumn('day', 'bigint', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('visitors', 'integer', (c) => c.notNull())
    .addColumn('visits', 'integer', (c) => c.notNull())
    .addColumn('pageviews', 'integer', (c) => c.notNull())
    .addColumn('bounces', 'integer', (c) => c.notNull())
    .addColumn('duration_sum', 'bigint', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('visitor_sketch', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_daily_rollups_pk', ['website_id', 'dimension', 'day', 'value'])
    .execute();
  await db.schema.alterTable('analytics_rollup_state').addColumn('daily_time_zone', 'text').execute();
  await db.schema.alterTable('analytics_rollup_state').addColumn('daily_until', 'bigint').execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
