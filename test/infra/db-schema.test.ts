/**
 * src/platform/db/schema.ts (the `DB` interface of `Kysely<DB>`) is generated from the migrated
 * database and committed; a migration that changes the schema without `npm run db:types` fails here.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateSchema, normaliseForSqlite } from '../../src/platform/db/schema-generator.js';
import { describeDb, freshDatabase, type FreshDatabase } from '../support/databases.js';

let fresh: FreshDatabase;
beforeAll(async () => {
  fresh = await freshDatabase();
});
afterAll(() => fresh?.cleanup());

describeDb('the typed database', () => {
  it('commits schema.ts as generated from the migrated database (run npm run db:types after a migration)', async () => {
    const committed = readFileSync(new URL('../../src/platform/db/schema.ts', import.meta.url), 'utf8');
    const generated = await generateSchema(fresh.database.db, fresh.dialect);
    // SQLite stores JSON columns as TEXT: it checks every other fact of the file PostgreSQL generates.
    expect(generated).toBe(fresh.dialect === 'postgres' ? committed : normaliseForSqlite(committed));
  });
});
