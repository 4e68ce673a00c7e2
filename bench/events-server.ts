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
  const { app } = await buildApp({ config, database, logger: { level: config.logLevel }, recordEvents: process.env.BENCH_RECORD_EVENTS !== 'off' });
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
