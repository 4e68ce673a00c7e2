import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';

/** `npm run worker`: background work only, no HTTP; run several against one PostgreSQL database. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database);
  // The same composition root as the server, so handlers are registered once; nothing listens.
  const { app, operations, mail } = await buildApp({ config, database, logger: { level: config.logLevel } });
  const worker = operations.startWorker({ concurrency: Number(process.env.WORKER_CONCURRENCY ?? 4) });
  const mailWorker = mail.startWorker();
  app.log.info('worker started');
  // Running Operations go back to the queue at their next checkpoint (directly after SHUTDOWN_TIMEOUT_MS),
  // so another worker takes them at once instead of after their lease.
  const shutdown = async () => {
    await Promise.all([worker.stop({ graceMs: config.shutdownTimeoutMs }), mailWorker.stop()]);
    await mail.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
