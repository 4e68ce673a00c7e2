import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Frozen helper for migrations: the change-counter triggers of a listable table (see
 * docs/architecture.md, Lists). Every INSERT, UPDATE and DELETE of `table` (engine writes, raw SQL
 * of repositories and jobs, foreign-key cascades, other processes) bumps
 * `list_versions(counts, scope)` in the writing transaction, so an exact List count cached under
 * the version read before counting can never be served after the rows changed.
 *
 * - `scope` is the column the engine scopes the count by: `website_id` when the table has one,
 *   else `account_id`.
 * - `counts` is the collection whose counts the table's rows change: the table itself, or for a
 *   side table a List filter reads (`customer_tags` for `tags:"x"`), that collection's table.
 *
 * PostgreSQL: statement-level triggers with transition tables (a bulk write bumps once per distinct
 * scope, in scope order) calling the functions of migration 2026-11-23-0810, plus a BEFORE TRUNCATE
 * trigger. SQLite: row-level AFTER triggers with an upsert. Trigger names are
 * `{table}_list_versions_{insert|update|delete|truncate}`.
 */
export async function addListVersionTriggers(db: Kysely<any>, table: string, scope: 'website_id' | 'account_id', counts: string = table): Promise<void> {
  for (const identifier of [table, counts]) if (!/^[a-z_][a-z0-9_]*$/.test(identifier)) throw new Error(`not a table name: ${identifier}`);
  const name = (event: string) => sql.id(`${table}_list_versions_${event}`);
  const target = sql.table(table);
  if (columnTypes(db).pg) {
    const bump = sql.raw(`list_versions_bump_by_${scope}`);
    const args = sql.raw(`'${counts}'`);
    await sql`CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${target} REFERENCING NEW TABLE AS list_new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}(${args})`.execute(db);
    await sql`CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${target} REFERENCING OLD TABLE AS list_old_rows NEW TABLE AS list_new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}(${args})`.execute(db);
    await sql`CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${target} REFERENCING OLD TABLE AS list_old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${bump}(${args})`.execute(db);
    await sql`CREATE TRIGGER ${name('truncate')} BEFORE TRUNCATE ON ${target}
      FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_truncated(${args}, ${sql.raw(`'${scope}'`)})`.execute(db);
    return;
  }
  const upsert = (value: string) =>
    sql.raw(`INSERT INTO list_versions (table_name, scope_id, version) VALUES ('${counts}', ${value}, 1)
      ON CONFLICT (table_name, scope_id) DO UPDATE SET version = version + 1;`);
  await sql`CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${target} BEGIN ${upsert(`NEW.${scope}`)} END`.execute(db);
  await sql`CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${target} BEGIN ${upsert(`OLD.${scope}`)} END`.execute(db);
  // A row moving to another scope (never done today) changes both counts.
  await sql`CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${target} BEGIN ${upsert(`NEW.${scope}`)}
    INSERT INTO list_versions (table_name, scope_id, version) SELECT ${sql.raw(`'${counts}'`)}, ${sql.raw(`OLD.${scope}`)}, 1
      WHERE ${sql.raw(`OLD.${scope}`)} IS NOT ${sql.raw(`NEW.${scope}`)}
      ON CONFLICT (table_name, scope_id) DO UPDATE SET version = version + 1; END`.execute(db);
}

/**
 * Frozen helper for migrations from 2026-11-26-1120 on: the change-counter triggers of a listable
 * table that also keep `list_versions.row_count`, the exact number of the table's rows per scope
 * (docs/architecture.md, Lists), which answers an unfiltered List's total. Use it instead of
 * `addListVersionTriggers` for every new listable table; the arguments are the same.
 *
 * - A side table (`counts` differs from `table`) bumps the other collection's counter and never
 *   touches its row_count: its triggers are exactly `addListVersionTriggers`'s.
 * - PostgreSQL: the same statement-level triggers; the functions (replaced in migration
 *   2026-11-26-1120) add rows inserted minus rows deleted per scope when the writing table is the
 *   counted one (`TG_TABLE_NAME = TG_ARGV[0]`), and TRUNCATE sets the scopes' row_count to 0.
 * - SQLite: row-level triggers that add 1 / subtract 1; an UPDATE moving a row to another scope
 *   moves its count.
 *
 * The table's existing rows are counted into row_count (`backfillListRowCounts`), so the helper may
 * also be used on a table that already holds rows.
 */
export async function addListRowCountTriggers(db: Kysely<any>, table: string, scope: 'website_id' | 'account_id', counts: string = table): Promise<void> {
  if (counts !== table || columnTypes(db).pg) await addListVersionTriggers(db, table, scope, counts);
  else await addSqliteRowCountTriggers(db, table, scope);
  if (counts === table) await backfillListRowCounts(db, table, scope);
}

/**
 * Sets `list_versions.row_count` of `table` to its rows per scope, set-based: every scope holding
 * rows gets its count (a counter row is created at version 0 where none existed), every other
 * scope that has a counter row gets 0. Run it in the transaction that installs the row-counting
 * triggers, before any write can land between the count and the triggers.
 */
export async function backfillListRowCounts(db: Kysely<any>, table: string, scope: 'website_id' | 'account_id'): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  await sql`UPDATE list_versions SET row_count = 0 WHERE table_name = ${table}`.execute(db);
  await sql`INSERT INTO list_versions (table_name, scope_id, version, row_count)
    SELECT ${table}, ${sql.ref(scope)}, 0, count(*) FROM ${sql.table(table)} WHERE ${sql.ref(scope)} IS NOT NULL GROUP BY ${sql.ref(scope)}
    ON CONFLICT (table_name, scope_id) DO UPDATE SET row_count = excluded.row_count`.execute(db);
}

/** SQLite: the counted table's own triggers, `{table}_list_versions_{insert|update|delete}`. */
async function addSqliteRowCountTriggers(db: Kysely<any>, table: string, scope: 'website_id' | 'account_id'): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error(`not a table name: ${table}`);
  const name = (event: string) => sql.id(`${table}_list_versions_${event}`);
  const target = sql.table(table);
  // `value` is the row_count of a counter row created by this write; `change` is added to an
  // existing one. A scope without a counter row holds no rows (backfill), so a first insert is 1.
  const upsert = (scopeValue: string, value: string, change: string) =>
    sql.raw(`INSERT INTO list_versions (table_name, scope_id, version, row_count) VALUES ('${table}', ${scopeValue}, 1, ${value})
      ON CONFLICT (table_name, scope_id) DO UPDATE SET version = version + 1, row_count = row_count + ${change};`);
  await sql`CREATE TRIGGER ${name('insert')} AFTER INSERT ON ${target} BEGIN ${upsert(`NEW.${scope}`, '1', '1')} END`.execute(db);
  // A delete creating the counter row would mean the count was unknown: NULL (the engine counts).
  await sql`CREATE TRIGGER ${name('delete')} AFTER DELETE ON ${target} BEGIN ${upsert(`OLD.${scope}`, 'NULL', '-1')} END`.execute(db);
  const moved = `(OLD.${scope} IS NOT NEW.${scope})`;
  await sql`CREATE TRIGGER ${name('update')} AFTER UPDATE ON ${target} BEGIN
    ${upsert(`NEW.${scope}`, `CASE WHEN ${moved} THEN 1 END`, moved)}
    INSERT INTO list_versions (table_name, scope_id, version, row_count) SELECT ${sql.raw(`'${table}'`)}, ${sql.raw(`OLD.${scope}`)}, 1, NULL
      WHERE ${sql.raw(moved)}
      ON CONFLICT (table_name, scope_id) DO UPDATE SET version = version + 1, row_count = row_count - 1; END`.execute(db);
}
