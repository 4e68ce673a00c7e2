/**
 * Per-test-file databases for whichever dialect the current vitest project runs (TEST_DIALECT).
 *
 *   let fresh: FreshDatabase;
 *   beforeAll(async () => { fresh = await freshDatabase(); });
 *   afterAll(() => fresh.cleanup());
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, inject } from 'vitest';
import { openDatabase, type Database, type DialectName } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { createDatabase, databaseUrl, dropDatabase } from './postgres-admin.js';
import type { PostgresContext } from './provided-context.js';

/** A migrated database of its own, plus a private temp dir; `cleanup` closes and deletes both. */
export interface FreshDatabase {
  database: Database;
  dialect: DialectName;
  /** PostgreSQL only: the URL of this database (e.g. DATABASE_URL for a server under test). */
  url?: string;
  /** A new empty-but-for-SQLite temp dir, usable as DATA_DIR (media blobs, generated secrets). */
  dataDir: string;
  cleanup(): Promise<void>;
}

/** The dialect of the current vitest project (`sqlite` unless TEST_DIALECT=postgres). */
export function testDialect(): DialectName {
  return process.env.TEST_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
}

function postgresContext(): PostgresContext {
  // `inject` yields undefined outside the postgres project, whose global setup is the only provider.
  return inject('postgres') ?? { available: false, reason: 'the postgres global setup did not run (not in the postgres project)' };
}

/** Whether a PostgreSQL server with the migrated template is available to this run. */
export function postgresAvailable(): boolean {
  return postgresContext().available;
}

/** Whether the current project's database can be had (SQLite always; PostgreSQL when global setup got a server). */
export function databaseAvailable(): boolean {
  return testDialect() === 'sqlite' || postgresAvailable();
}

/**
 * `describe`, skipped when the current project's database is unavailable. The postgres project's runner already
 * skips whole files in that case; this is for blocks that must also opt out when used outside that runner.
 */
export const describeDb = describe.skipIf(!databaseAvailable());

/** `describe` that runs only in the given dialect's project (for dialect-specific behaviour). */
export function describeOnly(dialect: DialectName) {
  return describe.runIf(testDialect() === dialect && databaseAvailable());
}

/** Opens a new, fully migrated database of the current dialect that no other test file sees. */
export async function freshDatabase(): Promise<FreshDatabase> {
  const dialect = testDialect();
  // Under the run's temp root (deleted at the end of the run) when there is one, so leaks do not outlive the run.
  const dataDir = mkdtempSync(join(inject('tempRoot') ?? tmpdir(), `${dialect}-`));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  try {
    return dialect === 'postgres' ? await freshPostgres(dataDir, removeDir) : await freshSqlite(dataDir, removeDir);
  } catch (error) {
    removeDir();
    throw error;
  }
}

async function freshSqlite(dataDir: string, removeDir: () => void): Promise<FreshDatabase> {
  const database = openDatabase({ dataDir });
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  let cleaned = false;
  return {
    database,
    dialect: 'sqlite',
    dataDir,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await database.close();
      removeDir();
    },
  };
}

async function freshPostgres(dataDir: string, removeDir: () => void): Promise<FreshDatabase> {
  const context = postgresContext();
  if (!context.available) throw new Error(`PostgreSQL is unavailable: ${context.reason}`);
  // Cloning the template migrated at suite start is far faster than migrating each database.
  const name = `${context.databasePrefix}${randomBytes(6).toString('hex')}`;
  await createDatabase(context.adminUrl, name, context.templateName);
  const url = databaseUrl(context.adminUrl, name);
  const database = openDatabase({ databaseUrl: url, dataDir });
  let cleaned = false;
  return {
    database,
    dialect: 'postgres',
    url,
    dataDir,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      try {
        await database.close();
        await dropDatabase(context.adminUrl, name);
      } finally {
        removeDir();
      }
    },
  };
}
