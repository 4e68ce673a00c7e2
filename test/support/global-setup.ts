/**
 * Global setup of the `postgres` project: get a PostgreSQL server (TEST_DATABASE_URL, else a throwaway one),
 * build the migrated template database every test file clones, and tear both down at the end.
 * Without a server the project's tests are skipped loudly; with REQUIRE_POSTGRES=1 the run fails instead.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createDatabase, databaseUrl, databasesWithPrefix, dropDatabase, withAdminClient } from './postgres-admin.js';
import { postgresSkippedBanner, SKIPPED_ENV, type PostgresContext } from './provided-context.js';
import { findPostgresBinaries, startThrowawayPostgres, type RunningPostgres } from './postgres-server.js';

function requirePostgres(): boolean {
  const value = process.env.REQUIRE_POSTGRES ?? '';
  return value !== '' && value !== '0' && value.toLowerCase() !== 'false';
}

/** Migrates a new database `templateName` with the current code, then closes every connection to it. */
async function buildTemplate(adminUrl: string, templateName: string): Promise<void> {
  await createDatabase(adminUrl, templateName);
  const database = openDatabase({ databaseUrl: databaseUrl(adminUrl, templateName), dataDir: tmpdir() });
  try {
    await migrateToLatest(database);
  } finally {
    // Closing the pool ends its connections; CREATE DATABASE ... TEMPLATE needs the template to be idle.
    await database.close();
  }
  // Nothing may connect to the template from now on (e.g. autovacuum on a shared server), so clones never wait.
  await withAdminClient(adminUrl, (client) => client.query(`ALTER DATABASE "${templateName}" WITH ALLOW_CONNECTIONS false`));
}

/** Vitest global setup for the postgres project; the returned function is its teardown. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Unique per run so that concurrent runs against one TEST_DATABASE_URL server never touch each other's databases.
  const databasePrefix = `vt_${randomBytes(4).toString('hex')}_`;
  const templateName = `${databasePrefix}template`;

  const skip = (reason: string): (() => Promise<void>) => {
    if (requirePostgres()) throw new Error(`REQUIRE_POSTGRES is set, but PostgreSQL is unavailable: ${reason}`);
    // The banner carries the first line; details (e.g. the server log) follow it.
    const [headline = reason, ...details] = reason.split('\n');
    const banner = postgresSkippedBanner(headline);
    const rule = '!'.repeat(Math.min(banner.length, 120));
    process.stderr.write(`\n${rule}\n${banner}\n${rule}\n${details.length ? details.join('\n') + '\n' : ''}\n`);
    process.env[SKIPPED_ENV] = headline; // the reporter repeats the banner next to the final totals
    const context: PostgresContext = { available: false, reason };
    project.provide('postgres', context);
    return async () => {};
  };

  let server: RunningPostgres | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    const binaries = findPostgresBinaries();
    if (!binaries) {
      const where = process.env.TEST_PG_BINDIR ?? '/usr/lib/postgresql/*/bin or PATH';
      return skip(`no PostgreSQL server binaries (initdb, pg_ctl) in ${where}, and TEST_DATABASE_URL is unset`);
    }
    try {
      server = await startThrowawayPostgres(binaries);
    } catch (error) {
      return skip(`could not start a throwaway PostgreSQL server: ${(error as Error).message}`);
    }
    adminUrl = server.url;
  }

  const teardown = async () => {
    try {
      // Test files drop their own databases; this catches those that failed before cleanup ran.
      if (!server) for (const name of await databasesWithPrefix(adminUrl, databasePrefix)) await dropDatabase(adminUrl, name);
    } finally {
      await server?.stop();
    }
  };

  try {
    await buildTemplate(adminUrl, templateName);
  } catch (error) {
    // A broken migration or an unusable TEST_DATABASE_URL is a real failure, not a reason to skip.
    await teardown().catch(() => {});
    throw error;
  }

  const context: PostgresContext = { available: true, adminUrl, templateName, databasePrefix };
  project.provide('postgres', context);
  return teardown;
}
