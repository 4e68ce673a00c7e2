import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';

/** `npm start`: migrate, serve every surface on one port, run background work in-process unless WORKER=off. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database);
  const { app, operations } = await buildApp({
    config,
    database,
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'password', 'api_key', 'signup_token'] },
  });
  const worker = config.worker === 'inline' ? operations.startWorker() : undefined;
  const address = await app.listen({ port: config.port, host: config.host });
  // With PORT=0 the real port is only known now.
  if (!process.env.PUBLIC_BASE_URL && config.port === 0) config.publicBaseUrl = address;
  console.log(`listening on ${address}`);

  const shutdown = async () => {
    await app.close();
    await worker?.stop();
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
