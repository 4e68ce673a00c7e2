import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * The analytics dashboard (`websites/{w}/dashboard`, a singleton): one row per website that wrote
 * its dashboard, keyed by the website's id and removed with it. A website without a row answers the
 * default layout. `widgets` is the layout as JSON (at most 50 widgets, checked by the API).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  await db.schema
    .createTable('dashboards')
    .addColumn('id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('widgets', json, (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
