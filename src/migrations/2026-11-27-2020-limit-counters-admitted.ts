import type { Kysely } from 'kysely';

/**
 * `limit_counters.admitted`: how many hits the latest write of the row admitted. A batch of hits of
 * one key (the hits a process received in one turn of its event loop, src/platform/limits/) is one
 * upsert that admits as many as fit; the answer of each hit needs that number, which the row after
 * the write cannot tell by itself.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('limit_counters').addColumn('admitted', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(): Promise<void> {
  // Frozen: never rolled back.
}
