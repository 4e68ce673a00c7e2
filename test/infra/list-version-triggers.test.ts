/**
 * A List count is reused until its collection's change counter moves, and only triggers move it
 * (docs/architecture.md, Lists): a listable table without them would serve stale totals. The
 * listable tables are derived from the registered resource services (stored, with List, not the
 * per-user accounts collection, not a tenant-less catalogue), plus the side tables their filters
 * read (`filterHas`), so a new area that forgets `addListRowCountTriggers` in its migration fails
 * here, named.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

interface Expected {
  table: string;
  /** The collection whose counts the table's rows change. */
  counts: string;
  /** The column the engine keys the count's change counter by. */
  scope: 'website_id' | 'account_id';
}

/** Every table whose writes change a cached List count, derived from the services. */
function listableTables(db: Kysely<any>): Expected[] {
  const expected = new Map<string, Expected>();
  for (const { decl } of new Set(Object.values(t.platform.services))) {
    if (decl.virtual || decl.catalogue || decl.table === 'accounts' || !decl.methods.includes('list')) continue;
    const scope = decl.collectionPath.includes('{website_id}') ? 'website_id' : 'account_id';
    expected.set(decl.table, { table: decl.table, counts: decl.table, scope });
    for (const field of Object.values(decl.fields)) {
      if (!field.filterHas) continue;
      const text = field.filterHas('x', { website_id: 'w', account_id: 'a' }).compile(db).sql;
      for (const [, side] of text.matchAll(/from "(\w+)"/gi)) {
        if (side !== decl.table) expected.set(side, { table: side, counts: decl.table, scope });
      }
    }
  }
  return [...expected.values()];
}

/** What is wrong with the table's change-counter triggers, one line each (empty: all there). */
async function problems(db: Kysely<any>, { table, counts, scope }: Expected): Promise<string[]> {
  const found: string[] = [];
  if (t.fresh.dialect === 'postgres') {
    const { rows } = await sql<{ def: string }>`
      SELECT pg_get_triggerdef(oid) AS def FROM pg_trigger WHERE tgrelid = to_regclass(${table}) AND NOT tgisinternal`.execute(db);
    const wanted = [
      `AFTER INSERT ON public.${table} REFERENCING NEW TABLE AS list_new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_by_${scope}('${counts}')`,
      `AFTER UPDATE ON public.${table} REFERENCING OLD TABLE AS list_old_rows NEW TABLE AS list_new_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_by_${scope}('${counts}')`,
      `AFTER DELETE ON public.${table} REFERENCING OLD TABLE AS list_old_rows FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_by_${scope}('${counts}')`,
      `BEFORE TRUNCATE ON public.${table} FOR EACH STATEMENT EXECUTE FUNCTION list_versions_bump_truncated('${counts}', '${scope}')`,
    ];
    for (const w of wanted) if (!rows.some((r) => r.def.includes(w))) found.push(`${table}: no trigger "${w}"`);
    return found;
  }
  // A virtual table (an FTS5 index) cannot carry triggers; triggers on the table it indexes keep
  // it, and those bump the counter.
  const virtual = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ${table} AND sql LIKE 'CREATE VIRTUAL TABLE%'`.execute(db);
  if (virtual.rows.length) return found;
  const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ${table}`.execute(db);
  // A side table bumps its collection's counter only; the collection's own table also keeps its row_count.
  const own = counts === table;
  for (const [event, row, change] of [['INSERT', 'NEW', '+ 1'], ['UPDATE', 'NEW', `+ (OLD.${scope} IS NOT NEW.${scope})`], ['DELETE', 'OLD', '+ -1']]) {
    const wanted = own
      ? [`INSERT INTO list_versions (table_name, scope_id, version, row_count) VALUES ('${counts}', ${row}.${scope}, 1,`, `row_count = row_count ${change};`]
      : [`INSERT INTO list_versions (table_name, scope_id, version) VALUES ('${counts}', ${row}.${scope}, 1)`];
    const bumps = (text: string) => new RegExp(`AFTER ${event} ON "?${table}"?`, 'i').test(text) && wanted.every((w) => text.includes(w));
    if (!rows.some((r) => bumps(r.sql))) found.push(`${table}: no AFTER ${event} trigger bumping list_versions ('${counts}', ${row}.${scope})${own ? ' and its row_count' : ''}`);
  }
  return found;
}

it('every listable table, and every side table a List filter reads, bumps its change counter on every write', async () => {
  const db = t.platform.deps.database.db;
  const tables = listableTables(db);
  // The derivation itself must find the areas' tables, or this test would prove nothing.
  expect(tables.map((e) => e.table)).toEqual(expect.arrayContaining(['projects', 'websites', 'cms_pages', 'customers', 'customer_tags', 'ai_executions']));
  const missing = (await Promise.all(tables.map((e) => problems(db, e)))).flat();
  expect(missing, 'listable tables without their list_versions triggers (add them with addListRowCountTriggers in a migration)').toEqual([]);
});
