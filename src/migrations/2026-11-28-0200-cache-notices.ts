import { sql, type Kysely } from 'kysely';
import { columnTypes } from './column-types.js';

/**
 * PostgreSQL: the cache-invalidation trigger (2026-11-27-2100) also tells the writing connection
 * itself, with a NOTICE, that its statement announced a topic. A writing request then waits for every
 * process to handle its notifications (`settle`, src/platform/cache-invalidation.ts) only when one of
 * its statements did: every other write answers without the extra round trip. SQLite: nothing to do
 * (one process owns the file; nothing settles).
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (!columnTypes(db).pg) return;
  await sql`CREATE OR REPLACE FUNCTION cache_invalidation_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('cache_invalidation', TG_ARGV[0]);
      RAISE NOTICE USING MESSAGE = 'cache_invalidation ' || TG_ARGV[0];
      RETURN NULL;
    END $$`.execute(db);
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
