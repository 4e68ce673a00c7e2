/**
 * The server of the events bench (bench/events.ts): `src/main.ts`'s startup, but built with
 * `recordEvents` as BENCH_RECORD_EVENTS says (`off`: the engine records no events), so the same
 * writes can be measured with and without them. A bench instrument only: operators run `main.js`.
 */
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/database.js';
import { migrateToLatest } from '../src/platform/db/migrate.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database);
  const { app, deps } = await buildApp({ config, database, logger: { level: config.logLevel }, recordEvents: process.env.BENCH_RECORD_EVENTS !== 'off' });
  // Wall time spent inside `events.record` (the event's INSERT, its counter trigger, the subscribers),
  // read by the suite before and after a round: its share of the writes' time.
  const spent = { recordMs: 0, records: 0 };
  const record = deps.events.record.bind(deps.events);
  deps.events.record = async (...args) => {
    const started = performance.now();
    try {
      return await record(...args);
    } finally {
      spent.recordMs += performance.now() - started;
      spent.records += 1;
    }
  };
  app.get('/_bench/events', async () => spent);
  const address = await app.listen({ port: 0, host: config.host });
  console.log(`listening on ${address}`);
  const stop = async () => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
