import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { DB } from './schema.js';
import {
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
} from 'kysely';

/**
 * Heavy reads (List pages, exact counts) on SQLite run on worker threads with read-only
 * connections of their own, so a 100 ms COUNT(*) never blocks the event loop that serves every
 * other request. WAL mode lets these readers run beside the single writer; they see every
 * committed write.
 */

// Runs inside each worker: one read-only connection, a bounded statement cache.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.modulePath);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.exec('PRAGMA busy_timeout = 5000');
db.exec('PRAGMA cache_size = -' + Number(workerData.cacheKib));
const statements = new Map();
parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statements.size >= 256) statements.delete(statements.keys().next().value);
      statements.set(sql, statement);
    }
    if (!statement.reader) throw new Error('the read pool only runs queries that return rows');
    parentPort.postMessage({ id, rows: statement.all(parameters) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: error.message, code: error.code } });
  }
});
`;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(error: Error): void;
}

class ReaderThread {
  readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;

  constructor(file: string, modulePath: string, cacheKib: number) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, modulePath, cacheKib } });
    this.worker.unref();
    this.worker.on('message', (message: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error) waiter.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiter.resolve(message.rows ?? []);
    });
    this.worker.on('error', (error) => {
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    });
  }

  get load(): number {
    return this.pending.size;
  }

  run<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // why (the cast): Kysely's driver contract; the query's builder knows the row type, the thread answers SQLite's rows.
      this.pending.set(id, { resolve: (rows) => resolve({ rows: rows as R[] }), reject });
      this.worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
  }
}

class ReaderDriver implements Driver {
  private threads: ReaderThread[] = [];

  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly cacheKib: number,
  ) {}

  async init(): Promise<void> {
    const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
    this.threads = Array.from({ length: this.size }, () => new ReaderThread(this.file, modulePath, this.cacheKib));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // The least busy thread; ties go to the first.
    const thread = this.threads.reduce((a, b) => (b.load < a.load ? b : a));
    return {
      executeQuery: <R>(query: CompiledQuery) => thread.run<R>(query),
      streamQuery: () => {
        throw new Error('streaming is not supported on the read pool');
      },
    };
  }

  async beginTransaction(): Promise<void> {
    throw new Error('the read pool does not run transactions; use the writer');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
    this.threads = [];
  }
}

/** A Kysely instance whose queries run on `size` reader threads over the SQLite file. */
/** `size` reader threads on `file`, each with a page cache of `cacheKib` KiB. */
export function createSqliteReaders(file: string, size: number, cacheKib: number): Kysely<DB> {
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new ReaderDriver(file, size, cacheKib),
      createIntrospector: (db) => new SqliteIntrospector(db),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
}
