import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Hourly analytics roll-ups (issue 16), which `:query` reads for every hour the roll-up job closed,
 * so a 12-month query reads aggregates, not raw events.
 *
 * - `analytics_rollups`: one row per (website, dimension, UTC hour, value). `dimension` is '' for
 *   the website's totals (value ''), else a breakdown dimension (`page`, `source`, …) with the
 *   value ('' for none, e.g. direct traffic). Counters are additive; `visitors` is the hour's exact
 *   distinct count and `visitor_sketch` the mergeable visitor set (src/analytics/sketches.ts:
 *   an exact list of 64-bit ids below 512 visitors, a 4 096-register HyperLogLog above), bytes
 *   computed in application code so both databases answer the same. The key serves every read:
 *   a dimension's hours of a range, in order.
 * - `analytics_rollup_state`: per website, the hour up to which roll-ups are complete (written in
 *   the transaction that writes the rows, so a killed job resumes there), the instant before which
 *   raw rows may have been purged, and the one live roll-up tick (an Operation id).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const bytes = columnTypes(db).pg ? sql`bytea` : sql`blob`;
  await db.schema
    .createTable('analytics_rollups')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('dimension', 'text', (c) => c.notNull())
    // Epoch milliseconds (UTC) of the hour's start.
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('visitors', 'integer', (c) => c.notNull())
    .addColumn('visits', 'integer', (c) => c.notNull())
    .addColumn('pageviews', 'integer', (c) => c.notNull())
    .addColumn('bounces', 'integer', (c) => c.notNull())
    // Milliseconds, summed over the visits counted in `visits`.
    .addColumn('duration_sum', 'bigint', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('visitor_sketch', bytes, (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_rollups_pk', ['website_id', 'dimension', 'hour', 'value'])
    .execute();

  await db.schema
    .createTable('analytics_rollup_state')
    .addColumn('website_id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    // Hours starting before this instant are rolled up; null: nothing rolled up yet.
    .addColumn('rolled_up_until', 'bigint')
    // Raw events and visits before this instant may have been purged; null: none was.
    .addColumn('purged_before', 'bigint')
    // The live roll-up tick (Operation id); null when the chain stopped (no raw rows left).
    .addColumn('tick_id', 'text')
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
