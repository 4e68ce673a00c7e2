import type { Kysely } from 'kysely';

/** Views: a website's locales. One default view per website, URL prefixes unique per website. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('url_prefix', 'text', (c) => c.notNull())
    .addColumn('fallback_view_id', 'text')
    .addColumn('is_default', 'boolean', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('views_url_prefix').on('views').columns(['website_id', 'url_prefix']).unique().execute();
  await db.schema.createIndex('views_create_time').on('views').columns(['website_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('views_display_name').on('views').columns(['website_id', 'display_name', 'id']).execute();
  await db.schema.createIndex('views_locale').on('views').columns(['website_id', 'locale', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('views').execute();
}
