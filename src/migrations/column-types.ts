import { PostgresAdapter, sql, type Kysely } from 'kysely';

/**
 * Frozen helper for migrations: the column types that differ between the two dialects.
 * Timestamps are epoch milliseconds (bigint) in both, so they compare and index alike.
 */
export function columnTypes(db: Kysely<any>) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return { json: pg ? ('jsonb' as const) : ('text' as const), pg };
}

/**
 * Text that compares byte by byte (materialised tree paths, whose subtree ranges rely on `/` sorting
 * right before `0`): `COLLATE "C"` on PostgreSQL; SQLite's default BINARY collation already is.
 */
export function bytewiseText(db: Kysely<any>) {
  return columnTypes(db).pg ? sql`text collate "C"` : sql`text`;
}
