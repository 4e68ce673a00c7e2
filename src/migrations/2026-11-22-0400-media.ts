import type { Kysely } from 'kysely';
import { bytewiseText } from './column-types.js';

/**
 * Media library: folders (a tree kept as a materialized path of ids) and media (one stored
 * original each; variants live in blob storage only). One index per declared sort order, led by
 * the website, with `id` last for the keyset condition.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('media_folders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('display_name', 'text', (c) => c.notNull())
    // Deleting a folder takes its subtree with it; the service moves or deletes the media first.
    .addColumn('parent_id', 'text', (c) => c.references('media_folders.id').onDelete('cascade'))
    .addColumn('path', bytewiseText(db), (c) => c.notNull())
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('sort_order', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // `path` is unique inside a website (it ends with the folder's own id) and also serves subtree
  // prefix scans (`path LIKE 'a/b/%'`).
  await db.schema.createIndex('media_folders_website_path').on('media_folders').columns(['website_id', 'path', 'id']).execute();
  await db.schema.createIndex('media_folders_website_display_name').on('media_folders').columns(['website_id', 'display_name', 'id']).execute();
  await db.schema.createIndex('media_folders_website_level').on('media_folders').columns(['website_id', 'level', 'id']).execute();
  await db.schema.createIndex('media_folders_website_parent').on('media_folders').columns(['website_id', 'parent_id', 'id']).execute();
  // Siblings in order (`:move`, new folder last) and the `sort_order` sort.
  await db.schema.createIndex('media_folders_website_parent_sort').on('media_folders').columns(['website_id', 'parent_id', 'sort_order', 'id']).execute();
  await db.schema.createIndex('media_folders_website_sort_order').on('media_folders').columns(['website_id', 'sort_order', 'id']).execute();
  await db.schema.createIndex('media_folders_parent').on('media_folders').columns(['parent_id']).execute();

  await db.schema
    .createTable('media')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
    .addColumn('folder_id', 'text', (c) => c.references('media_folders.id'))
    .addColumn('filename', 'text', (c) => c.notNull())
    .addColumn('original_filename', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('storage_path', 'text', (c) => c.notNull())
    .addColumn('file_size', 'bigint', (c) => c.notNull())
    .addColumn('is_image', 'boolean', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('alt_text', 'text')
    .addColumn('title', 'text')
    .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addColumn('update_time', 'bigint', (c) => c.notNull())
    .execute();
  // `filename` is unique per website (it appears in the URL).
  await db.schema.createIndex('media_website_filename_unique').on('media').columns(['website_id', 'filename']).unique().execute();
  await db.schema.createIndex('media_website_create_time').on('media').columns(['website_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('media_website_filename').on('media').columns(['website_id', 'filename', 'id']).execute();
  await db.schema.createIndex('media_website_folder').on('media').columns(['website_id', 'folder_id', 'id']).execute();
  // The library's usual view: one folder (or the root), newest first.
  await db.schema.createIndex('media_website_folder_create_time').on('media').columns(['website_id', 'folder_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('media_website_is_image').on('media').columns(['website_id', 'is_image', 'id']).execute();
  await db.schema.createIndex('media_website_mime_type').on('media').columns(['website_id', 'mime_type', 'id']).execute();
  await db.schema.createIndex('media_website_original_filename').on('media').columns(['website_id', 'original_filename', 'id']).execute();
  await db.schema.createIndex('media_folder').on('media').columns(['folder_id']).execute();
}

export async function down(): Promise<void> {
  // Frozen forward-only migrations: nothing to undo.
}
