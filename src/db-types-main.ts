import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { generateSchema, normaliseForSqlite } from './platform/db/schema-generator.js';
import { createDatabase, databaseUrl, dropDatabase } from '../test/support/postgres-admin.js';

/**
 * `npm run db:types`: migrates a throwaway PostgreSQL database (on the server of DATABASE_URL, which
 * must allow CREATE DATABASE) and a throwaway SQLite file, writes src/platform/db/schema.ts from
 * PostgreSQL and checks that SQLite agrees with it. PostgreSQL is the source because its catalog
 * states JSON columns, which SQLite stores as TEXT.
 */
async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error('set DATABASE_URL to a PostgreSQL server (a throwaway database is created on it)');
  const dataDir = mkdtempSync(join(tmpdir(), 'db-types-'));
  const name = `db_types_${randomBytes(6).toString('hex')}`;
  try {
    await createDatabase(adminUrl, name);
    const postgres = openDatabase({ databaseUrl: databaseUrl(adminUrl, name), dataDir });
    let text: string;
    try {
      await migrateToLatest(postgres);
      text = await generateSchema(postgres.db, 'postgres');
    } finally {
      await postgres.close();
    }
    const sqlite = openDatabase({ dataDir });
    try {
      await migrateToLatest(sqlite);
      const fromSqlite = await generateSchema(sqlite.db, 'sqlite');
      if (fromSqlite !== normaliseForSqlite(text)) {
        const [a, b] = [join(tmpdir(), 'schema.postgres.ts'), join(tmpdir(), 'schema.sqlite.ts')];
        writeFileSync(a, normaliseForSqlite(text));
        writeFileSync(b, fromSqlite);
        throw new Error(`SQLite and PostgreSQL disagree on the schema (a column type, nullability or default): diff ${a} ${b}`);
      }
    } finally {
      await sqlite.close();
    }
    writeFileSync(new URL('../../src/platform/db/schema.ts', import.meta.url), text);
    console.log('wrote src/platform/db/schema.ts');
  } finally {
    await dropDatabase(adminUrl, name);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
