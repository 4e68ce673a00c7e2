import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * Frozen helper for migrations: the trigram index behind `field:"text"` (contains) on a table's
 * filterable string columns (docs/architecture.md, Lists; first used by 2026-11-23-0800).
 *
 * - PostgreSQL: one pg_trgm GIN index `<table>_text_trgm` over all the columns (a multicolumn GIN
 *   index searches any one column as well as a single-column one).
 * - SQLite: an FTS5 table `<table>_fts` with the trigram tokenizer and external content (the table
 *   itself, joined by rowid), kept in step by triggers and filled once here from the rows present.
 */
export async function addTextIndex(db: Kysely<any>, table: string, columns: string[]): Promise<void> {
  if (columnTypes(db).pg) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    const operatorClasses = sql.join(columns.map((c) => sql`${sql.ref(c)} gin_trgm_ops`));
    await db.schema.createIndex(`${table}_text_trgm`).on(table).using('gin').expression(operatorClasses).execute();
    return;
  }
  const fts = `${table}_fts`;
  const list = (prefix: string) => sql.join(columns.map((c) => sql.ref(`${prefix}${c}`)));
  const names = sql.join(columns.map((c) => sql.ref(c)));
  // No option of a virtual table's declaration can be bound: they are identifiers of the migrations.
  await sql`create virtual table ${sql.table(fts)} using fts5(${names}, content=${sql.lit(table)}, content_rowid='rowid', tokenize='trigram')`.execute(db);
  const remove = sql`insert into ${sql.table(fts)} (${sql.table(fts)}, rowid, ${names}) values ('delete', old.rowid, ${list('old.')})`;
  const add = sql`insert into ${sql.table(fts)} (rowid, ${names}) values (new.rowid, ${list('new.')})`;
  await sql`create trigger ${sql.table(`${fts}_insert`)} after insert on ${sql.table(table)} begin ${add}; end`.execute(db);
  await sql`create trigger ${sql.table(`${fts}_delete`)} after delete on ${sql.table(table)} begin ${remove}; end`.execute(db);
  // Only writes of an indexed column touch the index (the engine writes changed columns only).
  await sql`create trigger ${sql.table(`${fts}_update`)} after update of ${names} on ${sql.table(table)} begin ${remove}; ${add}; end`.execute(db);
  await sql`insert into ${sql.table(fts)} (${sql.table(fts)}) values ('rebuild')`.execute(db);
}
