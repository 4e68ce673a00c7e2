import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Database, PreparedRead } from './db/database.js';

/**
 * The one invalidation mechanism of every per-process cache whose answer another process's write can
 * change (issue 24). Writes announce a topic from database triggers (migration 2026-11-27-2100), so no
 * write path can forget to; a cache tags each entry with its topic's version when it reads the row
 * and trusts the entry only while the version is unchanged.
 *
 * - SQLite (one process owns the file, `npm run worker` may share it): the version is the topic's row
 *   of `cache_versions`, read with one cached point read (a few µs) when the entry is looked up. A
 *   write committed by any connection raises it, so the next lookup misses.
 * - PostgreSQL: the trigger sends `NOTIFY cache_invalidation, '<topic>'` at commit; every process
 *   listens on one connection and raises its in-memory version of the topic. While that connection is
 *   down (before it is up, after it fails, until it is back) the version changes on every call, so
 *   nothing cached is trusted. `settle()` lets a writing request answer only after its own process
 *   has received the notifications of its commit, which every other process receives at the same time.
 */
export type CacheTopic = 'auth' | 'roots' | 'hosts';

export const CACHE_INVALIDATION_CHANNEL = 'cache_invalidation';

export interface CacheInvalidation {
  /** The current version of `topic`; an entry read under another version is stale. */
  version(topic: CacheTopic): number | Promise<number>;
  /**
   * PostgreSQL: resolves once this process has received every notification committed before the call
   * (a NOTIFY of its own, awaited; bounded). SQLite: at once.
   */
  settle(): Promise<void>;
  close(): Promise<void>;
}

const TOPICS: readonly CacheTopic[] = ['auth', 'roots', 'hosts'];
const SETTLE_TIMEOUT_MS = 2_000;
const RELISTEN_DELAY_MS = 1_000;

/** Starts the mechanism for `database` (on PostgreSQL: listens before answering). */
export async function startCacheInvalidation(database: Database): Promise<CacheInvalidation> {
  if (!database.subscribe) return sqliteInvalidation(database);
  const subscribe = database.subscribe.bind(database);
  const versions = new Map<CacheTopic, number>(TOPICS.map((t) => [t, 0]));
  const settling = new Map<string, () => void>();
  let listening = false;
  let closed = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  // Changes on every call while not listening: no entry matches it twice.
  let unlistened = 0;
  const bumpAll = () => {
    for (const t of TOPICS) versions.set(t, versions.get(t)! + 1);
  };

  const listen = async (): Promise<void> => {
    try {
      unsubscribe = await subscribe(
        CACHE_INVALIDATION_CHANNEL,
        (payload) => {
          if (payload.startsWith('settle:')) return settling.get(payload.slice(7))?.();
          const topic = payload as CacheTopic;
          if (versions.has(topic)) versions.set(topic, versions.get(topic)! + 1);
          else bumpAll();
        },
        () => {
          listening = false;
          bumpAll();
          for (const done of settling.values()) done();
          if (!closed) setTimeout(() => void listen(), RELISTEN_DELAY_MS).unref();
        },
      );
      // Whatever was committed while nobody listened is unknown: start over.
      bumpAll();
      listening = !closed;
    } catch (err) {
      console.error(`cache invalidation: cannot listen (${(err as Error).message}); caches are bypassed until it can`);
      if (!closed) setTimeout(() => void listen(), RELISTEN_DELAY_MS).unref();
    }
  };
  await listen();

  return {
    version: (topic) => (listening ? versions.get(topic)! : -1 - unlistened++),
    async settle() {
      if (!listening) return;
      const nonce = randomUUID();
      const received = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, SETTLE_TIMEOUT_MS);
        settling.set(nonce, () => {
          clearTimeout(timer);
          resolve();
        });
      });
      try {
        await sql`select pg_notify(${CACHE_INVALIDATION_CHANNEL}, ${`settle:${nonce}`})`.execute(database.db);
        await received;
      } finally {
        settling.delete(nonce);
      }
    },
    async close() {
      closed = true;
      listening = false;
      await unsubscribe?.().catch(() => undefined);
    },
  };
}

function sqliteInvalidation(database: Database): CacheInvalidation {
  // Made on first use: the table does not exist before migrations ran.
  let read: PreparedRead | undefined;
  return {
    async version(topic) {
      read ??= database.prepare('select version from cache_versions where topic = ?');
      const rows = await read([topic]);
      return Number(rows[0]?.version ?? 0);
    },
    settle: async () => {},
    close: async () => {},
  };
}
