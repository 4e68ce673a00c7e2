import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { createOperations } from '../../src/platform/jobs/operations.js';
import { describeOnly, freshDatabase, type FreshDatabase } from '../support/databases.js';

let fresh: FreshDatabase;
let otherProcessDb: Database;
beforeAll(async () => {
  fresh = await freshDatabase();
  // A second connection set, as a separate `npm run worker` process would have.
  if (fresh.url) otherProcessDb = openDatabase({ databaseUrl: fresh.url, dataDir: fresh.dataDir });
});
afterAll(async () => {
  await otherProcessDb?.close();
  await fresh?.cleanup();
});

describeOnly('postgres')('new work reaches workers of other processes (LISTEN/NOTIFY)', () => {
  it('a worker that polls only once a minute runs an Operation committed elsewhere at once', async () => {
    const logger = pino({ level: 'silent' });
    const server = createOperations({ database: fresh.database, logger, workerId: 'server' });
    const worker = createOperations({ database: otherProcessDb, logger, workerId: 'worker' });
    const ran: string[] = [];
    worker.register('TEST_NOTIFY', { run: async (op) => void ran.push(op.id) });
    const loop = worker.startWorker({ concurrency: 1, pollMs: 60_000 });
    try {
      // Let the first poll find nothing and the LISTEN connection come up.
      await new Promise((r) => setTimeout(r, 300));
      const id = await fresh.database.db.transaction().execute((trx) =>
        server.enqueue(trx, { type: 'TEST_NOTIFY', accountId: 'a1' }, Date.now()),
      );
      for (let i = 0; i < 100 && !ran.includes(id); i++) await new Promise((r) => setTimeout(r, 50));
      expect(ran).toEqual([id]);
    } finally {
      await loop.stop();
    }
  });
});
