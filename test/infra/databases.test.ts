// Proves the test-database harness itself: each project gets its own dialect, migrated databases that do
// not see each other, and dialect helpers that round-trip booleans and JSON.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { migrations } from '../../src/migrations/index.js';
import { columnTypes } from '../../src/migrations/column-types.js';
import { dynamic } from '../../src/platform/db/dynamic.js';
import { databasesWithPrefix } from '../support/postgres-admin.js';
import { describeDb, freshDatabase, testDialect, type FreshDatabase } from '../support/databases.js';

describeDb('test database harness', () => {
  let fresh: FreshDatabase;
  beforeAll(async () => {
    fresh = await freshDatabase();
  });
  afterAll(() => fresh?.cleanup());

  it('runs the dialect of the current project', async () => {
    expect(process.env.TEST_DIALECT).toBe(testDialect());
    expect(fresh.dialect).toBe(testDialect());
    expect(fresh.database.dialect.name).toBe(testDialect());
    if (testDialect() === 'postgres') {
      const { rows } = await sql<{ version: string }>`select version() as version`.execute(fresh.database.db);
      expect(rows[0]?.version).toMatch(/^PostgreSQL /);
      expect(fresh.url).toMatch(/^postgres:\/\//);
    } else {
      const { rows } = await sql<{ version: string }>`select sqlite_version() as version`.execute(fresh.database.db);
      expect(rows[0]?.version).toMatch(/^3\./);
      expect(fresh.url).toBeUndefined();
    }
  });

  it('has every migration applied', async () => {
    const applied = await dynamic(fresh.database.db).selectFrom('kysely_migration').select('name').orderBy('name').execute();
    expect(applied.map((row) => row.name)).toEqual(Object.keys(migrations).sort());
    const tables = (await fresh.database.db.introspection.getTables()).map((table) => table.name);
    expect(tables).toEqual(expect.arrayContaining(['users', 'accounts', 'memberships', 'operations']));
  });

  it('gives each call a database of its own', async () => {
    const [a, b] = await Promise.all([freshDatabase(), freshDatabase()]);
    try {
      const now = Date.now();
      await a.database.db
        .insertInto('users')
        .values({ id: 'u1', email: 'only-in-a@example.test', password_hash: 'x', create_time: now, update_time: now })
        .execute();
      const inA = await a.database.db.selectFrom('users').select('email').execute();
      const inB = await b.database.db.selectFrom('users').select('email').execute();
      expect(inA).toEqual([{ email: 'only-in-a@example.test' }]);
      expect(inB).toEqual([]);
      expect(a.dataDir).not.toBe(b.dataDir);
      if (testDialect() === 'postgres') expect(a.url).not.toBe(b.url);
    } finally {
      await Promise.all([a.cleanup(), b.cleanup()]);
    }
  });

  it('clones concurrently and drops what it created', async () => {
    const many = await Promise.all(Array.from({ length: 6 }, () => freshDatabase()));
    await Promise.all(many.map((f) => f.cleanup()));
    if (testDialect() === 'postgres') {
      const postgres = inject('postgres');
      if (!postgres.available) throw new Error('unreachable: describeDb skips without PostgreSQL');
      const names = many.map((f) => new URL(f.url!).pathname.slice(1));
      const remaining = await databasesWithPrefix(postgres.adminUrl, postgres.databasePrefix);
      expect(remaining.filter((name) => names.includes(name))).toEqual([]);
      expect(remaining).toContain(postgres.templateName);
    }
  });

  it('round-trips booleans and JSON through the dialect helpers', async () => {
    const { dialect } = fresh.database;
    const db = dynamic(fresh.database.db); // a scratch table, outside the schema
    // A scratch table built with the migrations' own column types keeps this independent of the domain schema.
    await db.schema
      .createTable('harness_probe')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('flag', 'boolean', (c) => c.notNull())
      .addColumn('doc', columnTypes(db).json)
      .addColumn('tags', columnTypes(db).json)
      .execute();
    const doc = { name: 'Ünïcode ✓', tags: ['a', 'b'], nested: { n: 1.5, ok: true, none: null } };
    await db
      .insertInto('harness_probe')
      .values([
        { id: 1, flag: dialect.bool(true), doc: dialect.json(doc), tags: dialect.json(['a', 'b']) },
        { id: 2, flag: dialect.bool(false), doc: null, tags: dialect.json(['c']) },
      ])
      .execute();

    const rows = await db.selectFrom('harness_probe').selectAll().orderBy('id').execute();
    expect(rows.map((r) => Boolean(r.flag))).toEqual([true, false]);
    expect(dialect.readJson(rows[0].doc)).toEqual(doc);
    expect(dialect.readJson(rows[1].doc)).toBeNull();

    // The boolean binds as a filter value too, not only on insert.
    const flagged = await db.selectFrom('harness_probe').select('id').where('flag', '=', dialect.bool(true)).execute();
    expect(flagged).toEqual([{ id: 1 }]);
    const tagged = await db.selectFrom('harness_probe').select('id').where(dialect.arrayHas('tags', 'b')).execute();
    expect(tagged).toEqual([{ id: 1 }]);
  });
});
