/**
 * Every declared List answers from an index (docs/architecture.md, "Tables and migrations"). For
 * each List of the platform, every filterable field (an equality, a range on timestamps and
 * numbers, a contains on strings, a has on lists) is combined with the default order and with each
 * sortable field; the engine compiles the page and count SQL exactly as `list()` runs them
 * (`listQueries`), and the database's own plan must show:
 *
 * - the page never scans the whole table (SQLite `SCAN <table>`; PostgreSQL a `Seq Scan` or an index
 *   scan without an index condition);
 * - the count is answered by an index alone (SQLite `USING COVERING INDEX`; PostgreSQL `Index Only
 *   Scan`), a contains by the table's trigram index (SQLite its FTS5 table; PostgreSQL its pg_trgm
 *   GIN index);
 * - each order has an index `(parent…, column, id)`.
 *
 * Every failure is collected and reported at once, naming the List, the filter and order, and the
 * index it needs. Platform catalogues (a few dozen rows, shipped with the code), virtual
 * collections and singletons are not checked.
 *
 * SQLite plans on the fresh database as a server does (it never runs ANALYZE). PostgreSQL plans by
 * statistics, and an empty table has none worth the name: the plans are taken on copies of the
 * tables (same columns and indexes, no foreign keys) in a schema of their own, filled with synthetic
 * rows and analysed, the query's table names resolving there through `search_path`.
 */
import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RequestContext } from '../../src/platform/auth/context.js';
import { textIndexTable } from '../../src/platform/db/database.js';
import type { FieldDecl } from '../../src/platform/resource/declaration.js';
import type { ResourceService } from '../../src/platform/resource/engine.js';
import { columnOf } from '../../src/platform/resource/mapper.js';
import { templateParams } from '../../src/platform/resource/paths.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialect } from '../support/databases.js';

/** How a filter is answered, which decides what its count's plan must show. */
type FilterKind = 'none' | 'equality' | 'range' | 'contains' | 'side table' | 'json array';

interface FilterCase {
  kind: FilterKind;
  /** The `filter` parameter (absent: no filter). */
  text?: string;
  /** The column the filter reads (for the index a failure asks for). */
  column?: string;
}

interface ListUnderTest {
  service: ResourceService;
  table: string;
  /** The columns every query of the List is scoped by: its path's ids. */
  parents: string[];
  filters: FilterCase[];
  /** `order_by` values: the default order, then each sortable field. */
  orders: string[];
}

const COMMON_FIELDS: Record<string, FieldDecl> = {
  create_time: { type: 'timestamp', description: '' },
  update_time: { type: 'timestamp', description: '' },
};

/** A value of every kind the filter grammar takes for `field`, each with how it must be answered. */
function filterCases(name: string, field: FieldDecl): FilterCase[] {
  const column = columnOf(name, field) ?? name;
  const cases = (kind: FilterKind, text: string): FilterCase => ({ kind, text, column });
  switch (field.type) {
    case 'boolean':
      return [cases('equality', `${name} = true`)];
    case 'enum':
      return [cases('equality', `${name} = ${field.values![0]}`)];
    case 'integer':
    case 'number':
      return [cases('equality', `${name} = 1`), cases('range', `${name} > 1`)];
    case 'timestamp':
      return [cases('equality', `${name} = 2024-01-01T00:00:00Z`), cases('range', `${name} > 2024-01-01T00:00:00Z`)];
    case 'string':
      return field.hasMatchesPrefix ? [cases('equality', `${name} = "abc"`)] : [cases('equality', `${name} = "abc"`), cases('contains', `${name}:"abc"`)];
    case 'string_list':
      return [cases(field.filterHas ? 'side table' : 'json array', `${name}:"abc"`)];
    default:
      throw new Error(`filterable field ${name} of type ${field.type}: teach list-plans.test.ts how to filter it`);
  }
}

/** Every table-backed List of the platform, with the filters and orders it declares. */
function listsUnderTest(services: Record<string, ResourceService>, include: (service: ResourceService) => boolean): ListUnderTest[] {
  return [...new Set(Object.values(services))]
    .filter((service) => !service.decl.virtual && service.decl.kind !== 'singleton' && service.decl.methods.includes('list') && include(service))
    .map((service) => {
      const { decl } = service;
      const filters: FilterCase[] = [{ kind: 'none' }];
      for (const name of decl.filterable) filters.push(...filterCases(name, decl.fields[name] ?? COMMON_FIELDS[name]));
      const defaultField = decl.defaultOrder.split(/\s+/)[0];
      const orders = [decl.defaultOrder, ...decl.sortable.filter((name) => name !== defaultField).map((name) => `${name} asc`)];
      return { service, table: decl.table, parents: templateParams(decl.collectionPath), filters, orders };
    });
}

const orderColumn = (list: ListUnderTest, order: string): string => {
  const name = order.split(/\s+/)[0];
  return columnOf(name, list.service.decl.fields[name] ?? COMMON_FIELDS[name]) ?? name;
};

const needsIndex = (columns: string[]) => `needs an index (${columns.join(', ')})`;

let t: TestApp;
let db: Kysely<any>;
const dialect = testDialect();
/** Path ids every compiled query carries; the synthetic PostgreSQL rows spread over ten such ids. */
const PATH_ID = 'p1';
const ctx: RequestContext = { requestId: 'list-plans', caller: { userId: PATH_ID }, now: Date.now(), access: { accountId: PATH_ID, role: 'administrator' } };

beforeAll(async () => {
  t = await startTestApp();
  db = t.platform.deps.database.db;
  if (dialect === 'postgres') await copyTablesWithRows(db, parentColumns(t.platform.services));
});
afterAll(() => t?.close());

function parentColumns(services: Record<string, ResourceService>): Set<string> {
  // A singleton's row is keyed by its parent's id alone (`user_profiles.id`): it has no parent column.
  return new Set(Object.values(services).filter((service) => service.decl.kind !== 'singleton').flatMap((service) => templateParams(service.decl.collectionPath)));
}

/** Rows per copied table: enough for the planner to tell a narrow index range from a wide one. */
const SYNTHETIC_ROWS = 1000;
const PLAN_SCHEMA = 'list_plans';

/**
 * PostgreSQL: copies every table (columns, constraints but foreign keys, every index) into
 * PLAN_SCHEMA and fills it with synthetic rows: parent columns spread over ten ids (`p0`…`p9`) unless
 * they alone are the primary key, other text unique per row (an equality selects a row or two), numbers ascending, booleans alternating.
 */
async function copyTablesWithRows(db: Kysely<any>, parents: Set<string>): Promise<void> {
  await sql`create schema ${sql.id(PLAN_SCHEMA)}`.execute(db);
  const tables = await sql<{ table_name: string }>`
    select table_name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely_%'`.execute(db);
  for (const { table_name: table } of tables.rows) {
    await sql`create table ${sql.id(PLAN_SCHEMA, table)} (like ${sql.id('public', table)} including all)`.execute(db);
    const columns = await sql<{ column_name: string; data_type: string }>`
      select column_name, data_type from information_schema.columns where table_schema = 'public' and table_name = ${table}`.execute(db);
    // A table keyed by parent columns alone (`site_versions`: one row per website) gets them unique per row.
    const key = await sql<{ column_name: string }>`
      select kcu.column_name from information_schema.table_constraints tc
      join information_schema.key_column_usage kcu on kcu.constraint_name = tc.constraint_name and kcu.table_schema = tc.table_schema
      where tc.table_schema = 'public' and tc.table_name = ${table} and tc.constraint_type = 'PRIMARY KEY'`.execute(db);
    const spread = key.rows.length === 0 || !key.rows.every((k) => parents.has(k.column_name));
    const values = columns.rows.map(({ column_name: column, data_type: type }) => {
      if (type === 'text') return parents.has(column) && spread ? sql`'p' || (n % 10)` : sql`${sql.lit(column + '-')} || n`;
      if (type === 'boolean') return sql`n % 2 = 0`;
      if (type === 'jsonb') return sql`'[]'::jsonb`;
      if (type === 'bytea') return sql`decode('00', 'hex')`;
      if (['integer', 'bigint', 'double precision'].includes(type)) return sql`n`;
      if (type === 'tsvector') return sql`to_tsvector('simple', ${sql.lit(column + ' ')} || n)`;
      throw new Error(`list-plans: no synthetic value for ${table}.${column} (${type})`);
    });
    await sql`
      insert into ${sql.id(PLAN_SCHEMA, table)} (${sql.join(columns.rows.map((c) => sql.id(c.column_name)))})
      select ${sql.join(values)} from generate_series(1, ${sql.lit(SYNTHETIC_ROWS)}) as n`.execute(db);
  }
  // Statistics for the planner and a visibility map for index-only scans, as autovacuum keeps them.
  await sql`vacuum (analyze) ${sql.join(tables.rows.map(({ table_name: table }) => sql.id(PLAN_SCHEMA, table)))}`.execute(db);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

/** PostgreSQL's plan of `query` over the copied tables, under the given planner settings. */
async function postgresPlan(query: CompiledQuery, settings: string[]): Promise<PlanNode[]> {
  return db.connection().execute(async (connection) => {
    await sql`set search_path to ${sql.id(PLAN_SCHEMA)}`.execute(connection);
    for (const setting of settings) await sql.raw(`set ${setting}`).execute(connection);
    try {
      const { rows } = await connection.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      return nodesOf(rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await sql`reset all`.execute(connection);
    }
  });
}

/** SQLite's plan of `query`, one line per step (`SEARCH t USING COVERING INDEX i (a=?)`). */
async function sqlitePlan(query: CompiledQuery): Promise<string[]> {
  const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
  return rows.map((row) => row.detail);
}

/** Names of the GIN (trigram) indexes of a copied table. */
async function ginIndexes(table: string): Promise<string[]> {
  const { rows } = await sql<{ indexname: string }>`
    select indexname from pg_indexes where schemaname = ${PLAN_SCHEMA} and tablename = ${table} and indexdef like '% USING gin %'`.execute(db);
  return rows.map((row) => row.indexname);
}

/** Rows a contains matches in the plans of a page for a common text (`ListQueryContext.matches`). */
const COMMON_TEXT_MATCHES = 1_000_000;

/**
 * Why a common text's page sorts its matches instead of walking the order's index (SQLite, which
 * then checks each row with LIKE and stops after a page), or undefined. PostgreSQL's planner chooses itself.
 */
async function pageSorts(page: CompiledQuery): Promise<string | undefined> {
  if (dialect !== 'sqlite') return undefined;
  const plan = await sqlitePlan(page);
  return plan.some((step) => step.includes('TEMP B-TREE')) ? `page sorts every match (${plan.join('; ')})` : undefined;
}

/** Rows a side-table filter matches in the plans of a page for a rare member (`ListQueryContext.matches`). */
const RARE_MEMBER_MATCHES = 10;

/**
 * Why a rare member's page (a side-table filter with few matches) does not start from the side
 * table, or undefined. SQLite must read the side table's index and fetch the rows by key (not walk
 * the order's index probing the side table); PostgreSQL's planner chooses itself.
 */
async function pageNotDrivenBySideTable(list: ListUnderTest, page: CompiledQuery): Promise<string | undefined> {
  if (dialect !== 'sqlite') return undefined;
  const plan = await sqlitePlan(page);
  const byKey = plan.some((step) => step.startsWith(`SEARCH ${list.table} USING `) && /\bid=\?/.test(step));
  return byKey ? undefined : `page does not start from the side table (${plan.join('; ')})`;
}

/** Why the page's plan reads the whole table, or undefined when it reads a range of an index. */
async function pageScansTable(list: ListUnderTest, page: CompiledQuery): Promise<string | undefined> {
  if (dialect === 'sqlite') {
    const plan = await sqlitePlan(page);
    const scan = plan.find((step) => step === `SCAN ${list.table}` || step.startsWith(`SCAN ${list.table} `));
    return scan && `page reads the whole table (${plan.join('; ')})`;
  }
  const plan = await postgresPlan(page, ['enable_seqscan = off']);
  const scan = plan.find((node) => node['Relation Name'] === list.table && (node['Node Type'] === 'Seq Scan' || (node['Node Type'].startsWith('Index') && !node['Index Cond'])));
  return scan && `page reads the whole table (${scan['Node Type']}${scan['Index Name'] ? ` using ${scan['Index Name']}` : ''})`;
}

/**
 * Why the count is not answered from an index alone (or the trigram index), or undefined when it is.
 * A lookup through a unique index bound on all its columns reads one row at most: that counts too.
 * A filter answered from a side table (customer tags) may reach the table by index probes per match.
 */
async function countNotIndexed(list: ListUnderTest, filter: FilterCase, count: CompiledQuery, indexes: IndexShape[]): Promise<string | undefined> {
  if (dialect === 'sqlite') {
    const plan = await sqlitePlan(count);
    const steps = plan.filter((step) => step.startsWith(`SEARCH ${list.table} `) || step === `SCAN ${list.table}` || step.startsWith(`SCAN ${list.table} `));
    const shown = plan.join('; ');
    if (steps.some((step) => step.startsWith('SCAN '))) return `count reads the whole table (${shown})`;
    if (filter.kind === 'contains') {
      const fts = textIndexTable(list.table);
      if (!plan.some((step) => step.startsWith(`SCAN ${fts} VIRTUAL TABLE INDEX`))) return `count does not use ${fts} (${shown})`;
      // A text the table holds often is counted by checking the scope's rows: from an index alone
      // (accounts: the caller's few, through memberships).
      if (list.table !== 'accounts' && !steps.some((step) => step.includes(' USING COVERING INDEX '))) return `count of a common text not index-only (${shown})`;
      // The MATCH names the column at run time only (and not at all while the table is empty).
      const { rows } = await sql<{ name: string }>`select name from pragma_table_info(${fts})`.execute(db);
      return rows.some((row) => row.name === filter.column) ? undefined : `${fts} does not index ${filter.column}`;
    }
    // Accounts are reached through the caller's memberships, one primary-key probe each: not a scan of every account.
    if (list.table === 'accounts') return undefined;
    const answered = (step: string) => step.includes(' USING COVERING INDEX ') || singleRowLookup(step, indexes);
    return steps.length > 0 && steps.every(answered) ? undefined : `count not index-only (${shown})`;
  }
  const describe = (nodes: PlanNode[]) => nodes.map((node) => node['Node Type'] + (node['Index Name'] ? ` using ${node['Index Name']}` : '')).join(', ');
  if (filter.kind === 'contains') {
    // Only bitmap scans stay cheap: the trigram index must be able to answer the contains.
    const plan = await postgresPlan(count, ['enable_seqscan = off', 'enable_indexscan = off']);
    const gin = await ginIndexes(list.table);
    return plan.some((node) => node['Node Type'] === 'Bitmap Index Scan' && gin.includes(node['Index Name']!))
      ? undefined
      : `count does not use the trigram index (${describe(plan)})`;
  }
  const plan = await postgresPlan(count, ['enable_seqscan = off', 'enable_bitmapscan = off']);
  const scans = plan.filter((node) => node['Relation Name'] === list.table);
  if (scans.some((node) => node['Node Type'] === 'Seq Scan' || !node['Index Cond'])) return `count reads the whole table (${describe(scans)})`;
  if (list.table === 'accounts' || filter.kind === 'side table') return undefined;
  return scans.every((node) => node['Node Type'] === 'Index Only Scan') ? undefined : `count not index-only (${describe(scans)})`;
}

/** A SQLite step `SEARCH t USING INDEX u (a=? AND b=?)` through a unique index bound on all its columns. */
function singleRowLookup(step: string, indexes: IndexShape[]): boolean {
  const m = / USING INDEX (\S+) \((.*)\)$/.exec(step);
  const index = m && indexes.find((candidate) => candidate.name === m[1]);
  if (!m || !index?.unique) return false;
  const bound = m[2].split(' AND ').filter((term) => term.endsWith('=?')).map((term) => term.slice(0, -2));
  return index.columns.every((column) => bound.includes(column));
}

interface IndexShape {
  name: string;
  columns: string[];
  unique: boolean;
}

/** The indexes of a table, as their key columns in order. */
async function indexesOf(table: string): Promise<IndexShape[]> {
  if (dialect === 'sqlite') {
    const { rows: list } = await sql<{ name: string; unique: number }>`select name, "unique" from pragma_index_list(${table})`.execute(db);
    const shapes: IndexShape[] = [];
    for (const index of list) {
      const { rows } = await sql<{ name: string }>`select name from pragma_index_info(${index.name}) order by seqno`.execute(db);
      shapes.push({ name: index.name, columns: rows.map((row) => row.name), unique: index.unique === 1 });
    }
    return shapes;
  }
  const { rows } = await sql<{ name: string; columns: string[]; unique: boolean }>`
    select i.relname as name, x.indisunique as unique,
           array(select a.attname::text from unnest(x.indkey) with ordinality k(attnum, ord)
                 join pg_attribute a on a.attrelid = x.indrelid and a.attnum = k.attnum order by k.ord) as columns
    from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class r on r.oid = x.indrelid
    join pg_namespace s on s.oid = r.relnamespace
    where s.nspname = 'public' and r.relname = ${table}`.execute(db);
  return rows;
}

/** An index serves `order` when it leads with the parents and the order's column, then `id` (or is unique there). */
function servesOrder(index: IndexShape, leading: string[]): boolean {
  const prefix = index.columns.slice(0, leading.length);
  if (prefix.length < leading.length || prefix.some((column, i) => column !== leading[i])) return false;
  return index.columns[leading.length] === 'id' || leading[leading.length - 1] === 'id' || (index.unique && index.columns.length === leading.length);
}

it('answers every declared List from an index: page, count, order', async () => {
  const lists = listsUnderTest(t.platform.services, (service) => !service.decl.catalogue);
  const failures: string[] = [];
  let checked = 0;
  for (const list of lists) {
    const params = Object.fromEntries(list.parents.map((p) => [p, PATH_ID]));
    const indexes = await indexesOf(list.table);
    for (const order of list.orders) {
      if (list.table === 'accounts') break; // reached through memberships: orders sort the caller's few accounts
      const leading = [...list.parents, orderColumn(list, order)];
      if (!indexes.some((index) => servesOrder(index, leading))) failures.push(`${list.table}: order ${order}: ${needsIndex([...leading, 'id'])}`);
    }
    for (const filter of list.filters) {
      for (const [i, order] of list.orders.entries()) {
        const { page, count } = list.service.listQueries(ctx, params, { filter: filter.text, order_by: order });
        const what = `${list.table}: ${filter.text ? `filter ${filter.text}` : 'no filter'}, order ${order}`;
        const pageProblem = await pageScansTable(list, page);
        if (pageProblem) failures.push(`${what}: ${pageProblem}; ${needsIndex([...list.parents, orderColumn(list, order), 'id'])}`);
        checked++;
        // Accounts are the caller's few memberships, sorted.
        if (filter.kind === 'contains' && list.table !== 'accounts') {
          // A common text (a million matches): the page may walk its ordered index checking each row instead.
          const { page: common } = list.service.listQueries(ctx, params, { filter: filter.text, order_by: order }, { matches: COMMON_TEXT_MATCHES });
          const commonProblem = (await pageScansTable(list, common)) ?? (await pageSorts(common));
          if (commonProblem) failures.push(`${what}, a common text: ${commonProblem}; ${needsIndex([...list.parents, orderColumn(list, order), 'id'])}`);
        }
        if (filter.kind === 'side table') {
          // A rare member (few matches): the page starts from the side table and sorts the matches.
          const { page: rare } = list.service.listQueries(ctx, params, { filter: filter.text, order_by: order }, { matches: RARE_MEMBER_MATCHES });
          const rareProblem = (await pageScansTable(list, rare)) ?? (await pageNotDrivenBySideTable(list, rare));
          if (rareProblem) failures.push(`${what}, a rare member: ${rareProblem}; needs the side table's index leading with the parents and the member`);
        }
        // The count does not depend on the order; a JSON array has no index to answer it from.
        if (i > 0 || filter.kind === 'json array') continue;
        const countProblem = await countNotIndexed(list, filter, count, indexes);
        if (countProblem) {
          const needs = filter.kind === 'contains' ? `needs ${filter.column} in the table's trigram text index` : needsIndex([...list.parents, ...(filter.column ? [filter.column] : [])]);
          failures.push(`${what}: ${countProblem}; ${needs}`);
        }
      }
    }
  }
  expect(checked).toBeGreaterThan(300);
  expect(failures, `${failures.length} List plans need an index:\n${failures.join('\n')}`).toEqual([]);
});

it('runs every compiled List query, platform catalogues included', async () => {
  const failures: string[] = [];
  for (const list of listsUnderTest(t.platform.services, () => true)) {
    const params = Object.fromEntries(list.parents.map((p) => [p, PATH_ID]));
    for (const filter of list.filters) {
      const { page, count } = list.service.listQueries(ctx, params, { filter: filter.text });
      const { page: common } = list.service.listQueries(ctx, params, { filter: filter.text }, { matches: COMMON_TEXT_MATCHES });
      const { page: rare } = list.service.listQueries(ctx, params, { filter: filter.text }, { matches: RARE_MEMBER_MATCHES });
      for (const query of [page, count, common, rare]) {
        await db.executeQuery(query).catch((err: Error) => failures.push(`${list.table}: ${filter.text ?? 'no filter'}: ${err.message}`));
      }
    }
  }
  expect(failures).toEqual([]);
});
