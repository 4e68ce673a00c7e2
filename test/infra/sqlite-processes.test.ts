/**
 * SQLite shared by several processes (a server and `npm run worker`s on one file): a write
 * transaction that reads first must not fail when another process commits in between. Deferred
 * `BEGIN` would upgrade its read snapshot to a write lock and get SQLITE_BUSY at once (the busy
 * timeout does not apply to that upgrade); the platform's writer starts transactions IMMEDIATE.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { dynamic } from '../../src/platform/db/dynamic.js';
import { describeOnly, freshDatabase, type FreshDatabase } from '../support/databases.js';

// The other "process": its own connection on its own thread, committing short writes in a loop.
const OTHER_WRITER = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file);
db.pragma('busy_timeout = 5000');
const bump = db.prepare('UPDATE counters SET n = n + 1 WHERE id = ?');
let stop = false;
parentPort.on('message', () => { stop = true; });
(function loop() {
  if (stop) { db.close(); parentPort.postMessage('stopped'); return; }
  db.transaction(() => bump.run('other'))();
  setImmediate(loop);
})();
parentPort.postMessage('started');
`;

describeOnly('sqlite')('SQLite with several writer processes', () => {
  let fresh: FreshDatabase;
  let database: Database;
  beforeAll(async () => {
    fresh = await freshDatabase();
    database = openDatabase({ dataDir: fresh.dataDir, sqliteFile: join(fresh.dataDir, 'shared.sqlite') });
    await sql`CREATE TABLE counters (id text PRIMARY KEY, n integer NOT NULL)`.execute(database.db);
    await sql`INSERT INTO counters VALUES ('mine', 0), ('other', 0)`.execute(database.db);
  });
  afterAll(async () => {
    await database?.close();
    await fresh?.cleanup();
  });

  it('read-then-write transactions all commit while another process keeps writing', async () => {
    const worker = new Worker(OTHER_WRITER, {
      eval: true,
      workerData: { file: join(fresh.dataDir, 'shared.sqlite'), driver: createRequire(import.meta.url).resolve('better-sqlite3') },
    });
    await new Promise((resolve) => worker.once('message', resolve));
    const rounds = 200;
    const failures: string[] = [];
    for (let i = 0; i < rounds; i++) {
      try {
        // `counters` is a scratch table, outside the schema.
        await dynamic(database.db).transaction().execute(async (trx) => {
          const row = await trx.selectFrom('counters').select('n').where('id', '=', 'mine').executeTakeFirstOrThrow();
          // Give the other writer a chance to commit between this read and the write below.
          await new Promise((resolve) => setTimeout(resolve, 1));
          await trx.updateTable('counters').set({ n: Number(row.n) + 1 }).where('id', '=', 'mine').execute();
        });
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
    worker.postMessage('stop');
    await new Promise((resolve) => worker.once('message', resolve));
    const counters = await dynamic(database.db).selectFrom('counters').selectAll().orderBy('id').execute();
    expect(failures).toEqual([]);
    expect(counters.find((c) => c.id === 'mine')?.n).toBe(rounds);
    expect(Number(counters.find((c) => c.id === 'other')?.n)).toBeGreaterThan(0);
  });
});
