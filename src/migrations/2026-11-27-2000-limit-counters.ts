import type { Kysely } from 'kysely';

/**
 * Counters of the security limits that hold across processes (issue 24; src/platform/limits/): one
 * row per limit and key. Used on PostgreSQL, where several processes share the database; SQLite has
 * one process, which keeps its limits in memory (the table stays empty there).
 *
 * - `limit_name`: which limit (`signin_failures_user`, `tenant`, ...).
 * - `key_hash`: SHA-256 (hex) of the key, so client addresses and typed email addresses are not stored.
 * - `at`, `used`: the record of the limit's algorithm (fixed window: window start and amount spent in
 *   it; token bucket: last spend and tokens missing at that moment), epoch milliseconds and amount.
 * - `expire_time`: when the record holds nothing any more; expired rows are purged in batches.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('limit_counters')
    .addColumn('limit_name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('used', 'double precision', (c) => c.notNull())
    .addColumn('expire_time', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('limit_counters_pk', ['limit_name', 'key_hash'])
    .execute();
  await db.schema.createIndex('limit_counters_expire').on('limit_counters').column('expire_time').execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
