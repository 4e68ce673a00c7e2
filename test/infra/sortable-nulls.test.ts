/**
 * Keyset pages of a sortable field that may be null need `(col > x OR col IS NULL)`, which no index
 * can seek; a field that can never be null pages with a plain `col > x`. The engine decides from the
 * declaration (REQUIRED, a default, or `notNull`), so the declaration must agree with the column.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

async function notNullColumns(table: string): Promise<Set<string>> {
  const { db, dialect } = t.platform.deps.database;
  const rows =
    dialect.name === 'sqlite'
      ? (await sql<{ name: string; notnull: number }>`select name, "notnull" from pragma_table_info(${table})`.execute(db)).rows.filter((r) => r.notnull === 1)
      : (await sql<{ name: string }>`select column_name as name from information_schema.columns where table_name = ${table} and table_schema = current_schema() and is_nullable = 'NO'`.execute(db)).rows;
  return new Set(rows.map((r) => r.name));
}

describe('sortable fields and NULL', () => {
  it('declares every sortable field whose column is NOT NULL as never null, and none whose column allows NULL', async () => {
    const problems: string[] = [];
    for (const service of new Set(Object.values(t.platform.services))) {
      const decl = service.decl;
      if (decl.virtual) continue;
      const notNull = await notNullColumns(decl.table);
      for (const name of decl.sortable) {
        const field = decl.fields[name];
        if (!field) continue; // create_time / update_time
        const column = typeof field.column === 'string' ? field.column : name;
        const declaredNever = field.behavior?.includes('REQUIRED') || field.default !== undefined || field.notNull === true;
        if (notNull.has(column) && !declaredNever) problems.push(`${decl.collectionPath} ${name}: column is NOT NULL; declare notNull: true so its pages seek the index`);
        if (field.notNull && !notNull.has(column)) problems.push(`${decl.collectionPath} ${name}: declared notNull but the column allows NULL`);
      }
    }
    expect(problems).toEqual([]);
  });
});
