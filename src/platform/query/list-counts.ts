import { createHash } from 'node:crypto';
import { LruCache } from '../cache.js';
import { SingleFlight } from '../concurrency.js';
import type { Database } from '../db/database.js';

/** Which exact count: the collection's table, the scope its change counter is kept under, the query. */
export interface ListCountKey {
  table: string;
  /** The website id of website-scoped tables, else the account id: as the list_versions triggers key them. */
  scope: string;
  /** The filled collection path and the canonical filter. */
  query: string;
}

/** Exact List counts, computed once per state of a collection (docs/architecture.md, Lists). */
export interface ListCounts {
  /**
   * The count of `key`: reused while the collection's change counter stands still, else `compute`d
   * and kept. `opts.allRows`: the query selects every row of the (table, scope) (no filter, no
   * restriction, the path's only id is the scope), so the trigger-kept `row_count` read with the
   * counter is the answer, without counting; a missing or NULL row_count counts as before.
   */
  count(key: ListCountKey, compute: () => Promise<number>, opts?: { allRows?: boolean }): Promise<number>;
}

/**
 * Counts keyed by the change counter `list_versions(table, scope)`, which triggers bump in every
 * writing transaction. The counter is read (committed state, writer connection) before the count
 * starts, so the count sees at least that state: a write committing in between makes the stored
 * entry unreachable (the counter moved on), never wrong. Kept in a bounded in-process LRU, and
 * counts that took `shareAfterMs` or longer also in `list_counts` for the other processes.
 */
export function createListCounts(opts: {
  database: Database;
  /** Counts that took at least this long are shared with other processes (0: every count). */
  shareAfterMs: number;
  maxEntries?: number;
  /** Told when storing a shared count failed (the List still answers). */
  onShareError?: (err: unknown) => void;
}): ListCounts {
  const { database } = opts;
  const { db } = database;
  const readVersion = database.prepare(
    db.selectFrom('list_versions').select(['version', 'row_count']).where('table_name', '=', '').where('scope_id', '=', '').compile().sql,
  );
  const readShared = database.prepare(
    db
      .selectFrom('list_counts')
      .select('total')
      .where('table_name', '=', '')
      .where('scope_id', '=', '')
      .where('query_key', '=', '')
      .where('version', '=', 0)
      .compile().sql,
  );
  const local = new LruCache<string, { version: number; total: number }>(opts.maxEntries ?? 10_000);
  // Concurrent first pages of one query and version (a burst of refreshes after a write) count once.
  const flights = new SingleFlight<number>();

  function remember(id: string, version: number, total: number): void {
    const known = local.get(id);
    // An older count finishing late must not replace a newer one.
    if (!known || known.version <= version) local.set(id, { version, total });
  }

  async function share(key: ListCountKey, queryKey: string, version: number, total: number): Promise<void> {
    const row = { table_name: key.table, scope_id: key.scope, query_key: queryKey, version, total };
    await db
      .insertInto('list_counts')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['table_name', 'scope_id', 'query_key'])
          .doUpdateSet({ version, total })
          .where('list_counts.version', '<', version),
      )
      .execute();
    // Counts of this scope under older versions can no longer be reached.
    await db.deleteFrom('list_counts').where('table_name', '=', key.table).where('scope_id', '=', key.scope).where('version', '<', version).execute();
  }

  async function countAt(key: ListCountKey, id: string, version: number, compute: () => Promise<number>): Promise<number> {
    const queryKey = createHash('sha256').update(key.query).digest('base64url').slice(0, 22);
    const [shared] = await readShared([key.table, key.scope, queryKey, version]);
    if (shared) {
      remember(id, version, Number(shared.total));
      return Number(shared.total);
    }
    const started = performance.now();
    const total = await compute();
    remember(id, version, total);
    if (performance.now() - started >= opts.shareAfterMs) {
      share(key, queryKey, version, total).catch((err) => opts.onShareError?.(err));
    }
    return total;
  }

  return {
    async count(key, compute, countOpts) {
      const [row] = await readVersion([key.table, key.scope]);
      // Kept exact by the triggers in every writing transaction, read in the same statement as the
      // counter (committed state). Never negative unless something bypassed the triggers.
      if (countOpts?.allRows && row && row.row_count !== null && Number(row.row_count) >= 0) return Number(row.row_count);
      // No row yet: the collection was never written under this scope since counters exist.
      const version = row ? Number(row.version) : 0;
      const id = `${key.table}\n${key.scope}\n${key.query}`;
      const known = local.get(id);
      if (known && known.version === version) return known.total;
      return flights.do(`${id}\n${version}`, async () => ({ value: await countAt(key, id, version, compute) }));
    },
  };
}
