/**
 * An unfiltered List's `total_size` (SPEC 4.2) is the exact row count the change-counter triggers
 * keep in `list_versions.row_count` per (collection table, scope), in the writing transaction
 * (docs/architecture.md, Lists): no count query runs for it. The count must stay exact through every
 * kind of write (API, raw SQL, multi-row statements, foreign-key cascades, rows moving between
 * scopes, TRUNCATE), side tables must not change it, and the migration that introduced it must have
 * counted the rows that existed before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Migrator, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrations } from '../../src/migrations/index.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { describeOnly, testDialect } from '../support/databases.js';
import { API, createAccount, createProject, createWebsite, expectNoBody, expectStatus } from '../support/fixtures.js';
import { createDatabase, databaseUrl, dropDatabase } from '../support/postgres-admin.js';

let t: TestApp;
let alice: TestUser;
let db: Kysely<any>;
let site: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
  db = t.platform.deps.database.db;
  site = `${API}/websites/${alice.websiteId}`;
});
afterAll(() => t?.close());

/** total_size of a first page. */
async function total(url: string, filter?: string): Promise<number> {
  const query = new URLSearchParams({ page_size: '1', ...(filter ? { filter } : {}) });
  return Number(expectStatus(await t.request('GET', `${url}?${query}`, { token: alice.token }), 200).total_size);
}

async function rowsOf(table: string, scope: 'website_id' | 'account_id', id: string, on: Kysely<any> = db): Promise<number> {
  const row = await on.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where(scope, '=', id).executeTakeFirstOrThrow();
  return Number(row.n);
}

async function counter(table: string, scope: string, on: Kysely<any> = db): Promise<{ version: number; rowCount: number | null } | undefined> {
  const row = await on.selectFrom('list_versions').select(['version', 'row_count']).where('table_name', '=', table).where('scope_id', '=', scope).executeTakeFirst();
  return row && { version: Number(row.version), rowCount: row.row_count === null ? null : Number(row.row_count) };
}

/** The tables that keep their own row_count (not side tables), with their scope column, from the catalog. */
async function countedTables(on: Kysely<any>, dialect: string): Promise<Array<{ table: string; scope: string }>> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{ table: string; def: string }>`
      SELECT c.relname AS table, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND t.tgname = c.relname || '_list_versions_insert'`.execute(on);
    return rows.flatMap(({ table, def }) => {
      const [, scope, counts] = /list_versions_bump_by_(\w+)\('(\w+)'\)/.exec(def) ?? [];
      return counts === table ? [{ table, scope }] : [];
    });
  }
  const { rows } = await sql<{ table: string; sql: string }>`
    SELECT tbl_name AS "table", sql FROM sqlite_master WHERE type = 'trigger' AND name = tbl_name || '_list_versions_insert'`.execute(on);
  return rows.flatMap(({ table, sql: text }) => {
    const [, counts, scope] = /VALUES \('(\w+)', NEW\.(\w+), 1, 1\)/.exec(text) ?? [];
    return counts === table ? [{ table, scope }] : [];
  });
}

/** Every (table, scope) whose row_count is not its number of rows, one line each (empty: all exact). */
async function drift(on: Kysely<any>, dialect: string): Promise<string[]> {
  const found: string[] = [];
  const tables = await countedTables(on, dialect);
  expect(tables.map((x) => x.table)).toEqual(expect.arrayContaining(['customers', 'projects', 'websites', 'cms_pages', 'blog_categories']));
  for (const { table, scope } of tables) {
    const actual = new Map<string, number>();
    const { rows } = await sql<{ s: string; n: unknown }>`SELECT ${sql.ref(scope)} AS s, count(*) AS n FROM ${sql.table(table)} GROUP BY ${sql.ref(scope)}`.execute(on);
    for (const r of rows) actual.set(r.s, Number(r.n));
    const kept = await on.selectFrom('list_versions').select(['scope_id', 'row_count']).where('table_name', '=', table).execute();
    for (const k of kept) {
      const n = actual.get(k.scope_id) ?? 0;
      if (k.row_count === null || Number(k.row_count) !== n) found.push(`${table} ${k.scope_id}: row_count ${k.row_count}, rows ${n}`);
      actual.delete(k.scope_id);
    }
    for (const [s, n] of actual) found.push(`${table} ${s}: no counter row, rows ${n}`);
  }
  return found;
}

let n = 0;
const customer = async (body: Record<string, unknown> = {}) =>
  expectStatus(await t.request('POST', `${site}/customers`, { token: alice.token, body: { email: `counted${++n}@example.com`, password: 'secret-123', ...body } }), 201);

describe('the unfiltered total_size is the kept row count', () => {
  it('follows a deliberately corrupted row_count (no count query runs), counts when it is NULL, and filtered lists still count', async () => {
    await customer();
    await customer();
    const customers = `${site}/customers`;
    const real = await rowsOf('customers', 'website_id', alice.websiteId);
    expect(await total(customers)).toBe(real);
    const set = (value: unknown) =>
      db.updateTable('list_versions').set({ row_count: value }).where('table_name', '=', 'customers').where('scope_id', '=', alice.websiteId).execute();
    try {
      await set(real + 1000);
      expect(await total(customers)).toBe(real + 1000);
      // A filter matching every row is counted, not read from row_count.
      expect(await total(customers, 'email:"@"')).toBe(real);
      await set(null);
      expect(await total(customers)).toBe(real);
    } finally {
      await set(real);
    }
    expect(await total(customers)).toBe(real);
  });

  it('is used for an account-scoped collection, but not for a project-scoped one keyed by account (websites)', async () => {
    const projects = `${API}/accounts/${alice.accountId}/projects`;
    const projectId = String(expectStatus(await t.request('GET', `${site}`, { token: alice.token }), 200).parent).split('/')[1];
    const websites = `${API}/projects/${projectId}/websites`;
    const realProjects = await rowsOf('projects', 'account_id', alice.accountId);
    const realWebsites = await total(websites);
    const bump = (table: string, by: number) =>
      db
        .updateTable('list_versions')
        .set({ row_count: sql`row_count + ${by}` })
        .where('table_name', '=', table)
        .where('scope_id', '=', alice.accountId)
        .execute();
    try {
      await bump('projects', 500);
      await bump('websites', 500);
      expect(await total(projects)).toBe(realProjects + 500);
      expect(await total(websites)).toBe(realWebsites);
    } finally {
      await bump('projects', -500);
      await bump('websites', -500);
    }
    expect(await total(projects)).toBe(realProjects);
  });
});

describe('the kept row count stays exact', () => {
  it('through Create and Delete over the API', async () => {
    const customers = `${site}/customers`;
    const before = await total(customers);
    const a = await customer();
    const b = await customer({ tags: ['vip'] });
    expect(await total(customers)).toBe(before + 2);
    expectNoBody(await t.request('DELETE', `${API}/${a.name}`, { token: alice.token }), 204);
    expect(await total(customers)).toBe(before + 1);
    expectNoBody(await t.request('DELETE', `${API}/${b.name}`, { token: alice.token }), 204);
    expect(await total(customers)).toBe(before);
    expect(await rowsOf('customers', 'website_id', alice.websiteId)).toBe(before);
  });

  it('through multi-row statements and row-by-row writes in one transaction by raw SQL, and not through a rolled-back one', async () => {
    const customers = `${site}/customers`;
    await customer();
    await customer();
    const before = await total(customers);
    const copy = (trx: Kysely<any>, suffix: string) =>
      sql`INSERT INTO customers (id, account_id, website_id, revision, create_time, update_time, email, password_hash, display_name, tags, is_active, attributes)
        SELECT id || ${suffix}, account_id, website_id, revision, create_time, update_time, ${suffix} || email, password_hash, display_name, tags, is_active, attributes
        FROM customers WHERE website_id = ${alice.websiteId} AND id NOT LIKE '%-copy%'`.execute(trx);
    // One statement writing every original row again.
    await copy(db, '-copy1');
    expect(await total(customers)).toBe(before * 2);
    await db.transaction().execute(async (trx) => {
      await copy(trx, '-copy2');
      await trx.deleteFrom('customers').where('website_id', '=', alice.websiteId).where('id', 'like', '%-copy1').execute();
      await copy(trx, '-copy3');
      await trx.updateTable('customers').set({ display_name: 'Renamed' }).where('website_id', '=', alice.websiteId).execute();
      await trx.deleteFrom('customers').where('website_id', '=', alice.websiteId).where('id', 'like', '%-copy3').execute();
    });
    expect(await total(customers)).toBe(before * 2);
    await expect(
      db.transaction().execute(async (trx) => {
        await copy(trx, '-copy4');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await total(customers)).toBe(before * 2);
    await db.deleteFrom('customers').where('website_id', '=', alice.websiteId).where('id', 'like', '%-copy2').execute();
    expect(await total(customers)).toBe(before);
    expect(await drift(db, t.fresh.dialect)).toEqual([]);
  });

  it('when a raw UPDATE moves rows to another scope', async () => {
    const other = await createAccount(t, alice.token, 'Second account');
    const mine = `${API}/accounts/${alice.accountId}/projects`;
    const theirs = `${API}/accounts/${other.id}/projects`;
    const moved = await createProject(t, alice.token, alice.accountId, { display_name: 'Moving' });
    const [here, there] = [await total(mine), await total(theirs)];
    await db.updateTable('projects').set({ account_id: other.id }).where('id', '=', moved.id).execute();
    expect([await total(mine), await total(theirs)]).toEqual([here - 1, there + 1]);
    await db.updateTable('projects').set({ account_id: alice.accountId }).where('id', '=', moved.id).execute();
    expect([await total(mine), await total(theirs)]).toEqual([here, there]);
  });

  it('through foreign-key cascades: a project deleted with force takes its websites and every row in them', async () => {
    const projects = `${API}/accounts/${alice.accountId}/projects`;
    const project = await createProject(t, alice.token, alice.accountId, { display_name: 'Doomed' });
    const website = await createWebsite(t, alice.token, project.id, { display_name: 'Doomed site' });
    await t.waitForOperation(website.operation, alice.token);
    const doomed = `${API}/websites/${website.id}`;
    for (const i of [1, 2]) {
      expectStatus(await t.request('POST', `${doomed}/customers`, { token: alice.token, body: { email: `doomed${i}@example.com`, password: 'secret-123', tags: ['x'] } }), 201);
    }
    expect(await total(`${doomed}/customers`)).toBe(2);
    expect(await total(`${doomed}/cms_pages`)).toBeGreaterThan(0);
    const before = await total(projects);
    expectNoBody(await t.request('DELETE', `${API}/projects/${project.id}?force=true`, { token: alice.token }), 204);
    expect(await total(projects)).toBe(before - 1);
    expect((await counter('customers', website.id))?.rowCount).toBe(0);
    expect((await counter('cms_pages', website.id))?.rowCount).toBe(0);
    expect(await drift(db, t.fresh.dialect)).toEqual([]);
  });

  it('through a forced delete of a blog category subtree', async () => {
    const categories = `${site}/blog_categories`;
    const make = async (display_name: string, parent_id?: string) =>
      expectStatus(await t.request('POST', categories, { token: alice.token, body: { display_name, ...(parent_id ? { parent_id } : {}) } }), 201);
    const before = await total(categories);
    const top = await make('Counted top');
    const sub = await make('Counted sub', top.id);
    await make('Counted leaf', sub.id);
    await make('Counted sibling', top.id);
    expect(await total(categories)).toBe(before + 4);
    expectNoBody(await t.request('DELETE', `${API}/${top.name}?force=true`, { token: alice.token }), 204);
    expect(await total(categories)).toBe(before);
    expect((await counter('blog_categories', alice.websiteId))?.rowCount).toBe(await rowsOf('blog_categories', 'website_id', alice.websiteId));
  });
});

describe('side tables', () => {
  it('bump the collection they filter but never change its row_count', async () => {
    const c = await customer({ tags: ['side'] });
    const start = await counter('customers', alice.websiteId);
    const real = await rowsOf('customers', 'website_id', alice.websiteId);
    expect(start?.rowCount).toBe(real);
    expectStatus(await t.request('PATCH', `${API}/${c.name}`, { token: alice.token, body: { tags: ['side', 'more', 'again'] } }), 200);
    await db.insertInto('customer_tags').values({ website_id: alice.websiteId, tag: 'raw', customer_id: c.id }).execute();
    const afterTags = await counter('customers', alice.websiteId);
    expect(afterTags!.version).toBeGreaterThan(start!.version);
    expect(afterTags!.rowCount).toBe(real);
    await db.deleteFrom('customer_tags').where('website_id', '=', alice.websiteId).where('customer_id', '=', c.id).execute();
    expect((await counter('customers', alice.websiteId))!.rowCount).toBe(real);
    expect(await total(`${site}/customers`)).toBe(real);

    // Blog posts: categories, tags and authors of posts are side tables of blog_posts.
    const post = expectStatus(await t.request('POST', `${site}/blog_posts`, { token: alice.token, body: { title: 'Side post' } }), 201);
    const cat = expectStatus(await t.request('POST', `${site}/blog_categories`, { token: alice.token, body: { display_name: 'Side cat' } }), 201);
    const posts = await rowsOf('blog_posts', 'website_id', alice.websiteId);
    expectStatus(await t.request('POST', `${API}/${cat.name}:set_posts`, { token: alice.token, body: { post_ids: [post.id] } }), 200);
    expect((await counter('blog_posts', alice.websiteId))!.rowCount).toBe(posts);
    expect(await total(`${site}/blog_posts`)).toBe(posts);
    expect(await drift(db, t.fresh.dialect)).toEqual([]);
  });
});

describeOnly('postgres')('TRUNCATE (PostgreSQL)', () => {
  it('sets the counted table to 0 in every scope it held, and leaves the collection of a truncated side table alone', async () => {
    await customer({ tags: ['t'] });
    const real = await rowsOf('customers', 'website_id', alice.websiteId);
    await sql`TRUNCATE customer_tags`.execute(db);
    expect(await total(`${site}/customers`)).toBe(real);
    await sql`TRUNCATE customers CASCADE`.execute(db);
    expect(await total(`${site}/customers`)).toBe(0);
    expect(await drift(db, t.fresh.dialect)).toEqual([]);
  });
});

it('every counted table keeps row_count equal to its rows in every scope, after all of the above and provisioning', async () => {
  expect(await drift(db, t.fresh.dialect)).toEqual([]);
});

describe('the migration introducing row counts', () => {
  let database: Database;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(inject('tempRoot') ?? tmpdir(), 'row-counts-'));
    if (testDialect() === 'postgres') {
      const context = inject('postgres');
      if (!context.available) throw new Error(context.reason);
      // A blank database, migrated only up to the migration before.
      const name = `${context.databasePrefix}${randomBytes(6).toString('hex')}`;
      await createDatabase(context.adminUrl, name);
      database = openDatabase({ databaseUrl: databaseUrl(context.adminUrl, name), dataDir });
      cleanup = async () => {
        await database.close();
        await dropDatabase(context.adminUrl, name);
        rmSync(dataDir, { recursive: true, force: true });
      };
    } else {
      database = openDatabase({ dataDir });
      cleanup = async () => {
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      };
    }
  });
  afterAll(() => cleanup?.());

  it('counts the rows that existed before it, leaves side tables out, and sets emptied scopes that have a counter to 0', async () => {
    const before = Object.keys(migrations).filter((name) => name < '2026-11-26-1120-list-row-counts');
    const { error } = await new Migrator({ db: database.db, provider: { getMigrations: async () => migrations } }).migrateTo(before[before.length - 1]);
    if (error) throw error;
    const old = database.db;
    const now = Date.now();
    const stamp = { revision: 1, create_time: now, update_time: now };
    const yes = testDialect() === 'postgres' ? true : 1;
    for (const id of ['acc-1', 'acc-2']) await old.insertInto('accounts').values({ id, account_id: id, display_name: id, is_active: yes, ...stamp }).execute();
    for (const [id, account] of [['p-1', 'acc-1'], ['p-2', 'acc-1'], ['p-3', 'acc-1'], ['p-gone', 'acc-2']]) {
      await old.insertInto('projects').values({ id, account_id: account, display_name: id, ...stamp }).execute();
    }
    // acc-2 has a counter row but no projects left.
    await old.deleteFrom('projects').where('id', '=', 'p-gone').execute();
    await old
      .insertInto('websites')
      .values({ id: 'w-1', account_id: 'acc-1', project_id: 'p-1', display_name: 'w', code: 'w1', default_language: 'en', time_zone: 'UTC', provisioning_status: 'DONE', ...stamp })
      .execute();
    for (const id of ['c-1', 'c-2']) {
      await old
        .insertInto('customers')
        .values({ id, account_id: 'acc-1', website_id: 'w-1', email: `${id}@example.com`, password_hash: 'x', is_active: yes, ...stamp })
        .execute();
      for (const tag of ['a', 'b', 'c']) await old.insertInto('customer_tags').values({ website_id: 'w-1', tag, customer_id: id }).execute();
    }
    // Rows written before counters existed at all: the backfill must create their counter rows.
    await sql`DELETE FROM list_versions WHERE table_name = 'customers'`.execute(old);
    expect(await old.selectFrom('list_versions').select('version').where('table_name', '=', 'projects').where('scope_id', '=', 'acc-2').execute()).toHaveLength(1);

    await migrateToLatest(database);
    const db2 = database.db;
    expect(await counter('projects', 'acc-1', db2)).toMatchObject({ rowCount: 3 });
    expect(await counter('projects', 'acc-2', db2)).toMatchObject({ rowCount: 0 });
    expect(await counter('websites', 'acc-1', db2)).toMatchObject({ rowCount: 1 });
    // Two customers, not two plus their six tags.
    expect(await counter('customers', 'w-1', db2)).toMatchObject({ version: 0, rowCount: 2 });
    expect(await drift(db2, testDialect())).toEqual([]);

    // And the triggers keep it from there.
    await db2.deleteFrom('customers').where('id', '=', 'c-1').execute();
    await db2.insertInto('customer_tags').values({ website_id: 'w-1', tag: 'd', customer_id: 'c-2' }).execute();
    expect(await counter('customers', 'w-1', db2)).toMatchObject({ rowCount: 1 });
    expect(await drift(db2, testDialect())).toEqual([]);
  });
});
