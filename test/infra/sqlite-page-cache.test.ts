/**
 * Idle memory (issue 24): every SQLite connection of a server, the writer and each reader thread,
 * keeps a page cache of SQLITE_PAGE_CACHE_KIB, not better-sqlite3's built-in 16 MB, which stays
 * allocated once a backlog or a List has filled it.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SQLITE_PAGE_CACHE_KIB, type Database } from '../../src/platform/db/database.js';
import { describeOnly, freshDatabase, type FreshDatabase } from '../support/databases.js';

describeOnly('sqlite')('SQLite page cache', () => {
  let fresh: FreshDatabase;
  let database: Database;
  beforeAll(async () => {
    // A server's database: the platform file, its writer and its reader threads.
    fresh = await freshDatabase();
    database = fresh.database;
  });
  afterAll(async () => {
    await fresh?.cleanup();
  });

  it('the writer connection and every reader thread cache at most SQLITE_PAGE_CACHE_KIB', async () => {
    expect(SQLITE_PAGE_CACHE_KIB).toBeLessThan(16_000);
    const cacheOf = async (db: Database['db']) => (await sql<{ cache_size: number }>`PRAGMA cache_size`.execute(db)).rows[0]?.cache_size;
    expect(await cacheOf(database.db)).toBe(-SQLITE_PAGE_CACHE_KIB);
    expect(database.read).not.toBe(database.db);
    // Reader threads are picked by load: several reads at once reach each of them.
    const answers = await Promise.all(Array.from({ length: 8 }, () => cacheOf(database.read)));
    expect(new Set(answers)).toEqual(new Set([-SQLITE_PAGE_CACHE_KIB]));
  });
});
