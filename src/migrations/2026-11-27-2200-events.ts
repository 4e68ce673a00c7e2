import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListRowCountTriggers } from './list-versions.js';

/**
 * Events (docs/architecture.md, "Events"): one row per change the platform commits, written in the
 * change's own transaction. Website-scoped resources' events go to `events` (listed at
 * `websites/{w}/events`), account-scoped ones' (AI, billing, members, projects, websites) to
 * `account_events` (`accounts/{a}/events`): two tables, so each List's indexes and change counter
 * lead with its one scope column.
 *
 * No foreign key to websites or accounts: the event of a deletion (`website.deleted`) must outlive
 * the row, for its deliveries; rows of a deleted tenant are unreachable (their path is gone) and go
 * with retention (30 days). `create_time` is when the event occurred (`occur_time` on the wire).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  for (const [table, scope] of [
    ['events', 'website_id'],
    ['account_events', 'account_id'],
  ] as const) {
    let create = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull());
    if (scope === 'website_id') create = create.addColumn('website_id', 'text', (c) => c.notNull());
    await create
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('collection', 'text', (c) => c.notNull())
      .addColumn('resource', 'text', (c) => c.notNull())
      .addColumn('actor', json, (c) => c.notNull())
      .addColumn('data', json, (c) => c.notNull())
      .addColumn('previous', json)
      .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c) => c.notNull())
      .addColumn('update_time', 'bigint', (c) => c.notNull())
      .execute();
    // Default order (newest first) and the time range; type and resource filters (equality and prefix)
    // with the same order, so a filtered page and its count each read one index range.
    await db.schema.createIndex(`${table}_time`).on(table).columns([scope, 'create_time', 'id']).execute();
    await db.schema.createIndex(`${table}_type`).on(table).columns([scope, 'type', 'create_time', 'id']).execute();
    await db.schema.createIndex(`${table}_resource`).on(table).columns([scope, 'resource', 'create_time', 'id']).execute();
    // Retention deletes by age through the primary key: ids begin with the time the event occurred.
    await addListRowCountTriggers(db, table, scope);
  }
}
