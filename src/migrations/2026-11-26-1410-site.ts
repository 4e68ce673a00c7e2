import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addSiteVersionTriggers } from './site-versions.js';

/** Everything the rendered site shows, keyed by website (`addSiteVersionTriggers`). */
const RENDERED_BY_WEBSITE = [
  'views',
  'media',
  'cms_pages',
  'cms_page_views',
  'cms_page_groups',
  'cms_page_group_members',
  'cms_blocks',
  'cms_block_views',
  'navigation_menus',
  'navigation_items',
  'settings',
  'customer_attributes',
  'blog_posts',
  'blog_post_views',
  'blog_post_categories',
  'blog_post_tags',
  'blog_post_authors',
  'blog_categories',
  'blog_category_views',
  'blog_tags',
  'blog_tag_views',
  'blog_authors',
  'blog_author_views',
];

/**
 * The content version of every website, bumped in the transaction of every write to what its
 * rendered site shows; the site's caches are keyed by it (docs/architecture.md, "Rendered websites").
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('site_versions')
    .addColumn('website_id', 'text', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    // PostgreSQL: the transaction that last bumped the row (one bump per transaction is enough).
    .addColumn('bumped_in', 'bigint')
    .execute();

  if (columnTypes(db).pg) {
    for (const column of ['website_id', 'id']) {
      const rows = (from: string) => sql.raw(`SELECT ${column} AS w FROM ${from}`);
      const bump = (source: ReturnType<typeof sql.raw> | ReturnType<typeof sql>) => sql`
        INSERT INTO site_versions AS v (website_id, version, bumped_in)
        SELECT d.w, 1, txid_current() FROM (${source}) d WHERE d.w IS NOT NULL GROUP BY d.w ORDER BY d.w
        ON CONFLICT (website_id) DO UPDATE SET version = v.version + 1, bumped_in = excluded.bumped_in
          WHERE v.bumped_in IS DISTINCT FROM excluded.bumped_in;`;
      await sql`CREATE FUNCTION ${sql.raw(`site_versions_bump_by_${column}`)}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${bump(rows('site_new_rows'))}
          ELSIF TG_OP = 'DELETE' THEN ${bump(rows('site_old_rows'))}
          ELSE ${bump(sql`${rows('site_new_rows')} UNION ALL ${rows('site_old_rows')}`)}
          END IF;
          RETURN NULL;
        END $$`.execute(db);
    }
  }
  for (const table of RENDERED_BY_WEBSITE) await addSiteVersionTriggers(db, table);
  // Keyed by the website itself: its theme, its custom domain, and the website row (name, language).
  for (const table of ['themes', 'custom_domains', 'websites']) await addSiteVersionTriggers(db, table, 'id');
  // Host resolution reads a verified domain by name (custom_domains_domain covers `domain`).
}
