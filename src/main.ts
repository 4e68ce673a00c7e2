import { createServer } from 'node:net';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { releaseStartupMemory, releaseWhenIdle } from './platform/memory.js';

/** `npm start`: migrate, serve every surface on one port, run background work in-process unless WORKER=off. */
async function main(): Promise<void> {
  // PORT=0: pick the free port up front, so absolute URLs (Location, OpenAPI servers) carry the real one.
  if (process.env.PORT === '0') process.env.PORT = String(await freePort(process.env.HOST ?? '127.0.0.1'));
  const config = loadConfig();
  const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  await migrateToLatest(database);
  const { app, operations, mail } = await buildApp({
    config,
    database,
    logger: { level: config.logLevel, redact: ['req.headers.authorization', 'password', 'current_password', 'new_password', 'api_key', 'signup_token'] },
  });
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    // Taken between the start script's check and now (or started without it): one line, no stack.
    console.error(`port ${config.port} is already in use (set PORT)`);
    await app.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    process.exit(1);
  }
  const worker = config.worker === 'inline' ? operations.startWorker() : undefined;
  const mailWorker = config.worker === 'inline' ? mail.startWorker() : undefined;
  releaseStartupMemory();
  releaseWhenIdle(app.server);
  console.log(`listening on ${address}`);

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining: no new connections; in-flight requests finish, running Operations go back to the queue');
    // Requests still running after the timeout lose their connection; the process must end.
    const deadline = setTimeout(() => app.server.closeAllConnections(), config.shutdownTimeoutMs);
    deadline.unref();
    // Both at once: the listener closes while Operations are handed back at their next checkpoint (or,
    // still running at the timeout, directly), so another worker takes them now rather than after the lease.
    await Promise.all([app.close(), worker?.stop({ graceMs: config.shutdownTimeoutMs }), mailWorker?.stop()]);
    clearTimeout(deadline);
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
