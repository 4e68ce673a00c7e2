import type { Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/** Email templates, website settings, per-view setting overrides, custom domains, themes. */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);

  // Id is the template's kind: one template per kind and website.
  await db.schema
    .createTable('email_templates')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('email_templates_pk', ['website_id', 'id'])
    .execute();
  await db.schema.createIndex('email_templates_website_kind').on('email_templates').columns(['website_id', 'kind', 'id']).execute();
  await db.schema.createIndex('email_templates_website_update_time').on('email_templates').columns(['website_id', 'update_time', 'id']).execute();

  // Stored setting values; scope_id '' is the website, otherwise the view overriding it. Paths
  // never written have no row and answer their registry default.
  await db.schema
    .createTable('settings')
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('value', json)
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('settings_pk', ['website_id', 'scope_id', 'path'])
    .execute();

  // Singletons: id is the website's id.
  await db.schema
    .createTable('custom_domains')
    .addColumn('id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_detail', 'text')
    .addColumn('last_verify_time', 'bigint')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('custom_domains_domain').on('custom_domains').columns(['domain']).execute();

  await db.schema
    .createTable('themes')
    .addColumn('id', 'text', (c) => c.primaryKey().references('websites.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('variables', json)
    .addColumn('logo_media_id', 'text')
    .addColumn('favicon_media_id', 'text')
    .addColumn('main_menu_id', 'text')
    .addColumn('footer_block_id', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
