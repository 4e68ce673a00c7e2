import { sql, type Kysely } from 'kysely';
import { bytewiseText, columnTypes } from './column-types.js';
import { addListVersionTriggers } from './list-versions.js';
import { addTextIndex } from './text-indexes.js';

/**
 * The blog (issue 13): posts, categories (a tree), tags and authors of a website, each with per-view
 * overlays; the posts' revisions; and the side tables that answer "posts of a category / tag /
 * author" from an index (`blog_post_categories`, `blog_post_tags`, `blog_post_authors`). Ids are
 * unique per website; every reference between these rows is a composite foreign key, so nothing
 * points into another website, and a deleted post, category, tag or author takes its side rows along.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const { json } = columnTypes(db);
  const common = (t: any) =>
    t
      .addColumn('revision', 'integer', (c: any) => c.notNull().defaultTo(1))
      .addColumn('create_time', 'bigint', (c: any) => c.notNull())
      .addColumn('update_time', 'bigint', (c: any) => c.notNull());
  const index = (table: string, name: string, columns: string[], unique = false) => {
    const builder = db.schema.createIndex(`${table}_${name}`).on(table).columns(columns);
    return (unique ? builder.unique() : builder).execute();
  };

  // Posts.
  await common(
    db.schema
      .createTable('blog_posts')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('custom_excerpt', 'text')
      .addColumn('content', 'text')
      .addColumn('feature_image_media_id', 'text')
      .addColumn('feature_image_alt', 'text')
      .addColumn('meta_title', 'text')
      .addColumn('meta_description', 'text')
      .addColumn('canonical_url', 'text')
      .addColumn('og_title', 'text')
      .addColumn('og_description', 'text')
      .addColumn('og_image_media_id', 'text')
      .addColumn('author_ids', json, (c) => c.notNull())
      .addColumn('category_ids', json, (c) => c.notNull())
      .addColumn('tag_ids', json, (c) => c.notNull())
      .addColumn('visible_view_ids', json, (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('publish_time', 'bigint'),
  )
    .addPrimaryKeyConstraint('blog_posts_pk', ['website_id', 'id'])
    .execute();
  for (const column of ['create_time', 'update_time', 'title', 'url_key', 'publish_time']) await index('blog_posts', column, ['website_id', column, 'id']);
  // "The published ones, newest first" is one range.
  await index('blog_posts', 'state_publish_time', ['website_id', 'state', 'publish_time', 'id']);
  await index('blog_posts', 'state_create_time', ['website_id', 'state', 'create_time', 'id']);
  // Deleting a media item clears it from the posts that show it.
  for (const column of ['feature_image_media_id', 'og_image_media_id']) await index('blog_posts', column, ['website_id', column]);

  // Categories: a tree of materialised paths (platform/resource/tree.ts).
  await common(
    db.schema
      .createTable('blog_categories')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('meta_title', 'text')
      .addColumn('meta_description', 'text')
      .addColumn('parent_id', 'text')
      .addColumn('path', bytewiseText(db), (c) => c.notNull())
      .addColumn('level', 'integer', (c) => c.notNull())
      .addColumn('sort_order', 'integer', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('blog_categories_pk', ['website_id', 'id'])
    .addForeignKeyConstraint('blog_categories_parent', ['website_id', 'parent_id'], 'blog_categories', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  await index('blog_categories', 'url_key', ['website_id', 'url_key'], true);
  for (const column of ['create_time', 'display_name', 'path', 'level', 'sort_order']) await index('blog_categories', column, ['website_id', column, 'id']);
  await index('blog_categories', 'parent_sort_order', ['website_id', 'parent_id', 'sort_order', 'id']);

  // Tags and authors.
  await common(
    db.schema
      .createTable('blog_tags')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('description', 'text'),
  )
    .addPrimaryKeyConstraint('blog_tags_pk', ['website_id', 'id'])
    .execute();
  await index('blog_tags', 'url_key', ['website_id', 'url_key'], true);
  for (const column of ['create_time', 'display_name']) await index('blog_tags', column, ['website_id', column, 'id']);

  await common(
    db.schema
      .createTable('blog_authors')
      .addColumn('website_id', 'text', (c) => c.notNull().references('websites.id').onDelete('cascade'))
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('url_key', 'text', (c) => c.notNull())
      .addColumn('bio', 'text')
      .addColumn('avatar_media_id', 'text')
      .addColumn('user_id', 'text'),
  )
    .addPrimaryKeyConstraint('blog_authors_pk', ['website_id', 'id'])
    .execute();
  await index('blog_authors', 'url_key', ['website_id', 'url_key'], true);
  for (const column of ['create_time', 'display_name', 'user_id']) await index('blog_authors', column, ['website_id', column, 'id']);
  await index('blog_authors', 'avatar_media_id', ['website_id', 'avatar_media_id']);

  // Side tables: one row per post and category / tag / author, keyed from the category side so
  // "posts of category c" is one index range; `position` is the post's place in a category's manual
  // order (`:set_posts`).
  const side = async (table: string, column: string, target: string, withPosition: boolean) => {
    let builder = db.schema
      .createTable(table)
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn(column, 'text', (c) => c.notNull())
      .addColumn('post_id', 'text', (c) => c.notNull());
    if (withPosition) builder = builder.addColumn('position', 'integer', (c) => c.notNull());
    await builder
      .addPrimaryKeyConstraint(`${table}_pk`, ['website_id', column, 'post_id'])
      .addForeignKeyConstraint(`${table}_post`, ['website_id', 'post_id'], 'blog_posts', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
      .addForeignKeyConstraint(`${table}_target`, ['website_id', column], target, ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
      .execute();
    await index(table, 'post', ['website_id', 'post_id', column]);
    if (withPosition) await index(table, 'position', ['website_id', column, 'position', 'post_id']);
    // A List filter reads it: its writes change the posts' counts.
    await addListVersionTriggers(db, table, 'website_id', 'blog_posts');
  };
  await side('blog_post_categories', 'category_id', 'blog_categories', true);
  await side('blog_post_tags', 'tag_id', 'blog_tags', false);
  await side('blog_post_authors', 'author_id', 'blog_authors', false);

  // Revisions of a post: the previous state of every content write (newest first).
  await common(
    db.schema
      .createTable('blog_post_revisions')
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn('blog_post_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('post_revision', 'integer', (c) => c.notNull())
      .addColumn('snapshot', json, (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('blog_post_revisions_pk', ['website_id', 'blog_post_id', 'id'])
    .addForeignKeyConstraint('blog_post_revisions_post', ['website_id', 'blog_post_id'], 'blog_posts', ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
    .execute();
  for (const column of ['create_time', 'post_revision', 'created_by']) await index('blog_post_revisions', column, ['website_id', 'blog_post_id', column, 'id']);

  // Per-view overlays (id = the view id), like cms_page_views.
  const overlay = async (table: string, parentTable: string, parentColumn: string, columns: string[]) => {
    let builder = db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.notNull().references('views.id').onDelete('cascade'))
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('website_id', 'text', (c) => c.notNull())
      .addColumn(parentColumn, 'text', (c) => c.notNull())
      .addColumn('overridden', json, (c) => c.notNull());
    for (const column of columns) builder = builder.addColumn(column, 'text');
    await common(builder)
      .addPrimaryKeyConstraint(`${table}_pk`, ['website_id', parentColumn, 'id'])
      .addForeignKeyConstraint(`${table}_parent`, ['website_id', parentColumn], parentTable, ['website_id', 'id'], (c: any) => c.onDelete('cascade'))
      .execute();
    for (const column of ['create_time', 'update_time']) await index(table, column, ['website_id', parentColumn, column, 'id']);
    await index(table, 'view', ['website_id', 'id']);
    await addListVersionTriggers(db, table, 'website_id');
  };
  await overlay('blog_post_views', 'blog_posts', 'blog_post_id', [
    'title', 'custom_excerpt', 'content', 'feature_image_alt', 'meta_title', 'meta_description', 'og_title', 'og_description',
  ]);
  await overlay('blog_category_views', 'blog_categories', 'blog_category_id', ['display_name', 'description', 'meta_title', 'meta_description']);
  await overlay('blog_tag_views', 'blog_tags', 'blog_tag_id', ['display_name', 'description']);
  await overlay('blog_author_views', 'blog_authors', 'blog_author_id', ['display_name', 'bio']);

  for (const table of ['blog_posts', 'blog_categories', 'blog_tags', 'blog_authors', 'blog_post_revisions']) await addListVersionTriggers(db, table, 'website_id');

  // Trigram indexes behind `field:"text"` on the filterable strings (see 2026-11-23-0800).
  const textColumns: Record<string, string[]> = {
    blog_posts: ['title', 'url_key'],
    blog_categories: ['display_name', 'url_key', 'parent_id', 'path'],
    blog_tags: ['display_name', 'url_key'],
    blog_authors: ['display_name', 'url_key', 'user_id'],
    blog_post_revisions: ['created_by'],
  };
  for (const [table, columns] of Object.entries(textColumns)) await addTextIndex(db, table, columns);
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
