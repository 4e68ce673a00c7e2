/**
 * Generic, set-based seeding of one resource's table for the lists suite (bench/lists.ts): the rows
 * are derived from the resource declaration plus the table's real columns, introspected from the
 * database (SQLite `pragma table_info`/`index_list`/`foreign_key_list`, PostgreSQL catalogs), and
 * inserted with one `INSERT … SELECT` over a recursive CTE (SQLite) or `generate_series`
 * (PostgreSQL). Nothing here names a collection.
 *
 * Row n (1…rows) gets:
 *   - `id` `{prefix}{n, 7 digits}`; the parent column and `account_id` the bench parent; `revision` 1;
 *     `create_time` base + n × step; `update_time` that plus (n mod 1000) s;
 *   - declared fields by type: enum → cycles through `values` (leaving out a value a partial unique
 *     index would collide on); boolean → true for 80 %; string → `item-{⌊n/10⌋ mod 5}`, or
 *     `shop-…` on every tenth row (so `field:"shop"` matches 10 %, `field = "item-1"` 18 %), made
 *     unique (`item-{n}`/`shop-{n}`) when the field is `uniqueInParent` or covered by a unique index;
 *     integer/number → 1000 values from 0 (or the declared minimum) within the declared bounds (n
 *     when unique); timestamp → like create_time; string_list → `["shop"]` for 10 %, else `[]`;
 *     object/json → the default, else `[]`/`{}` when NOT NULL; a `refersTo` field (or a foreign key)
 *     → one real row of the target under the same website/account for 10 % (all when NOT NULL),
 *     else NULL. Each column counts n from its own offset, so the 10 % of one column are not the
 *     10 % of another (filters and orders on different columns are independent);
 *   - a field no filter or order reads gets its declared default, or NULL when nullable (free text
 *     such as a group's rule is never invented);
 *   - undeclared NOT NULL columns without a default: `bench`, 0, false or `{}` by column type.
 *
 * What this cannot honour it reports instead of hiding: a CHECK constraint, a NOT NULL reference
 * with no row to point at, a unique index no generated column can satisfy make the table skipped
 * (with the reason); a generated value that misses a field's declared pattern is a note. Rules that
 * live only in hooks (a url_key unique per view scope, tree paths, an agent's instruction existing)
 * are not reproduced: the List reads columns, not those invariants.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { FieldDecl, ResourceDecl } from '../src/platform/resource/declaration.js';
import { columnOf } from '../src/platform/resource/mapper.js';

export type Flavor = 'sqlite' | 'postgres';

/** A connection the bench writes through beside the running server. Statements carry their literals inline. */
export interface BenchDb {
  flavor: Flavor;
  all<T = Record<string, any>>(sql: string): Promise<T[]>;
  run(sql: string): Promise<void>;
  close(): Promise<void>;
}

/** Opens the server's database: the SQLite file (WAL, waits for the server's writer) or the PostgreSQL URL. */
export async function openBenchDb(flavor: Flavor, where: string): Promise<BenchDb> {
  if (flavor === 'sqlite') {
    const db = new SQLite(where);
    db.pragma('busy_timeout = 60000');
    db.pragma('cache_size = -262144'); // 256 MiB for the bulk inserts' index pages
    return {
      flavor,
      all: async (sql) => db.prepare(sql).all() as any[],
      run: async (sql) => void db.exec(sql),
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  return {
    flavor,
    all: async (sql) => (await client.query(sql)).rows,
    run: async (sql) => void (await client.query(sql)),
    close: () => client.end(),
  };
}

/** A SQL string literal. */
export const lit = (text: string) => `'${text.replace(/'/g, "''")}'`;
const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;

export type ColumnType = 'text' | 'integer' | 'float' | 'boolean' | 'json';

export interface TableColumn {
  name: string;
  type: ColumnType;
  notNull: boolean;
  hasDefault: boolean;
}

export interface TableShape {
  table: string;
  columns: TableColumn[];
  /** Unique indexes, the primary key included; `predicate` is a partial index's WHERE. */
  uniques: Array<{ name: string; columns: string[]; predicate?: string }>;
  foreignKeys: Array<{ columns: string[]; table: string }>;
  checks: string[];
}

function columnType(declared: string): ColumnType {
  const t = declared.toLowerCase();
  if (t.includes('json')) return 'json';
  if (t.includes('bool')) return 'boolean';
  if (t.includes('int')) return 'integer';
  if (t.includes('double') || t.includes('real') || t.includes('numeric') || t.includes('float')) return 'float';
  return 'text';
}

/** The table as the database holds it (not as the migration meant it). */
export async function describeTable(db: BenchDb, table: string): Promise<TableShape> {
  if (db.flavor === 'sqlite') {
    const info = await db.all<{ name: string; type: string; notnull: number; dflt_value: unknown; pk: number }>(`pragma table_info(${ident(table)})`);
    if (info.length === 0) throw new Error(`table ${table} does not exist`);
    const uniques: TableShape['uniques'] = [];
    for (const index of await db.all<{ name: string; unique: number; partial: number }>(`pragma index_list(${ident(table)})`)) {
      if (!index.unique) continue;
      const columns = (await db.all<{ name: string }>(`pragma index_info(${ident(index.name)})`)).map((c) => c.name);
      let predicate: string | undefined;
      if (index.partial) {
        const [row] = await db.all<{ sql: string }>(`select sql from sqlite_master where type = 'index' and name = ${lit(index.name)}`);
        predicate = /\swhere\s([\s\S]+)$/i.exec(row?.sql ?? '')?.[1]?.trim();
      }
      uniques.push({ name: index.name, columns, predicate });
    }
    const fkRows = await db.all<{ id: number; table: string; from: string }>(`pragma foreign_key_list(${ident(table)})`);
    const foreignKeys = [...new Set(fkRows.map((r) => r.id))].map((id) => ({
      table: fkRows.find((r) => r.id === id)!.table,
      columns: fkRows.filter((r) => r.id === id).map((r) => r.from),
    }));
    const [created] = await db.all<{ sql: string }>(`select sql from sqlite_master where type = 'table' and name = ${lit(table)}`);
    const checks = [...(created?.sql ?? '').matchAll(/\bcheck\s*\(([^)]*)\)/gi)].map((m) => m[0]);
    return {
      table,
      columns: info.map((c) => ({ name: c.name, type: columnType(c.type), notNull: c.notnull === 1 || c.pk > 0, hasDefault: c.dflt_value !== null })),
      uniques,
      foreignKeys,
      checks,
    };
  }
  const info = await db.all<{ column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
    `select column_name, data_type, is_nullable, column_default from information_schema.columns
     where table_schema = current_schema() and table_name = ${lit(table)} order by ordinal_position`,
  );
  if (info.length === 0) throw new Error(`table ${table} does not exist`);
  const uniques = await db.all<{ name: string; columns: string[]; predicate: string | null }>(
    `select i.relname as name, pg_get_expr(ix.indpred, ix.indrelid) as predicate,
            array(select a.attname::text from unnest(ix.indkey) with ordinality k(attnum, ord)
                  join pg_attribute a on a.attrelid = ix.indrelid and a.attnum = k.attnum order by k.ord) as columns
     from pg_index ix join pg_class i on i.oid = ix.indexrelid
     where ix.indrelid = ${lit(table)}::regclass and ix.indisunique`,
  );
  const foreignKeys = await db.all<{ table: string; columns: string[] }>(
    `select c.confrelid::regclass::text as table,
            array(select a.attname::text from unnest(c.conkey) with ordinality k(attnum, ord)
                  join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord) as columns
     from pg_constraint c where c.conrelid = ${lit(table)}::regclass and c.contype = 'f'`,
  );
  const checks = await db.all<{ def: string }>(`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = ${lit(table)}::regclass and contype = 'c'`);
  return {
    table,
    columns: info.map((c) => ({ name: c.column_name, type: columnType(c.data_type), notNull: c.is_nullable === 'NO', hasDefault: c.column_default !== null })),
    uniques: uniques.map((u) => ({ name: u.name, columns: u.columns, predicate: u.predicate ?? undefined })),
    foreignKeys: foreignKeys.map((f) => ({ table: f.table.replace(/^"|"$/g, ''), columns: f.columns })),
    checks: checks.map((c) => c.def),
  };
}

/** Where the seeded rows live and how they are spread. */
export interface SeedScope {
  rows: number;
  /** Column of the collection's parent (`website_id`, `account_id`, `project_id`) and its value. */
  parentColumn: string;
  parentId: string;
  accountId: string;
  /** Where rows a reference may point at live: the bench website for website-scoped resources, else the account. */
  referenceScope: { column: string; value: string };
  /** Prefix of the seeded ids; rows written later by `writeOne` use `copyPrefix`. */
  idPrefix: string;
  copyPrefix: string;
  baseMs: number;
  stepMs: number;
}

/**
 * What a field's values look like after seeding, so filters can be chosen that match a known share:
 * `words` = `item-{n mod 5}` / `shop-0` (or `item-{n}` / `shop-{n}` when `unique`).
 */
export type ValueProfile =
  /** Row n holds `shop-…` when (n + offset) is a multiple of 10. */
  | { kind: 'words'; unique: boolean; offset: number }
  | { kind: 'constant'; value: string | number | boolean }
  | { kind: 'enum'; values: string[] }
  | { kind: 'boolean' }
  | { kind: 'number'; min: number; span: number; unique: boolean }
  | { kind: 'timestamp' }
  /** Ids of one real row (`id`) on every tenth row (or all, `share` 1); none when no row exists. */
  | { kind: 'reference'; id?: string; share: number; list: boolean }
  /** A JSON list holding `item` on every tenth row. */
  | { kind: 'list'; item: string }
  | { kind: 'null' };

export interface SeedPlan {
  table: string;
  scope: SeedScope;
  columns: Array<{ column: string; expr: string }>;
  /** Every column of the table, for copying a row. */
  allColumns: string[];
  /** Columns made unique, by type, so a copied row can be given fresh values. */
  uniqueColumns: Map<string, ColumnType>;
  /** By field name (declared fields with a column, plus create_time/update_time). */
  profiles: Map<string, ValueProfile>;
  /** What the generated values do not honour (patterns), for the report. */
  notes: string[];
}

export type PlanResult = { plan: SeedPlan } | { skipped: string };

/** `item-{…}`, or `shop-{…}` for every tenth row. */
const word = (k: string) => `CASE WHEN ${k} % 10 = 0 THEN 'shop-' ELSE 'item-' END`;
/** Values a pattern and maxLength check tries: the shortest and the longest the generator writes. */
const WORD_SAMPLES = (unique: boolean, rows: number) => (unique ? ['item-1', 'shop-10', `item-${rows - 1}`] : ['item-1', 'shop-0']);

/** Plans the seed of `decl`'s table for `scope`; answers why not when the table cannot be seeded generically. */
export async function planSeed(db: BenchDb, decl: ResourceDecl, shape: TableShape, scope: SeedScope): Promise<PlanResult> {
  const f = db.flavor;
  const bool = (cond: string) => (f === 'sqlite' ? `(CASE WHEN ${cond} THEN 1 ELSE 0 END)` : `(${cond})`);
  const boolLit = (b: boolean) => (f === 'sqlite' ? (b ? '1' : '0') : b ? 'true' : 'false');
  const asJson = (col: TableColumn, textExpr: string) => (col.type === 'json' && f === 'postgres' ? `(${textExpr})::jsonb` : textExpr);
  const pad = f === 'sqlite' ? `printf('%07d', n)` : `lpad(n::text, 7, '0')`;
  const time = `(${scope.baseMs} + n * ${scope.stepMs})`;

  if (shape.checks.length) return { skipped: `table ${shape.table} has CHECK constraints the generic values may break: ${shape.checks.join('; ')}` };
  const byName = new Map(shape.columns.map((c) => [c.name, c]));
  const fieldOfColumn = new Map<string, [string, FieldDecl]>();
  for (const [name, field] of Object.entries(decl.fields)) {
    const column = columnOf(name, field);
    if (column && byName.has(column)) fieldOfColumn.set(column, [name, field]);
  }
  const bound = new Set([scope.parentColumn, 'account_id']);
  // A foreign key whose only unbound column is `column` (composite keys lead with the website).
  const fkOf = (column: string) =>
    shape.foreignKeys.find((fk) => {
      const free = fk.columns.filter((c) => !bound.has(c));
      return free.length === 1 && free[0] === column;
    });

  // Unique indexes: one generated-unique column per index is enough; else keep rows out of a partial
  // index's `col = 'X'` by leaving X out of an enum's cycle; else the table cannot be seeded.
  const uniqueColumns = new Map<string, ColumnType>();
  const excluded = new Map<string, Set<string>>();
  const canBeUnique = (column: string) => {
    const col = byName.get(column)!;
    const field = fieldOfColumn.get(column)?.[1];
    if (fkOf(column) || field?.refersTo) return false;
    // A timestamp is generated as base + n × step (below): distinct on every row already.
    if (field?.type === 'timestamp') return scope.stepMs > 0;
    if (field) return (field.type === 'string' || field.type === 'integer' || field.type === 'number') && !field.values;
    return col.type === 'text' || col.type === 'integer';
  };
  for (const [column, [, field]] of fieldOfColumn) if (field.uniqueInParent && canBeUnique(column)) uniqueColumns.set(column, byName.get(column)!.type);
  for (const index of shape.uniques) {
    const free = index.columns.filter((c) => !bound.has(c));
    if (free.includes('id') || free.some((c) => uniqueColumns.has(c))) continue;
    const candidate = free.find(canBeUnique);
    if (candidate) {
      uniqueColumns.set(candidate, byName.get(candidate)!.type);
      continue;
    }
    const m = index.predicate ? /^\(?\s*"?(\w+)"?\s*=\s*'([^']*)'(?:::\w+)?\s*\)?$/.exec(index.predicate) : null;
    const enumField = m ? fieldOfColumn.get(m[1])?.[1] : undefined;
    if (m && enumField?.type === 'enum') {
      excluded.set(m[1], new Set([...(excluded.get(m[1]) ?? []), m[2]]));
      continue;
    }
    return { skipped: `unique index ${index.name} (${index.columns.join(', ')})${index.predicate ? ` where ${index.predicate}` : ''} allows no generated column to tell ${scope.rows} rows apart` };
  }

  /** One real row of `table` under the bench website/account (the first by id), or undefined. */
  const realRow = async (table: string, where: Record<string, string | number | boolean> = {}): Promise<string | undefined> => {
    const target = await describeTable(db, table);
    const has = (c: string) => target.columns.some((col) => col.name === c);
    const conditions = [
      has(scope.referenceScope.column) ? `${ident(scope.referenceScope.column)} = ${lit(scope.referenceScope.value)}` : has('account_id') ? `account_id = ${lit(scope.accountId)}` : 'true',
      ...Object.entries(where).map(([c, v]) => `${ident(c)} = ${typeof v === 'string' ? lit(v) : typeof v === 'boolean' ? boolLit(v) : v}`),
    ];
    const [row] = await db.all<{ id: string }>(`select id from ${ident(table)} where ${conditions.join(' and ')} order by id limit 1`);
    return row?.id;
  };

  const columns: SeedPlan['columns'] = [];
  const profiles = new Map<string, ValueProfile>();
  const notes: string[] = [];
  const set = (column: string, expr: string) => columns.push({ column, expr });
  profiles.set('create_time', { kind: 'timestamp' });
  profiles.set('update_time', { kind: 'timestamp' });

  for (const [j, col] of shape.columns.entries()) {
    const c = col.name;
    const unique = uniqueColumns.has(c);
    // Each column counts from its own offset, so the tenth of the rows that says `shop` in one
    // column is not the tenth that does in another, nor the rows a boolean switches off: a filter
    // on one column and the order of another are independent, not a contrived worst case.
    const k = `(n + ${j})`;
    if (c === 'id') set(c, `${lit(scope.idPrefix)} || ${pad}`);
    else if (c === scope.parentColumn) set(c, lit(scope.parentId));
    else if (c === 'account_id') set(c, lit(scope.accountId));
    else if (c === 'revision') set(c, '1');
    else if (c === 'create_time') set(c, time);
    else if (c === 'update_time') set(c, `${time} + (n % 1000) * 1000`);
    else if (fieldOfColumn.has(c)) {
      const [name, field] = fieldOfColumn.get(c)!;
      const read = decl.filterable.includes(name) || decl.sortable.includes(name);
      const reference = field.refersTo ? { table: field.refersTo.table, where: field.refersTo.where } : fkOf(c) ? { table: fkOf(c)!.table, where: undefined } : undefined;
      if (reference) {
        const list = field.type === 'string_list';
        const id = await realRow(reference.table, reference.where);
        if (!id && col.notNull && !list) return { skipped: `${name} is NOT NULL and refers to ${reference.table}, which has no row under the bench ${scope.referenceScope.column}` };
        const share = id && col.notNull && !list ? 1 : 0.1;
        profiles.set(name, { kind: 'reference', id, share, list });
        if (list) set(c, asJson(col, id ? `CASE WHEN ${k} % 10 = 0 THEN ${lit(JSON.stringify([id]))} ELSE '[]' END` : `'[]'`));
        else if (id) set(c, share === 1 ? lit(id) : `CASE WHEN ${k} % 10 = 0 THEN ${lit(id)} END`);
        continue;
      }
      if (!read && !unique && field.default !== undefined) {
        set(c, literalOf(field.default, col, f));
        profiles.set(name, { kind: 'constant', value: field.default as string });
        continue;
      }
      if (!read && !unique && !col.notNull) {
        profiles.set(name, { kind: 'null' });
        continue;
      }
      switch (field.type) {
        case 'string': {
          const samples = WORD_SAMPLES(unique, scope.rows);
          const misses = samples.filter((s) => (field.pattern && !new RegExp(field.pattern).test(s)) || (field.maxLength !== undefined && s.length > field.maxLength));
          if (misses.length && field.default !== undefined && !unique) {
            set(c, literalOf(field.default, col, f));
            profiles.set(name, { kind: 'constant', value: field.default as string });
            break;
          }
          if (misses.length) notes.push(`${name}: generated values such as ${JSON.stringify(misses[0])} miss its declared ${field.pattern ? `pattern ${field.pattern}` : `maxLength ${field.maxLength}`}`);
          // The suffix counts in tens, so it does not repeat the `shop` rows' residue.
          set(c, `(${word(k)} || ${unique ? 'n' : '((n / 10) % 5)'})`);
          profiles.set(name, { kind: 'words', unique, offset: j });
          break;
        }
        case 'enum': {
          const values = (field.values ?? []).filter((v) => !excluded.get(c)?.has(v));
          if (values.length === 0) return { skipped: `enum ${name} has no value left outside the partial unique indexes` };
          set(c, values.length === 1 ? lit(values[0]) : `CASE ${k} % ${values.length} ${values.map((v, i) => `WHEN ${i} THEN ${lit(v)}`).join(' ')} END`);
          profiles.set(name, { kind: 'enum', values });
          break;
        }
        case 'boolean':
          set(c, bool(`${k} % 5 <> 0`));
          profiles.set(name, { kind: 'boolean' });
          break;
        case 'integer':
        case 'number': {
          // From 0 when the bounds allow it (a priority of ±2^31 starts at 0, not at -2^31).
          const lo = field.minimum ?? -Infinity;
          const hi = field.maximum ?? Infinity;
          const min = lo > 0 ? lo : hi < 0 ? Math.max(lo, hi - 999) : 0;
          const span = Math.min(1000, hi - min + 1);
          set(c, unique ? 'n' : `(${min} + ${k} % ${span})`);
          profiles.set(name, { kind: 'number', min: unique ? 1 : min, span: unique ? scope.rows : span, unique });
          break;
        }
        case 'timestamp':
          set(c, time);
          profiles.set(name, { kind: 'timestamp' });
          break;
        case 'string_list':
          if (!read && field.default !== undefined) {
            set(c, literalOf(field.default, col, f));
            profiles.set(name, { kind: 'constant', value: JSON.stringify(field.default) });
          } else {
            set(c, asJson(col, `CASE WHEN ${k} % 10 = 0 THEN '["shop"]' ELSE '[]' END`));
            profiles.set(name, { kind: 'list', item: 'shop' });
          }
          break;
        case 'object':
        case 'json':
          if (field.default !== undefined) set(c, literalOf(field.default, col, f));
          else if (col.notNull) set(c, asJson(col, (field.schema as { type?: string } | undefined)?.type === 'array' ? `'[]'` : `'{}'`));
          profiles.set(name, { kind: 'null' });
          break;
      }
    } else if (col.notNull && !col.hasDefault) {
      // Undeclared bookkeeping columns (an operation id, a flag): neutral values by type.
      const fk = fkOf(c);
      if (fk) {
        const id = await realRow(fk.table);
        if (!id) return { skipped: `column ${c} is NOT NULL and references ${fk.table}, which has no row under the bench ${scope.referenceScope.column}` };
        set(c, lit(id));
      } else if (col.type === 'text') set(c, unique ? `('bench-' || n)` : `'bench'`);
      else if (col.type === 'integer' || col.type === 'float') set(c, unique ? 'n' : '0');
      else if (col.type === 'boolean') set(c, boolLit(false));
      else set(c, asJson(col, `'{}'`));
    }
  }
  return { plan: { table: shape.table, scope, columns, allColumns: shape.columns.map((c) => c.name), uniqueColumns, profiles, notes } };
}

function literalOf(value: unknown, col: TableColumn, flavor: Flavor): string {
  if (value === null || value === undefined) return 'NULL';
  if (col.type === 'json' || typeof value === 'object') {
    const text = lit(JSON.stringify(value));
    return col.type === 'json' && flavor === 'postgres' ? `${text}::jsonb` : text;
  }
  if (typeof value === 'boolean') return flavor === 'sqlite' ? (value ? '1' : '0') : String(value);
  if (typeof value === 'number') return String(value);
  return lit(String(value));
}

/** Inserts the plan's rows in one statement (triggers fire as for any insert). */
export async function seed(db: BenchDb, plan: SeedPlan): Promise<void> {
  const cols = plan.columns.map((c) => ident(c.column)).join(', ');
  const exprs = plan.columns.map((c) => c.expr).join(',\n       ');
  const { rows } = plan.scope;
  if (db.flavor === 'sqlite') {
    await db.run(
      `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${rows})
       INSERT INTO ${ident(plan.table)} (${cols})
       SELECT ${exprs} FROM seq`,
    );
  } else {
    await db.run(`INSERT INTO ${ident(plan.table)} (${cols}) SELECT ${exprs} FROM generate_series(1::bigint, ${rows}::bigint) AS seq(n)`);
  }
}

/**
 * One write to the collection: a copy of seeded row 1 under a new id (unique columns get fresh
 * values), so anything cached about the collection under this parent (a count) is stale afterwards.
 */
export async function writeOne(db: BenchDb, plan: SeedPlan, k: number): Promise<void> {
  const { scope } = plan;
  const values = plan.allColumns.map((c) => {
    if (c === 'id') return lit(`${scope.copyPrefix}${k}`);
    const unique = plan.uniqueColumns.get(c);
    if (unique === 'text') return `${ident(c)} || ${lit(`-w${k}`)}`;
    if (unique) return `${ident(c)} + ${1_000_000_000 + k}`;
    return ident(c);
  });
  await db.run(
    `INSERT INTO ${ident(plan.table)} (${plan.allColumns.map(ident).join(', ')})
     SELECT ${values.join(', ')} FROM ${ident(plan.table)}
     WHERE ${ident(scope.parentColumn)} = ${lit(scope.parentId)} AND id = ${lit(`${scope.idPrefix}${'1'.padStart(7, '0')}`)}`,
  );
}

/** Deletes the rows `writeOne` added (itself a write to the collection). */
export async function removeCopies(db: BenchDb, plan: SeedPlan): Promise<void> {
  const { scope } = plan;
  await db.run(`DELETE FROM ${ident(plan.table)} WHERE ${ident(scope.parentColumn)} = ${lit(scope.parentId)} AND id LIKE ${lit(`${scope.copyPrefix}%`)}`);
}

/** Rows of the collection under the bench parent (a sanity check of the seed). */
export async function countRows(db: BenchDb, plan: SeedPlan): Promise<number> {
  const [row] = await db.all<{ c: number | string }>(`select count(*) as c from ${ident(plan.table)} where ${ident(plan.scope.parentColumn)} = ${lit(plan.scope.parentId)}`);
  return Number(row.c);
}

/** Fresh planner statistics after the bulk inserts (PostgreSQL: also the visibility map, as autovacuum would). */
export async function analyze(db: BenchDb, tables: string[]): Promise<void> {
  if (db.flavor === 'sqlite') {
    await db.run('ANALYZE');
    // Fold the WAL back into the main file so the server's reads do not wade through a huge WAL.
    await db.all('pragma wal_checkpoint(TRUNCATE)');
    return;
  }
  if (tables.length) await db.run(`VACUUM (ANALYZE) ${tables.map(ident).join(', ')}`);
}
