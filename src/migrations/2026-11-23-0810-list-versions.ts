import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListVersionTriggers } from './list-versions.js';

/**
 * Change counters of listable collections, bumped by triggers on every write, and the exact List
 * counts computed under them (docs/architecture.md, Lists): a count is reused until the counter of
 * its (collection, scope) moves.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // One row per (collection table, website or account) ever written; never deleted, so a counter
  // never goes back to a value a cached count was stored under.
  await db.schema
    .createTable('list_versions')
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    // PostgreSQL: the transaction (txid_current(), 64-bit, never wraps) that last bumped the row.
    .addColumn('bumped_in', 'bigint')
    .addPrimaryKeyConstraint('list_versions_pk', ['table_name', 'scope_id'])
    .execute();

  // Counts shared between processes; `query_key` hashes the collection path and the filter. Only
  // the newest version of a query is kept, and older versions of a scope go when a newer count lands.
  await db.schema
    .createTable('list_counts')
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('scope_id', 'text', (c) => c.notNull())
    .addColumn('query_key', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('list_counts_pk', ['table_name', 'scope_id', 'query_key'])
    .execute();

  if (columnTypes(db).pg) {
    // Statement-level: the transition tables hold the rows one statement wrote, so a bulk write
    // bumps once per distinct scope. Scopes are bumped in order, so two bulk writers lock the same
    // counters in the same order. One bump per transaction is enough (the counter differs after
    // commit either way): a counter this transaction already bumped (`bumped_in`) is left alone,
    // so a job writing row by row in one long transaction does not pile up versions of one row,
    // each statement walking all of them. Static SQL per scope column keeps the plans cached.
    for (const scope of ['website_id', 'account_id']) {
      const rows = (from: string) => sql.raw(`SELECT ${scope} AS s FROM ${from}`);
      const bump = (source: ReturnType<typeof sql.raw> | ReturnType<typeof sql>) => sql`
        INSERT INTO list_versions AS v (table_name, scope_id, version, bumped_in)
        SELECT TG_ARGV[0], d.s, 1, txid_current() FROM (${source}) d WHERE d.s IS NOT NULL GROUP BY d.s ORDER BY d.s
        ON CONFLICT (table_name, scope_id) DO UPDATE SET version = v.version + 1, bumped_in = excluded.bumped_in
          WHERE v.bumped_in IS DISTINCT FROM excluded.bumped_in;`;
      await sql`CREATE FUNCTION ${sql.raw(`list_versions_bump_by_${scope}`)}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP = 'INSERT' THEN ${bump(rows('list_new_rows'))}
          ELSIF TG_OP = 'DELETE' THEN ${bump(rows('list_old_rows'))}
          ELSE ${bump(sql`${rows('list_new_rows')} UNION ALL ${rows('list_old_rows')}`)}
          END IF;
          RETURN NULL;
        END $$`.execute(db);
    }
    // TRUNCATE has no transition table: bump every scope the table still holds, before it goes.
    await sql`CREATE FUNCTION list_versions_bump_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        EXECUTE format(
          'INSERT INTO list_versions AS v (table_name, scope_id, version, bumped_in)
           SELECT $1, %1$I, 1, txid_current() FROM %2$I.%3$I WHERE %1$I IS NOT NULL GROUP BY %1$I ORDER BY %1$I
           ON CONFLICT (table_name, scope_id) DO UPDATE SET version = v.version + 1, bumped_in = excluded.bumped_in
             WHERE v.bumped_in IS DISTINCT FROM excluded.bumped_in',
          TG_ARGV[1], TG_TABLE_SCHEMA, TG_TABLE_NAME) USING TG_ARGV[0];
        RETURN NULL;
      END $$`.execute(db);
  }

  const byWebsite = [
    'views',
    'customer_attribute_groups',
    'customer_attributes',
    'customer_groups',
    'customers',
    'media',
    'media_folders',
    'cms_pages',
    'cms_page_views',
    'cms_page_groups',
    'cms_blocks',
    'cms_block_views',
    'navigation_menus',
    'navigation_items',
    'email_templates',
  ];
  const byAccount = [
    'projects',
    'websites',
    'ai_instructions',
    'ai_instruction_versions',
    'ai_agents',
    'ai_agent_versions',
    'ai_connections',
    'ai_executions',
    'ai_ledger_entries',
    'ai_usage_records',
  ];
  for (const table of byWebsite) await addListVersionTriggers(db, table, 'website_id');
  for (const table of byAccount) await addListVersionTriggers(db, table, 'account_id');
  // `tags:"x"` on customers is answered from this side table.
  await addListVersionTriggers(db, 'customer_tags', 'website_id', 'customers');
}
