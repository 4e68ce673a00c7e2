import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import SQLite from 'better-sqlite3';
import type pg from 'pg';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createSqliteReaders } from './sqlite-readers.js';
import { postgresDialect, sqliteDialect, type SqlDialect } from './dialect.js';
import type { DB } from './schema.js';

// The dialect seam lives in dialect.ts; its names stay importable from here.
export { SEARCH_MARK_START, SEARCH_MARK_END, SEARCH_CANDIDATES, SEARCH_MAX_TERMS, ftsWordsQuery, DRIVE_MAX_PAGES, ROW_CHECK_MIN_PAGES, COUNT_ROW_CHECK_MIN_MATCHES, textIndexTable, ftsSubstringQuery, escapeLike } from './dialect.js';
export type { DialectName, SqlDialect, BulkColumn, BulkConflict, FullTextQuery, FullTextHit, TextMatchPlan, SemiJoinPlan, SemiJoinInner } from './dialect.js';

/** How a subscription's connection shows itself to the server (`application_name`), and a way to send on it. */
export interface SubscribeOptions {
  applicationName?: string;
  /** Receives a function that sends `notify(channel, payload)` on the listening connection itself. */
  onReady?(send: (payload: string) => Promise<void>): void;
}

/** Runs one SQL text (compiled by Kysely) with new parameters, as a prepared statement. */
export type PreparedRead<R = Record<string, unknown>> = (parameters: readonly unknown[]) => Promise<R[]>;
/** The row type of a compiled Kysely query, for `prepare<CompiledRow<typeof q>>(q.sql)`. */
export type CompiledRow<Q> = Q extends CompiledQuery<infer R> ? R : never;
/** A row of a table named at run time, as the driver answers it. */
export type StoredRow = Record<string, unknown>;

/**
 * A connected database: `db` for writes and transactions, `read` for List pages, `count` for
 * exact counts (the one truly heavy read), and `prepare` for hot point reads.
 */
export interface Database {
  readonly db: Kysely<DB>;
  /** List pages. SQLite: reader threads; PostgreSQL: a pool of its own with a statement timeout. */
  readonly read: Kysely<DB>;
  /**
   * Exact counts. SQLite: the reader threads; PostgreSQL: a smaller pool (cores − 1), so a burst of
   * counts keeps at most that many cores busy while pages and cheap requests go on.
   */
  readonly count: Kysely<DB>;
  readonly dialect: SqlDialect;
  /**
   * A prepared statement for a hot read (Get by id). SQLite: a cached statement on the writer
   * connection (point reads are microseconds). PostgreSQL: a named statement, planned once per
   * connection; only for point lookups, never for LIKE filters, whose generic plans go bad.
   */
  prepare<R = StoredRow>(sql: string): PreparedRead<R>;
  /**
   * The row of `table` whose text `keyColumns` equal `keys` (in order), for the hottest point reads
   * (Get by id, Operation polling). SQLite: a cached statement, as `prepare`. PostgreSQL: lookups
   * made while the event loop handles one batch of I/O go to the server as one named statement over
   * `unnest` arrays, so a burst of Gets costs one round trip and one backend wake-up instead of one
   * each (the pg client and the backend, not the row, dominate a point read's cost).
   */
  pointReader(table: string, keyColumns: readonly string[]): (keys: readonly string[]) => Promise<StoredRow | undefined>;
  /**
   * Calls `onMessage` (with the notification's payload) whenever a process sends a notification on
   * `channel` (PostgreSQL LISTEN/NOTIFY), and `onLost` once if the listening connection fails
   * (notifications may then have been missed); undefined where the dialect has no such channel
   * (SQLite: workers poll).
   */
  subscribe?(channel: string, onMessage: (payload: string) => void, onLost?: (err: Error) => void, opts?: SubscribeOptions): Promise<() => Promise<void>>;
  /**
   * SQLite: how many writing statements (and commits) the writer connection has run; it moves with
   * every write this process makes, so an in-memory cache can tell "nothing written here since".
   */
  writeCount?(): number;
  /**
   * SQLite: a number that changes whenever anything committed to the file may have changed since it
   * was last asked: this process's writes (`writeCount`) or another connection's commit (`PRAGMA
   * data_version`, read at most once per event-loop turn). Equal answers mean nothing was written in
   * between, so a per-process cache of any read can be keyed by it (src/platform/http/answer-cache.ts).
   * Absent on PostgreSQL, where no such number is cheap to know.
   */
  dataVersion?(): number;
  /**
   * PostgreSQL: how many statements on this process's write pool announced a cache topic (the
   * cache-invalidation trigger's NOTICE, which reaches the connection before the statement completes).
   * A write request that did not move it changed nothing a cache holds and need not settle.
   */
  topicAnnouncements?(): number;
  close(): Promise<void>;
}

// The PostgreSQL client is loaded only by a process that uses PostgreSQL: some 10 MB of an
// embedded-SQLite server's idle memory otherwise (issue 24). CommonJS, so it loads synchronously.
let pgModule: typeof pg | undefined;
function loadPg(): typeof pg {
  if (pgModule) return pgModule;
  pgModule = createRequire(import.meta.url)('pg') as typeof pg;
  // int8 (COUNT, epoch-millisecond timestamps) as numbers: every value we store fits in 2^53.
  pgModule.types.setTypeParser(20, (v) => Number(v));
  return pgModule;
}

/**
 * Page cache of each SQLite connection, in KiB. better-sqlite3 builds SQLite with 16 MB per
 * connection, which fills once a backlog (the search indexer over 100 000 pages) or a List has read
 * that much and is never given back to the system (SQLite frees the pages to malloc, which keeps
 * them): ~16 MB of an idle server's memory per connection (issue 24). Point reads touch a few
 * interior pages, which 4 MB holds; the rest of the file stays in the system's file cache.
 */
export const SQLITE_PAGE_CACHE_KIB = 4096;

/** Opens PostgreSQL when `databaseUrl` is set, else the embedded SQLite file in `dataDir`. */
export function openDatabase(opts: { databaseUrl?: string; dataDir: string; sqliteFile?: string }): Database {
  if (opts.databaseUrl) {
    const pg = loadPg();
    const openPool = (max: number, options?: string) => {
      const pool = new pg.Pool({ connectionString: opts.databaseUrl, max, options });
      // An idle connection the server drops (restart, failover) must not crash the process: the pool replaces it.
      pool.on('error', (err) => console.error(`postgres: idle connection lost (${(err as { code?: string }).code ?? err.message})`));
      return pool;
    };
    // Notices are asked for whatever the server's default: the cache-invalidation trigger's tell a write request to settle.
    const pool = openPool(Number(process.env.PG_POOL_MAX ?? 10), '-c client_min_messages=notice');
    let announcements = 0;
    pool.on('connect', (client) => {
      client.on('notice', (notice) => {
        if (notice.message?.startsWith('cache_invalidation ')) announcements++;
      });
    });
    // Heavy reads run on one backend each (no parallel workers) and are cut off after a while, so a
    // burst of slow lists cannot occupy every core of the database server.
    const heavy = `-c max_parallel_workers_per_gather=${Number(process.env.PG_READ_PARALLEL_WORKERS ?? 0)} -c statement_timeout=${Number(process.env.PG_READ_TIMEOUT_MS ?? 30_000)}`;
    const readPool = openPool(Number(process.env.PG_READ_POOL_MAX ?? Math.max(2, availableParallelism())), heavy);
    const countPool = openPool(Number(process.env.PG_COUNT_POOL_MAX ?? Math.max(1, availableParallelism() - 1)), heavy);
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    const read = new Kysely<DB>({ dialect: new PostgresDialect({ pool: readPool }) });
    const count = new Kysely<DB>({ dialect: new PostgresDialect({ pool: countPool }) });
    const names = new Map<string, string>();
    return {
      db,
      read,
      count,
      dialect: postgresDialect,
      prepare<R>(text: string): PreparedRead<R> {
        let name = names.get(text);
        if (!name) names.set(text, (name = `hot_${names.size}`));
        return async (values) => (await pool.query({ name, text, values: [...values] })).rows;
      },
      pointReader: (table, keyColumns) => batchedPointReader(pool, table, keyColumns),
      topicAnnouncements: () => announcements,
      async subscribe(channel, onMessage, onLost, subscribeOptions) {
        // A connection of its own, outside the pools: LISTEN lasts as long as the session.
        const client = new pg.Client({ connectionString: opts.databaseUrl, application_name: subscribeOptions?.applicationName });
        let closing = false;
        let lost = false;
        const lose = (err: Error) => {
          if (closing || lost) return;
          lost = true;
          onLost?.(err);
        };
        client.on('error', (err) => {
          console.error(`postgres: listener connection lost (${err.message})`);
          lose(err);
        });
        client.on('end', () => lose(new Error('listener connection ended')));
        client.on('notification', (message) => {
          if (message.channel === channel) onMessage(message.payload ?? '');
        });
        await client.connect();
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        subscribeOptions?.onReady?.(async (payload) => {
          await client.query('select pg_notify($1, $2)', [channel, payload]);
        });
        return () => {
          closing = true;
          return client.end();
        };
      },
      close: async () => {
        await count.destroy();
        await read.destroy();
        await db.destroy();
      },
    };
  }
  const file = opts.sqliteFile ?? join(opts.dataDir, 'platform.sqlite');
  const connection = new SQLite(file);
  connection.exec('PRAGMA journal_mode = WAL');
  connection.exec('PRAGMA synchronous = NORMAL');
  connection.exec('PRAGMA foreign_keys = ON');
  connection.exec('PRAGMA busy_timeout = 5000');
  connection.exec(`PRAGMA cache_size = -${SQLITE_PAGE_CACHE_KIB}`);
  const writes = { count: 0 };
  const cached = withStatementCache(connection, writes);
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: cached }) });
  const prepare = <R = StoredRow>(sql: string): PreparedRead<R> => {
    const statement = cached.prepare<unknown[], R>(sql);
    return async (parameters) => {
      // While a transaction is open on the one writer connection its uncommitted rows would be
      // visible here: wait for it through Kysely's connection mutex instead.
      if (connection.inTransaction) return (await db.executeQuery<R>(CompiledQuery.raw(sql, [...parameters]))).rows;
      return statement.all([...parameters]);
    };
  };
  const pointReader = (table: string, keyColumns: readonly string[]) => {
    const statement = prepare(`select * from "${table}" where ${keyColumns.map((c) => `"${c}" = ?`).join(' and ')}`);
    return async (keys: readonly string[]) => (await statement(keys))[0];
  };
  // One core stays with the event loop: reader threads beyond that would starve cheap requests.
  const readers = file === ':memory:' ? 0 : Number(process.env.SQLITE_READERS ?? Math.max(1, availableParallelism() - 1));
  const writeCount = () => writes.count;
  const dataVersion = sqliteDataVersion(connection, writes);
  if (readers === 0) return { db, read: db, count: db, dialect: sqliteDialect, prepare, pointReader, writeCount, dataVersion, close: () => db.destroy() };
  const read = createSqliteReaders(file, readers, SQLITE_PAGE_CACHE_KIB);
  return {
    db,
    read,
    count: read,
    dialect: sqliteDialect,
    prepare,
    pointReader,
    writeCount,
    dataVersion,
    close: async () => {
      await read.destroy();
      await db.destroy();
    },
  };
}

/**
 * `Database.dataVersion` of SQLite. `PRAGMA data_version` moves when another connection (another
 * process, or a second connection of this one) commits; it does not move for this connection's own
 * commits, which `writes` counts. The pragma is read once per event-loop turn: within a turn only this
 * process's writes can change the file's content as seen here, and those are compared every time.
 */
function sqliteDataVersion(connection: SQLite.Database, writes: { count: number }): () => number {
  const pragma = connection.prepare('PRAGMA data_version').pluck();
  let generation = 0;
  let seenWrites = -1;
  let seenData: unknown;
  let fresh = false;
  const expire = () => {
    fresh = false;
  };
  return () => {
    if (fresh && seenWrites === writes.count) return generation;
    const data = pragma.get();
    if (data !== seenData || seenWrites !== writes.count) {
      generation++;
      seenData = data;
      seenWrites = writes.count;
    }
    if (!fresh) {
      fresh = true;
      setImmediate(expire);
    }
    return generation;
  };
}

// A batch larger than this is split: one statement's arrays stay small and a slow batch holds few callers.
const MAX_POINT_BATCH = 64;

/** PostgreSQL side of `Database.pointReader`: lookups queued in one event-loop turn share one statement. */
function batchedPointReader(pool: pg.Pool, table: string, keyColumns: readonly string[]) {
  const pg = loadPg();
  const columns = keyColumns.map((c) => pg.escapeIdentifier(c));
  const name = `point_${table}_${keyColumns.join('_')}`;
  // `with ordinality` numbers the keys, so each answer finds its caller; ids are text by convention.
  const text =
    `select k.point_slot, t.* from unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) ` +
    `with ordinality as k(${columns.join(', ')}, point_slot) ` +
    `join ${pg.escapeIdentifier(table)} t on ${columns.map((c) => `t.${c} = k.${c}`).join(' and ')}`;
  type Waiting = { keys: readonly string[]; resolve(row: StoredRow | undefined): void; reject(err: unknown): void };
  let queued: Waiting[] = [];

  function run(batch: Waiting[]): void {
    const values = keyColumns.map((_, column) => batch.map((w) => w.keys[column]));
    pool.query({ name, text, values }).then(
      (result) => {
        const bySlot = new Map<number, StoredRow>();
        for (const { point_slot: slot, ...row } of result.rows) bySlot.set(Number(slot), row);
        batch.forEach((w, i) => w.resolve(bySlot.get(i + 1)));
      },
      (err) => batch.forEach((w) => w.reject(err)),
    );
  }
  function flush(): void {
    const all = queued;
    queued = [];
    for (let i = 0; i < all.length; i += MAX_POINT_BATCH) run(all.slice(i, i + MAX_POINT_BATCH));
  }
  return (keys: readonly string[]) =>
    new Promise<StoredRow | undefined>((resolve, reject) => {
      // setImmediate runs after the poll phase: every request that arrived with this batch of I/O joins.
      if (queued.length === 0) setImmediate(flush);
      queued.push({ keys, resolve, reject });
    });
}

function countingWrites(statement: SQLite.Statement, writes: { count: number }): SQLite.Statement {
  // Every way of running it counts: a write that returns rows (`… RETURNING`) runs through `all`/`get`.
  const counted = (method: 'run' | 'all' | 'get' | 'iterate') => {
    const call = (statement[method] as (...args: unknown[]) => unknown).bind(statement);
    return (...args: unknown[]) => {
      try {
        return call(...args);
      } finally {
        writes.count++;
      }
    };
  };
  const methods = { run: counted('run'), all: counted('all'), get: counted('get'), iterate: counted('iterate') };
  return new Proxy(statement, {
    get(target, property) {
      if (Object.hasOwn(methods, property)) return methods[property as keyof typeof methods];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Kysely prepares every query anew; hot reads repeat the same few SQL texts, so prepared
 * statements are kept (bounded) and reused. better-sqlite3 runs them synchronously, so reuse is safe.
 */
function withStatementCache(connection: SQLite.Database, writes: { count: number }): SQLite.Database {
  const statements = new Map<string, SQLite.Statement>();
  return new Proxy(connection, {
    get(target, property, receiver) {
      if (property !== 'prepare') return Reflect.get(target, property, receiver);
      return (text: string) => {
        // Kysely opens transactions with a deferred `begin`. Every transaction on this connection may
        // write, and a deferred one that reads first gets SQLITE_BUSY at once (no busy wait) when
        // another process (`npm run worker` on the same file) committed meanwhile. IMMEDIATE takes
        // the write lock up front, waiting up to busy_timeout for it instead.
        const sql = /^begin$/i.test(text.trim()) ? 'begin immediate' : text;
        let statement = statements.get(sql);
        if (!statement) {
          statement = target.prepare(sql);
          // Writes (and commits) count themselves, for caches keyed by "nothing written since" (writeCount):
          // statements that may change the file (`… RETURNING` is a `reader` too) and those returning no
          // rows (BEGIN/COMMIT, which SQLite calls read-only).
          if (!statement.readonly || !statement.reader) statement = countingWrites(statement, writes);
          if (statements.size >= 512) statements.delete(statements.keys().next().value!);
          statements.set(sql, statement);
        }
        return statement;
      };
    },
  });
}
