import type { Kysely } from 'kysely';

/**
 * Analytics collection (issue 16): what a site's first-party script reports, stored without
 * personal data (docs/decisions.md, "Analytics"). Not rendered on the site: no site-version or
 * list triggers (no List reads these tables; `:query` reads them and the hourly roll-ups).
 *
 * - `analytics_salts`: one random salt per calendar date, shared by every process; a visitor id is
 *   a hash of (salt of the day, website, address, user agent), so ids of two days never match and
 *   salts older than two days are deleted (the address cannot be recovered from an id).
 * - `analytics_events`: raw page views and named events, kept for the website's retention setting.
 * - `analytics_sessions`: visits (events of one visitor id with gaps under 30 minutes), kept
 *   up to date by the batched ingest: entry and exit page, page views, duration, source.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('analytics_salts')
    .addColumn('day', 'text', (c) => c.primaryKey())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .execute();

  const visitColumns = ['view_id', 'referrer_source', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'] as const;

  let events = db.schema
    .createTable('analytics_events')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    // Epoch milliseconds (UTC) of the hit as the server received it.
    .addColumn('time', 'bigint', (c) => c.notNull())
    // `pageview` or the name of a custom event.
    .addColumn('name', 'text', (c) => c.notNull())
    // Site path as the visitor saw it (a view's URL prefix included), without query string or fragment.
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text', (c) => c.notNull())
    // desktop | mobile | tablet; browser and OS family names.
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull());
  for (const column of visitColumns) events = events.addColumn(column, 'text');
  await events.addPrimaryKeyConstraint('analytics_events_pk', ['website_id', 'time', 'id']).execute();
  await db.schema.createIndex('analytics_events_session').on('analytics_events').columns(['website_id', 'session_id']).execute();

  let sessions = db.schema
    .createTable('analytics_sessions')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('start_time', 'bigint', (c) => c.notNull())
    // Time of the visit's latest event; duration = end_time - start_time.
    .addColumn('end_time', 'bigint', (c) => c.notNull())
    .addColumn('pageviews', 'integer', (c) => c.notNull())
    .addColumn('events', 'integer', (c) => c.notNull())
    .addColumn('entry_page', 'text', (c) => c.notNull())
    .addColumn('exit_page', 'text', (c) => c.notNull())
    .addColumn('device', 'text', (c) => c.notNull())
    .addColumn('browser', 'text', (c) => c.notNull())
    .addColumn('os', 'text', (c) => c.notNull());
  for (const column of visitColumns) sessions = sessions.addColumn(column, 'text');
  await sessions.addPrimaryKeyConstraint('analytics_sessions_pk', ['website_id', 'id']).execute();
  // A visitor's open visit (the ingest continues it) and visits by start (roll-ups, purge).
  await db.schema.createIndex('analytics_sessions_visitor').on('analytics_sessions').columns(['website_id', 'visitor_id', 'end_time']).execute();
  await db.schema.createIndex('analytics_sessions_start').on('analytics_sessions').columns(['website_id', 'start_time']).execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
