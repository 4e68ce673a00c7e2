import type { Kysely } from 'kysely';
import { bytewiseText, columnTypes } from './column-types.js';

/**
 * Site content: CMS pages and blocks with their per-view overlays, customer-group versions of
 * pages, navigation menus and their item trees. Ids are unique per website (primary keys lead with
 * `website_id`), so provisioning can seed fixed ids (`home`, `main`) in every website; references
 * between them are composite foreign keys, so a row can never point into another website.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  const common = (t: any) =>
    t
      .addColumn('revision', 'integer', (c: any) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c: any) => c.notNull())
      .addColumn('update_time', 'bigint', (c: any) => c.notNull());

  await common(
    db.schema
      .createTable('cms_pages')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('is_active', 'boolean', (c) => c.notNull())
      .addColumn('content_heading', 'text')
      .addColumn('content', 'text')
      .addColumn('meta_title', 'text')
      .addColumn('meta_description', 'text')
      .addColumn('meta_keywords', 'text')
      .addColumn('meta_robots', 'text', (c) => c.notNull())
      .addColumn('visible_view_ids', json, (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('cms_pages_pk', ['website_id', 'id'])
    .execute();
  // One index per declared sort order (and the is_active filter on the default order).
  await db.schema.createIndex('cms_pages_create_time').on('cms_pages').columns(['website_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('cms_pages_update_time').on('cms_pages').columns(['website_id', 'update_time', 'id']).execute();
  await db.schema.createIndex('cms_pages_title').on('cms_pages').columns(['website_id', 'title', 'id']).execute();
  // Also the lookup of the url_key uniqueness rule and of resolving a path to a page.
  await db.schema.createIndex('cms_pages_url_key').on('cms_pages').columns(['website_id', 'url_key', 'id']).execute();
  await db.schema.createIndex('cms_pages_active_create_time').on('cms_pages').columns(['website_id', 'is_active', 'create_time', 'id']).execute();

  await common(
    db.schema
      .createTable('cms_page_views')
      .addColumn('id', 'text', (c) => c.notNull().references('views.id').onDelete('cascade')) // the view overlaid
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn('cms_page_id', 'text', (c) => c.notNull())
      .addColumn('overridden', json, (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('content_heading', 'text')
      .addColumn('content', 'text')
      .addColumn('meta_title', 'text')
      .addColumn('meta_description', 'text')
      .addColumn('meta_keywords', 'text'),
  )
    .addPrimaryKeyConstraint('cms_page_views_pk', ['website_id', 'cms_page_id', 'id'])
    .addForeignKeyConstraint('cms_page_views_page', ['website_id', 'cms_page_id'], 'cms_pages', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('cms_page_views_create_time').on('cms_page_views').columns(['website_id', 'cms_page_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('cms_page_views_view').on('cms_page_views').columns(['website_id', 'id']).execute();

  // Customer-group versions of a page. Group ids are checked against `customer_groups` on write;
  // a deleted group's membership rows go with it (foreign key below).
  await common(
    db.schema
      .createTable('cms_page_groups')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn('cms_page_id', 'text', (c) => c.notNull())
      .addColumn('customer_group_ids', json, (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull())
      .addColumn('is_active', 'boolean', (c) => c.notNull())
      .addColumn('visible_view_ids', json, (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('content_heading', 'text')
      .addColumn('content', 'text')
      .addColumn('meta_title', 'text')
      .addColumn('meta_description', 'text')
      .addColumn('meta_keywords', 'text'),
  )
    .addPrimaryKeyConstraint('cms_page_groups_pk', ['website_id', 'id'])
    .addForeignKeyConstraint('cms_page_groups_page', ['website_id', 'cms_page_id'], 'cms_pages', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('cms_page_groups_priority').on('cms_page_groups').columns(['website_id', 'cms_page_id', 'priority', 'id']).execute();
  await db.schema.createIndex('cms_page_groups_create_time').on('cms_page_groups').columns(['website_id', 'cms_page_id', 'create_time', 'id']).execute();
  // One row per (active version, customer group, view or '' for every view): resolving a page for a
  // group and a view is one index range, highest priority first.
  await db.schema
    .createTable('cms_page_group_members')
    .addColumn('website_id', 'text', (c) => c.notNull())
    .addColumn('cms_page_id', 'text', (c) => c.notNull())
    .addColumn('cms_page_group_id', 'text', (c) => c.notNull())
    .addColumn('customer_group_id', 'text', (c) => c.notNull().references('customer_groups.id').onDelete('cascade'))
    .addColumn('view_id', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('create_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('cms_page_group_members_pk', ['website_id', 'cms_page_group_id', 'customer_group_id', 'view_id'])
    .addForeignKeyConstraint('cms_page_group_members_version', ['website_id', 'cms_page_group_id'], 'cms_page_groups', ['website_id', 'id'], (c: any) =>
      c.onDelete('cascade'),
    )
    .execute();
  await db.schema
    .createIndex('cms_page_group_members_resolve')
    .on('cms_page_group_members')
    .columns(['website_id', 'cms_page_id', 'customer_group_id', 'view_id', 'priority'])
    .execute();

  await common(
    db.schema
      .createTable('cms_blocks')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('identifier', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('is_active', 'boolean', (c) => c.notNull())
      .addColumn('content', 'text')
      .addColumn('visible_view_ids', json, (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('cms_blocks_pk', ['website_id', 'id'])
    .execute();
  await db.schema.createIndex('cms_blocks_identifier').on('cms_blocks').columns(['website_id', 'identifier']).unique().execute();
  await db.schema.createIndex('cms_blocks_create_time').on('cms_blocks').columns(['website_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('cms_blocks_update_time').on('cms_blocks').columns(['website_id', 'update_time', 'id']).execute();
  await db.schema.createIndex('cms_blocks_title').on('cms_blocks').columns(['website_id', 'title', 'id']).execute();

  await common(
    db.schema
      .createTable('cms_block_views')
      .addColumn('id', 'text', (c) => c.notNull().references('views.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn('cms_block_id', 'text', (c) => c.notNull())
      .addColumn('overridden', json, (c) => c.notNull())
      .addColumn('title', 'text')
      .addColumn('content', 'text'),
  )
    .addPrimaryKeyConstraint('cms_block_views_pk', ['website_id', 'cms_block_id', 'id'])
    .addForeignKeyConstraint('cms_block_views_block', ['website_id', 'cms_block_id'], 'cms_blocks', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('cms_block_views_create_time').on('cms_block_views').columns(['website_id', 'cms_block_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('cms_block_views_view').on('cms_block_views').columns(['website_id', 'id']).execute();

  await common(
    db.schema
      .createTable('navigation_menus')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('identifier', 'text', (c) => c.notNull())
      .addColumn('visible_view_ids', json, (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('navigation_menus_pk', ['website_id', 'id'])
    .execute();
  await db.schema.createIndex('navigation_menus_identifier').on('navigation_menus').columns(['website_id', 'identifier']).unique().execute();
  await db.schema.createIndex('navigation_menus_create_time').on('navigation_menus').columns(['website_id', 'create_time', 'id']).execute();
  await db.schema.createIndex('navigation_menus_display_name').on('navigation_menus').columns(['website_id', 'display_name', 'id']).execute();

  await common(
    db.schema
      .createTable('navigation_items')
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn('navigation_menu_id', 'text', (c) => c.notNull())
      .addColumn('parent_id', 'text')
      .addColumn('path', bytewiseText(db), (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('sort_order', 'integer', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('cms_page_id', 'text')
      .addColumn('url', 'text')
      .addColumn('open_in_new_tab', 'boolean', (c) => c.notNull())
      .addColumn('is_active', 'boolean', (c) => c.notNull())
      .addColumn('visible_view_ids', json, (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('navigation_items_pk', ['website_id', 'id'])
    .addForeignKeyConstraint('navigation_items_menu', ['website_id', 'navigation_menu_id'], 'navigation_menus', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .addForeignKeyConstraint('navigation_items_parent', ['website_id', 'parent_id'], 'navigation_items', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .addForeignKeyConstraint('navigation_items_page', ['website_id', 'cms_page_id'], 'cms_pages', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  await db.schema.createIndex('navigation_items_path').on('navigation_items').columns(['website_id', 'navigation_menu_id', 'path', 'id']).execute();
  await db.schema
    .createIndex('navigation_items_siblings')
    .on('navigation_items')
    .columns(['website_id', 'navigation_menu_id', 'parent_id', 'sort_order', 'id'])
    .execute();
  await db.schema.createIndex('navigation_items_page').on('navigation_items').columns(['website_id', 'cms_page_id']).execute();
  await db.schema.createIndex('navigation_items_parent').on('navigation_items').columns(['website_id', 'parent_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['navigation_items', 'navigation_menus', 'cms_block_views', 'cms_blocks', 'cms_page_group_members', 'cms_page_groups', 'cms_page_views', 'cms_pages']) {
    await db.schema.dropTable(table).execute();
  }
}
