import type { Kysely } from 'kysely';
import type { DB } from './schema.js';

/**
 * The database with its schema set aside, for statements whose table and column names are data: a
 * resource declaration's `table` and fields (the engine, list planning, ordering, trees), a lease
 * queue's table, the event tables chosen by scope. `Kysely<DB>` can only name the tables it knows,
 * so those statements go through here, the one place that leaves the typed `DB`.
 */
export type DynamicDb = Kysely<any>;

/** `db` (or a transaction of it) for a statement over a table named at run time. */
export function dynamic(db: Kysely<DB>): DynamicDb {
  return db;
}
