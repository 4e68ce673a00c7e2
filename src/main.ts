import { createServer } from 'node:net';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';

/** `npm start`: migrate, serve every surface on one port, run background work in-process unless WORKER=off. */
async function main(): Promise<void> {
  // PORT=0: pick the free port up front, so absolute URLs (Location, OpenAPI servers) carry the real one.
  if (process.env.PORT === '0') process.env.PORT = String(await freePort(process.env.HOST ?? '127.0.0.1'));
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

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
