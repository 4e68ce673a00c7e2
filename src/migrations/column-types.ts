import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Frozen helper for migrations: the column types that differ between the two dialects.
 * Timestamps are epoch milliseconds (bigint) in both, so they compare and index alike.
 */
export function columnTypes(db: Kysely<any>) {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  return { json: pg ? ('jsonb' as const) : ('text' as const), pg };
}
