import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * `limit_counters` without write-ahead log on PostgreSQL (SQLite: the table is unused, nothing to
 * do). A hit of a shared limit is a write per checked request; logged, each one waited for a WAL
 * flush at commit, which cost the tenant limit check about 1 ms of CPU per request (bench `limits`).
 * Unlogged, a commit touching only counters does not wait for the disk. The price: the server's
 * crash recovery empties the table, so budgets start afresh after a database crash (not after a
 * clean restart, nor a crash of an API process) — counters are not data worth a disk flush each.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (columnTypes(db).pg) await sql`alter table limit_counters set unlogged`.execute(db);
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
