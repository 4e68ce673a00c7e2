import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';
import { addListRowCountTriggers, backfillListRowCounts } from './list-versions.js';

/**
 * Exact row counts per (collection table, scope) in `list_versions.row_count`, kept by the change-
 * counter triggers in the writing transaction, so an unfiltered List's total is one point read
 * (docs/architecture.md, Lists). Every table that carries list-version triggers for itself is
 * counted; side tables (`customer_tags`, `blog_post_categories`, …) keep bumping their
 * collection's counter only.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // First: on PostgreSQL this locks list_versions, so no writer's trigger can land between the
  // backfill's count and the new trigger logic.
  await db.schema.alterTable('list_versions').addColumn('row_count', 'bigint').execute();

  const tables = await triggeredTables(db);
  if (columnTypes(db).pg) {
    await replacePostgresFunctions(db);
    for (const { table, scope, counts } of tables) if (counts === table) await backfillListRowCounts(db, table, scope);
    return;
  }
  for (const { table, scope, counts } of tables) {
    if (counts !== table) continue;
    for (const event of ['insert', 'update', 'delete']) await sql`DROP TRIGGER ${sql.id(`${table}_list_versions_${event}`)}`.execute(db);
    // Creates the row-counting triggers and backfills the table's row_count.
    await addListRowCountTriggers(db, table, scope);
  }
}

interface Triggered {
  table: string;
  scope: 'website_id' | 'account_id';
  counts: string;
}

/** Every table with list-version triggers, and what its INSERT trigger bumps, read from the catalog. */
async function triggeredTables(db: Kysely<any>): Promise<Triggered[]> {
  const found: Triggered[] = [];
  if (columnTypes(db).pg) {
    const { rows } = await sql<{ table: string; def: string }>`
      SELECT c.relname AS table, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND t.tgname = c.relname || '_list_versions_insert' AND pg_table_is_visible(c.oid)
      ORDER BY c.relname`.execute(db);
    for (const { table, def } of rows) {
      const match = /EXECUTE FUNCTION list_versions_bump_by_(website_id|account_id)\('([a-z0-9_]+)'\)/.exec(def);
      if (!match) throw new Error(`${table}: unrecognised list-version trigger: ${def}`);
      found.push({ table, scope: match[1] as Triggered['scope'], counts: match[2] });
    }
    return found;
  }
  const { rows } = await sql<{ table: string; sql: string }>`
    SELECT tbl_name AS "table", sql FROM sqlite_master WHERE type = 'trigger' AND name = tbl_name || '_list_versions_insert' ORDER BY tbl_name`.execute(db);
  for (const { table, sql: text } of rows) {
    const match = /INSERT INTO list_versions \(table_name, scope_id, version\) VALUES \('([a-z0-9_]+)', NEW\.(website_id|account_id), 1\)/.exec(text);
    if (!match) throw new Error(`${table}: unrecognised list-version trigger: ${text}`);
    found.push({ table, scope: match[2] as Triggered['scope'], counts: match[1] });
  }
  return found;
}

/**
 * The statement-level functions of 2026-11-23-0810, now also adding (rows inserted − rows deleted)
 * per scope to row_count when the writing table is the counted one. The version still moves at
 * most once per transaction (`bumped_in`); row_count changes on every statement that changes the
 * scope's number of rows, and a statement that does not (an UPDATE in place, a counter this
 * transaction already bumped) leaves the counter row alone.
 */
async function replacePostgresFunctions(db: Kysely<any>): Promise<void> {
  for (const scope of ['website_id', 'account_id']) {
    const rows = (from: string, n: number) => sql.raw(`SELECT ${scope} AS s, ${n} AS n FROM ${from}`);
    // A counter row created here: its scope held no rows (backfill), so the delta is the count.
    const bump = (source: ReturnType<typeof sql.raw> | ReturnType<typeof sql>) => sql`
      INSERT INTO list_versions AS v (table_name, scope_id, version, bumped_in, row_count)
      SELECT TG_ARGV[0], d.s, 1, txid_current(), CASE WHEN TG_TABLE_NAME = TG_ARGV[0] THEN sum(d.n) END
        FROM (${source}) d WHERE d.s IS NOT NULL GROUP BY d.s ORDER BY d.s
      ON CONFLICT (table_name, scope_id) DO UPDATE SET
        version = CASE WHEN v.bumped_in IS DISTINCT FROM excluded.bumped_in THEN v.version + 1 ELSE v.version END,
        bumped_in = excluded.bumped_in,
        row_count = CASE WHEN excluded.row_count IS NULL THEN v.row_count ELSE v.row_count + excluded.row_count END
        WHERE v.bumped_in IS DISTINCT FROM excluded.bumped_in OR excluded.row_count <> 0;`;
    await sql`CREATE OR REPLACE FUNCTION ${sql.raw(`list_versions_bump_by_${scope}`)}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${bump(rows('list_new_rows', 1))}
        ELSIF TG_OP = 'DELETE' THEN ${bump(rows('list_old_rows', -1))}
        ELSE ${bump(sql`${rows('list_new_rows', 1)} UNION ALL ${rows('list_old_rows', -1)}`)}
        END IF;
        RETURN NULL;
      END $$`.execute(db);
  }
  // TRUNCATE: every scope the table still holds is bumped and, for the counted table, set to 0.
  await sql`CREATE OR REPLACE FUNCTION list_versions_bump_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      EXECUTE format(
        'INSERT INTO list_versions AS v (table_name, scope_id, version, bumped_in, row_count)
         SELECT $1, %1$I, 1, txid_current(), CASE WHEN $2 THEN 0 END FROM %2$I.%3$I WHERE %1$I IS NOT NULL GROUP BY %1$I ORDER BY %1$I
         ON CONFLICT (table_name, scope_id) DO UPDATE SET
           version = CASE WHEN v.bumped_in IS DISTINCT FROM excluded.bumped_in THEN v.version + 1 ELSE v.version END,
           bumped_in = excluded.bumped_in,
           row_count = COALESCE(excluded.row_count, v.row_count)
           WHERE v.bumped_in IS DISTINCT FROM excluded.bumped_in OR excluded.row_count IS NOT NULL',
        TG_ARGV[1], TG_TABLE_SCHEMA, TG_TABLE_NAME) USING TG_ARGV[0], TG_TABLE_NAME = TG_ARGV[0];
      RETURN NULL;
    END $$`.execute(db);
}
