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
