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
 *   of `cache_versions`, read again only when the file may have changed (`Database.dataVersion`:
 *   after every write of this process, and when `PRAGMA data_version`, checked once per event-loop
 *   turn, says another connection committed), so a lookup is an in-memory compare: this process's
 *   writes are seen by its next lookup, another process's from the next turn on.
 * - PostgreSQL: the trigger sends `NOTIFY cache_invalidation, '<topic>'` at commit; every process
 *   listens on one connection (application_name LISTENER_NAME) and raises its in-memory version of
 *   the topic, so a lookup is an in-memory compare too. While that connection is down (before it is
 *   up, after it fails, until it is back) the version changes on every call: nothing cached is
 *   trusted. Delivery to the other processes is asynchronous, so a writing request answers only after
 *   `settle()`: it notifies `settle:<nonce>` and waits until every listening process has answered
 *   `ack:<nonce>` (each does once it has handled every notification before it, which arrive in commit
 *   order), bounded by SETTLE_TIMEOUT_MS. The caller's next request, on any process, sees the write.
 */
export type CacheTopic = 'auth' | 'roots' | 'hosts';

export const CACHE_INVALIDATION_CHANNEL = 'cache_invalidation';
/** `application_name` of the listening connections: a settle counts them to know how many acks to await. */
const LISTENER_NAME = 'siteplatform-cache-invalidation';

export interface CacheInvalidation {
  /** The current version of `topic`; an entry read under another version is stale. */
  version(topic: CacheTopic): number | Promise<number>;
  /**
   * PostgreSQL: resolves once every listening process has handled every notification committed
   * before the call (bounded). SQLite: at once.
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
  // Settles of this process awaiting acks: nonce → count of acks seen, and its resolver.
  const settling = new Map<string, { acks: number; expected: number; done(): void }>();
  let send: ((payload: string) => Promise<void>) | undefined;
  let listening = false;
  let closed = false;
  let unsubscribe: (() => Promise<void>) | undefined;
  // Changes on every call while not listening: no entry matches it twice.
  let unlistened = 0;
  const bumpAll = () => {
    for (const t of TOPICS) versions.set(t, versions.get(t)! + 1);
  };

  const onMessage = (payload: string) => {
    if (payload.startsWith('settle:')) {
      // Every notification committed before this one has been handled here: say so.
      send?.(`ack:${payload.slice(7)}`).catch(() => undefined);
      return;
    }
    if (payload.startsWith('ack:')) {
      const waiting = settling.get(payload.slice(4));
      if (waiting && ++waiting.acks >= waiting.expected) waiting.done();
      return;
    }
    const topic = payload as CacheTopic;
    if (versions.has(topic)) versions.set(topic, versions.get(topic)! + 1);
    else bumpAll();
  };

  const listen = async (): Promise<void> => {
    try {
      unsubscribe = await subscribe(
        CACHE_INVALIDATION_CHANNEL,
        onMessage,
        () => {
          listening = false;
          send = undefined;
          bumpAll();
          for (const waiting of settling.values()) waiting.done();
          if (!closed) setTimeout(() => void listen(), RELISTEN_DELAY_MS).unref();
        },
        { applicationName: LISTENER_NAME, onReady: (sender) => (send = sender) },
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
      let done!: () => void;
      const received = new Promise<void>((resolve) => (done = resolve));
      const timer = setTimeout(done, SETTLE_TIMEOUT_MS);
      // Expected acks are set once the listeners are counted, in the statement that notifies.
      const waiting = { acks: 0, expected: Infinity, done };
      settling.set(nonce, waiting);
      try {
        const { rows } = await sql<{ listeners: number | string }>`select pg_notify(${CACHE_INVALIDATION_CHANNEL}, ${`settle:${nonce}`}),
          (select count(*) from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_NAME}) as listeners`.execute(database.db);
        waiting.expected = Math.max(1, Number(rows[0]?.listeners ?? 1));
        if (waiting.acks >= waiting.expected) done();
        await received;
      } finally {
        clearTimeout(timer);
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
  // The versions are read again only once the file may have changed (`Database.dataVersion`: this
  // process's writes at once, another process's commit from the next event-loop turn on), so a lookup
  // costs an in-memory compare and, with no write anywhere, no statement at all.
  let memo: { versions: Map<string, number>; data: number } | undefined;
  const dataVersion = database.dataVersion?.bind(database) ?? (() => NaN);
  const current = async (): Promise<Map<string, number>> => {
    const data = dataVersion();
    if (memo && memo.data === data) return memo.versions;
    read ??= database.prepare('select topic, version from cache_versions');
    const rows = await read([]);
    const versions = new Map(rows.map((r) => [String(r.topic), Number(r.version)]));
    // A write made while reading makes this reading unfit to reuse (it may predate the write's commit).
    if (dataVersion() === data) memo = { versions, data };
    return versions;
  };
  return {
    version(topic) {
      // Answered without a promise when nothing changed: the hot path is a compare.
      if (memo && memo.data === dataVersion()) return memo.versions.get(topic) ?? 0;
      return current().then((versions) => versions.get(topic) ?? 0);
    },
    settle: async () => {},
    close: async () => {},
  };
}
