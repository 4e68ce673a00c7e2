import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from './schema.js';

export type DialectName = 'sqlite' | 'postgres';

/**
 * The one place where SQLite and PostgreSQL differ. Repositories call these helpers instead
 * of branching on the dialect themselves.
 */
export interface SqlDialect {
  readonly name: DialectName;
  /**
   * Whether every process serving the platform may share this database. SQLite: false, one process
   * owns the file (RUNTIME), so state held in memory (rate limits) is the whole truth. PostgreSQL:
   * true, so state that must hold across processes (security limits) lives in the database.
   */
  readonly manyProcesses: boolean;
  /** A boolean as the driver binds it (better-sqlite3 refuses JS booleans). */
  bool(value: boolean): number | boolean;
  /** A JSON value as stored (TEXT in SQLite, jsonb in PostgreSQL). */
  json(value: unknown): string;
  /** Parse a stored JSON column. */
  readJson<T = unknown>(value: unknown): T;
  /** `column` (a JSON array of strings) contains `value`. */
  arrayHas(column: string, value: string): RawBuilder<boolean>;
  /** `column` (a JSON array of strings) without every element equal to `value`, as a JSON array. */
  arrayWithout(column: string, value: string): RawBuilder<string>;
  /** `column` (a JSON array of strings) with `value` appended (callers add only a missing value). */
  arrayWith(column: string, value: string): RawBuilder<string>;
  /** Number of elements of `column` (a JSON array). */
  arrayLength(column: string): RawBuilder<number>;
  /**
   * Serialises writers of one key until the transaction ends (PostgreSQL: a transaction-scoped
   * advisory lock; SQLite: nothing to do, it has one writer). For uniqueness rules no index states.
   */
  lockKey(trx: Kysely<DB>, key: string): Promise<void>;
  /**
   * Case-insensitive substring match of `column` against `text` (LIKE wildcards escaped). `table`
   * names the table holding `column` when that table has the trigram text index over it (see
   * `textIndexTable`; created by the migrations), undefined for a plain LIKE.
   * SQLite: the rows of the FTS5 trigram table matching the text as a phrase in that column, with
   * the LIKE kept as the recheck (so the result is exactly LIKE's, only found through the index);
   * text shorter than 3 characters has no trigram and is the plain LIKE. PostgreSQL: ILIKE, which
   * the planner answers from the table's pg_trgm GIN index when it pays.
   */
  containsText(table: string | undefined, column: string, text: string, plan?: TextMatchPlan): RawBuilder<boolean>;
  /**
   * How a List page should reach the rows of a contains filter that matches `matches` rows (the
   * exact count, known from the page token or counted first), when the dialect has a choice; absent
   * when it has one plan only (PostgreSQL: the planner picks between the trigram index and the
   * ordered index itself). SQLite: `row_check` from 40 pages' worth of matches on.
   */
  pageTextMatchPlan?(matches: number, pageSize: number): TextMatchPlan;
  /**
   * Whether the text index holds `text` in `column` of at least `COUNT_ROW_CHECK_MIN_MATCHES` rows
   * of the whole table (reading at most that many index entries), when the dialect's count of a
   * contains has a choice (SQLite); absent otherwise. A List's count with one contains is then
   * `CASE WHEN <this> THEN <count checking rows> ELSE <count through the text index> END`.
   */
  textIndexHoldsMany?(table: string, column: string, text: string): RawBuilder<boolean> | undefined;
  /** Lock the selected rows for the rest of the transaction (SQLite: the write lock already does). */
  forUpdate<Q extends { forUpdate(): Q }>(query: Q): Q;
  /** Share-lock the selected rows: concurrent sharers go on, a FOR UPDATE waits (SQLite: the write lock already does). */
  forShare<Q extends { forShare(): Q }>(query: Q): Q;
  /** `column` (a JSON object) without `key`; NULL when nothing is left. */
  jsonWithoutKey(column: string, key: string): RawBuilder<unknown>;
  /** `column` (a JSON object) has `key`. */
  jsonHasKey(column: string, key: string): RawBuilder<boolean>;
  /**
   * `column` is among `inner.column` of the `inner.table` rows matching `inner.where` (a semi-join).
   * SQLite: `+column IN (subquery)`: the set is read once, and the unary + keeps a List walking its
   * ORDER BY index and probing the set instead of sorting every match. PostgreSQL: a correlated
   * EXISTS, planned as a semi-join, or under OR as an index probe per row (an IN subquery there would
   * be rescanned per row once it outgrows work_mem). SQLite `drive`: `(tenant, column) IN (subquery)`,
   * which probes the table's key with the side table's rows whether the key leads with the tenant or not.
   */
  semiJoin(column: string, inner: SemiJoinInner, plan?: SemiJoinPlan): RawBuilder<boolean>;
  /**
   * How a List page should reach the rows of a side-table filter (`semiJoin`, e.g. `category_ids:"c"`)
   * when the whole filter matches `matches` rows (the exact count, known from the page token or
   * counted first); absent when the dialect's planner chooses itself (PostgreSQL, from its
   * statistics). SQLite (no statistics): `drive` below `DRIVE_MAX_PAGES` pages' worth of matches.
   */
  pageSemiJoinPlan?(matches: number, pageSize: number): SemiJoinPlan;
  /**
   * `column` as a term no index may serve (SQLite: `+column`, same value and collation); the
   * ORDER BY and keyset of a `drive` page use it so the planner cannot walk the ordered index.
   * PostgreSQL: the plain column.
   */
  notIndexed(column: string): RawBuilder<unknown>;
  /** Claim rows other workers have not locked (PostgreSQL SKIP LOCKED; SQLite has one writer). */
  skipLocked<Q extends { forUpdate(): Q; skipLocked(): Q }>(query: Q): Q;
  /** The driver error of a UNIQUE or PRIMARY KEY violation. */
  isUniqueViolation(err: unknown): boolean;
  /** The driver error of a FOREIGN KEY violation. */
  isForeignKeyViolation(err: unknown): boolean;
  /** The driver error of a statement cut off by its time limit (or a lock wait by `boundLockWait`). */
  isTimeout(err: unknown): boolean;
  /**
   * The driver error of a transaction the database aborted to break a deadlock or a serialization
   * conflict: rolled back whole, so running it again is safe (PostgreSQL 40P01, 40001; SQLite's one
   * writer has neither).
   */
  isTransientConflict(err: unknown): boolean;
  /**
   * Lets the rest of the transaction wait at most `ms` for a row lock, then fail (`isTimeout`), for
   * background work that must give way to requests instead of deadlocking with them (PostgreSQL
   * `SET LOCAL lock_timeout`, shorter than the deadlock detector's wait; SQLite: one writer, no-op).
   */
  boundLockWait(trx: Kysely<DB>, ms: number): Promise<void>;
  /** Tells subscribers of `channel` in other processes, when the transaction commits (no-op on SQLite). */
  notify(db: Kysely<DB>, channel: string): Promise<void>;
  /**
   * The site search's one ranked query over `search_documents` (migration 2026-11-26-1530): the
   * documents of one website and view, live at `now`, matching every word of `text`, best first
   * (title matches weigh more than body matches), with the title and a snippet of the body whose
   * matches are wrapped in `SEARCH_MARK_START`/`SEARCH_MARK_END`. `text` is user text and never
   * reaches FTS syntax: SQLite quotes each word as an FTS5 phrase (`"` doubled), so `*`, `NEAR`,
   * `-`, `:`, `(`, `^` are plain characters, then ranks with `bm25()` and cuts `snippet()`;
   * PostgreSQL parses it with `websearch_to_tsquery` in the view's text search configuration
   * (`config`; it never raises on any input), ranks with `ts_rank_cd` over the weighted `tsv` and
   * cuts `ts_headline`. Snippets are computed for the page of hits only. The ranked set is the
   * `SEARCH_CANDIDATES` newest matches of the view, so a word in every document costs a bounded walk.
   */
  fullTextSearch(query: FullTextQuery): RawBuilder<FullTextHit>;
  /**
   * Inserts many rows of one table (optionally upserting on `conflict`: key columns, and the columns
   * that take the new row's values), for high-volume writes such as the analytics flush. SQLite:
   * multi-row VALUES statements (in-process, cheap to parse). PostgreSQL: one statement whose
   * columns arrive as `unnest` arrays — a few parameters instead of one per cell, so neither Kysely's
   * compile nor the server's parse and plan grows with the rows (measured in docs/performance.md).
   */
  insertRows(trx: Kysely<DB>, table: string, columns: readonly BulkColumn[], rows: ReadonlyArray<Record<string, unknown>>, conflict?: BulkConflict): Promise<void>;
}

/** A column of `insertRows`, with its SQL type (PostgreSQL casts each column's array to it). */
export interface BulkColumn {
  name: string;
  type: 'text' | 'bigint' | 'integer';
}
export interface BulkConflict {
  key: readonly string[];
  update: readonly string[];
}

/** Largest parameter count of one SQLite statement, and rows per multi-row statement at most. */
const SQLITE_MAX_PARAMETERS = 32_766;
const SQLITE_MAX_ROWS_PER_STATEMENT = 500;
/** Rows per PostgreSQL `unnest` statement: bounds one statement's arrays in memory. */
const POSTGRES_ROWS_PER_STATEMENT = 5_000;

const conflictClause = (conflict: BulkConflict | undefined) =>
  conflict
    ? sql` on conflict (${sql.join(conflict.key.map((c) => sql.ref(c)))}) do update set ${sql.join(conflict.update.map((c) => sql`${sql.ref(c)} = excluded.${sql.ref(c)}`))}`
    : sql``;

/** Marks around a match in `FullTextHit.title_marked` / `snippet_marked` (control characters no stored text holds). */
export const SEARCH_MARK_START = '\u0002';
export const SEARCH_MARK_END = '\u0003';
/**
 * Matches of one search that are ranked: the newest this many of the view (index order). A word found
 * in more documents ranks among those (bounded cost per query); rarer words rank every match.
 */
export const SEARCH_CANDIDATES = 1_000;
/** Words of a search query that count (SQLite; more are ignored, a bounded query). */
export const SEARCH_MAX_TERMS = 16;

/** What `fullTextSearch` looks for. */
export interface FullTextQuery {
  text: string;
  /** PostgreSQL text search configuration of the view's language (`english`, `german`, …, `simple`). */
  config: string;
  websiteId: string;
  viewId: string;
  now: number;
  limit: number;
  offset: number;
}

/** One hit of `fullTextSearch`, best first. */
export interface FullTextHit {
  kind: string;
  source_id: string;
  path: string;
  title: string;
  title_marked: string;
  snippet_marked: string;
  update_time: number;
}

/** SQLite: `text` as an FTS5 query of quoted words (implicit AND); undefined when it has no word. */
export function ftsWordsQuery(text: string): string | undefined {
  const words = text.split(/\s+/u).filter((w) => w !== '').slice(0, SEARCH_MAX_TERMS);
  return words.length ? words.map((w) => `"${w.replace(/"/g, '""')}"`).join(' ') : undefined;
}

/**
 * How a contains filter (`containsText`) finds its rows. `text_index`: through the table's trigram
 * text index (every match of the text is found, then ordered: cheap when matches are few).
 * `row_check`: no index for the text; each row the query walks is checked with LIKE (a page walking
 * its ordered index stops after a page of matches: cheap when matches are many). Same rows either way.
 */
export type TextMatchPlan = 'text_index' | 'row_check';

/**
 * How a side-table filter (`semiJoin`) finds its rows. `probe`: walk the List's ordered index and
 * probe the side table's set per row (stops after a page of matches: cheap when matches are many).
 * `drive`: read the matches from the side table's index, fetch each row by key and sort them (cheap
 * when matches are few). Same rows either way.
 */
export type SemiJoinPlan = 'probe' | 'drive';

/** The side table of a `semiJoin`: its rows matching `where`; `column` holds the outer table's ids. */
export interface SemiJoinInner {
  table: string;
  column: string;
  where: RawBuilder<boolean>;
  /** A tenant column both tables carry under this name (`website_id`): a `drive` probes (tenant, id). */
  tenant?: string;
}

/**
 * SQLite: a side-table filter drives the page (`drive`) below this many pages' worth of matches.
 * Measured at 100 000 posts (docs/performance.md): driving costs ~8 µs a match (10 000: 83 ms,
 * 100: 2.7 ms); walking costs ~0.4 µs a row walked (a page of a 10 % member: 9 ms; a 0.1 % member
 * walks the whole website: 37 ms). 10 pages (500 matches at 50 a page) bounds a driven page at ~4 ms.
 */
export const DRIVE_MAX_PAGES = 10;

/** SQLite: a page walks its ordered index with LIKE (`row_check`) from this many pages' worth of matches on. */
export const ROW_CHECK_MIN_PAGES = 40;

/**
 * SQLite: a count checks every row of the scope with LIKE (over the column's covering index, ~0.25 µs
 * a row) instead of fetching every text-index match's row (~6 µs a match, all websites) from this
 * many matches on.
 */
export const COUNT_ROW_CHECK_MIN_MATCHES = 5_000;

/** The SQLite FTS5 table (trigram tokenizer, external content) indexing `table`'s filterable text columns. */
export function textIndexTable(table: string): string {
  return `${table}_fts`;
}

/**
 * An FTS5 query matching `text` literally as a substring of `column`: the text is one quoted phrase
 * (`"` doubled, the only character a phrase escapes), so operators and punctuation in it
 * (`OR`, `NEAR(`, `*`, `:`) are plain characters. Undefined when the text is shorter than a trigram.
 */
export function ftsSubstringQuery(column: string, text: string): string | undefined {
  if ([...text].length < 3) return undefined;
  return `{${column}} : "${text.replace(/"/g, '""')}"`;
}

/** Escape LIKE wildcards so user text matches literally. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => '\\' + c);
}

/** SQLite's side of every difference. */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  manyProcesses: false,
  async insertRows(trx, table, columns, rows, conflict) {
    const perStatement = Math.min(SQLITE_MAX_ROWS_PER_STATEMENT, Math.floor(SQLITE_MAX_PARAMETERS / columns.length));
    for (let i = 0; i < rows.length; i += perStatement) {
      const tuples = rows.slice(i, i + perStatement).map((row) => sql`(${sql.join(columns.map((c) => row[c.name] ?? null))})`);
      await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))}) values ${sql.join(tuples)}${conflictClause(conflict)}`.execute(trx);
    }
  },
  bool: (v) => (v ? 1 : 0),
  json: (v) => JSON.stringify(v),
  // The caller states the stored shape (`readJson<T>`): JSON carries no type of its own.
  readJson: <T>(v: unknown) => (v == null ? v : typeof v === 'string' ? JSON.parse(v) : v) as T,
  arrayHas: (column, value) =>
    sql<boolean>`exists (select 1 from json_each(${sql.ref(column)}) where json_each.value = ${value})`,
  arrayWithout: (column, value) =>
    sql<string>`(select json_group_array(json_each.value) from json_each(${sql.ref(column)}) where json_each.value != ${value})`,
  arrayWith: (column, value) => sql<string>`json_insert(${sql.ref(column)}, '$[#]', ${value})`,
  arrayLength: (column) => sql<number>`json_array_length(${sql.ref(column)})`,
  lockKey: async () => {},
  containsText: (table, column, text, plan = 'text_index') => {
    const like = sql<boolean>`${sql.ref(column)} like ${'%' + escapeLike(text) + '%'} escape '\\'`;
    const phrase = table === undefined || plan === 'row_check' ? undefined : ftsSubstringQuery(column, text);
    if (phrase === undefined) return like;
    const fts = textIndexTable(table!);
    return sql<boolean>`(${sql.ref(`${table}.rowid`)} in (select rowid from ${sql.table(fts)} where ${sql.table(fts)} match ${phrase}) and ${like})`;
  },
  // FTS5 answers `rowid IN (…)` by materialising every match of the text (in every website) and
  // sorting them: ~10 µs a match. LIKE along the ordered index costs ~5 µs a row walked and stops
  // after a page of matches: cheaper once matches are common (measured in docs/performance.md).
  pageTextMatchPlan: (matches, pageSize) => (matches >= ROW_CHECK_MIN_PAGES * pageSize ? 'row_check' : 'text_index'),
  // Walking the ordered index costs ~0.4 µs a row walked until a page of matches is found (a rare
  // member: the whole website); driving costs ~8 µs a match (fetch + sort). See DRIVE_MAX_PAGES.
  pageSemiJoinPlan: (matches, pageSize) => (matches < DRIVE_MAX_PAGES * pageSize ? 'drive' : 'probe'),
  notIndexed: (column) => sql`+${sql.ref(column)}`,
  textIndexHoldsMany: (table, column, text) => {
    const phrase = ftsSubstringQuery(column, text);
    if (phrase === undefined) return undefined;
    const fts = sql.table(textIndexTable(table));
    return sql<boolean>`((select count(*) from (select 1 from ${fts} where ${fts} match ${phrase} limit ${COUNT_ROW_CHECK_MIN_MATCHES})) >= ${COUNT_ROW_CHECK_MIN_MATCHES})`;
  },
  forUpdate: (query) => query,
  forShare: (query) => query,
  // `drive`: without the +, the IN probes the table's key with the side table's rows; the page's
  // scope, ORDER BY and keyset use `notIndexed`, so (without statistics) SQLite cannot prefer
  // walking an index that leads with the tenant.
  semiJoin: (column, inner, plan = 'probe') => {
    const ids = sql.ref(`${inner.table}.${inner.column}`);
    if (plan === 'probe') return sql<boolean>`+${sql.ref(column)} in (select ${ids} from ${sql.table(inner.table)} where ${inner.where})`;
    if (!inner.tenant) return sql<boolean>`${sql.ref(column)} in (select ${ids} from ${sql.table(inner.table)} where ${inner.where})`;
    const outerTenant = sql.ref(column.includes('.') ? `${column.slice(0, column.lastIndexOf('.'))}.${inner.tenant}` : inner.tenant);
    return sql<boolean>`(${outerTenant}, ${sql.ref(column)}) in (select ${sql.ref(`${inner.table}.${inner.tenant}`)}, ${ids} from ${sql.table(inner.table)} where ${inner.where})`;
  },
  jsonWithoutKey: (column, key) => sql`nullif(json_remove(${sql.ref(column)}, ${'$.' + key}), '{}')`,
  jsonHasKey: (column, key) => sql<boolean>`json_type(${sql.ref(column)}, ${'$.' + key}) is not null`,
  skipLocked: (query) => query,
  isUniqueViolation: (err) => /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(String((err as { code?: string })?.code)),
  isForeignKeyViolation: (err) => (err as { code?: string })?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY',
  isTimeout: (err) => (err as { code?: string })?.code === 'SQLITE_INTERRUPT',
  isTransientConflict: () => false,
  boundLockWait: async () => {},
  notify: async () => {},
  fullTextSearch: (q) => {
    const match = ftsWordsQuery(q.text) ?? '""';
    const fts = sql.table('search_documents_fts');
    // CROSS JOIN keeps FTS5 as the outer loop (else SQLite walks the view's documents and probes the
    // full-text index once per row). Candidates: the SEARCH_CANDIDATES newest matches of the view (by
    // rowid, which FTS5 walks backwards cheaply); bm25 ranks the matches from the oldest of them on,
    // so a word found in every document costs a bounded walk, not a rank of every match.
    const scope = sql`d.website_id = ${q.websiteId} and d.view_id = ${q.viewId} and d.live_from <= ${q.now}`;
    return sql<FullTextHit>`with floor as (
        select min(id) as id from (select f.rowid as id from ${fts} f cross join search_documents d on d.doc_id = f.rowid
          where ${fts} match ${match} and ${scope} order by f.rowid desc limit ${SEARCH_CANDIDATES})),
      top as (
        select d.doc_id, bm25(search_documents_fts, 10.0, 1.0) as score
        from ${fts} cross join search_documents d on d.doc_id = search_documents_fts.rowid
        where ${fts} match ${match} and search_documents_fts.rowid >= (select id from floor) and ${scope}
        order by score, d.doc_id limit ${q.limit} offset ${q.offset})
      select d.kind, d.source_id, d.path, d.title, d.update_time,
        highlight(search_documents_fts, 0, ${SEARCH_MARK_START}, ${SEARCH_MARK_END}) as title_marked,
        snippet(search_documents_fts, 1, ${SEARCH_MARK_START}, ${SEARCH_MARK_END}, '…', 32) as snippet_marked
      from top cross join search_documents d on d.doc_id = top.doc_id
        cross join ${fts} on search_documents_fts.rowid = top.doc_id
      where ${fts} match ${match}
      order by top.score, top.doc_id`;
  },
};

/** PostgreSQL's side of every difference. */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  manyProcesses: true,
  async insertRows(trx, table, columns, rows, conflict) {
    for (let i = 0; i < rows.length; i += POSTGRES_ROWS_PER_STATEMENT) {
      const chunk = rows.slice(i, i + POSTGRES_ROWS_PER_STATEMENT);
      const arrays = columns.map((c) => sql`${chunk.map((row) => row[c.name] ?? null)}::${sql.raw(c.type)}[]`);
      await sql`insert into ${sql.table(table)} (${sql.join(columns.map((c) => sql.ref(c.name)))}) select * from unnest(${sql.join(arrays)})${conflictClause(conflict)}`.execute(trx);
    }
  },
  bool: (v) => v,
  json: (v) => JSON.stringify(v),
  // As on SQLite: the caller states the stored shape.
  readJson: <T>(v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v) as T,
  arrayHas: (column, value) => sql<boolean>`${sql.ref(column)} @> ${JSON.stringify([value])}::jsonb`,
  arrayWithout: (column, value) =>
    sql<string>`(select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(${sql.ref(column)}) e where e <> to_jsonb(${value}::text))`,
  arrayWith: (column, value) => sql<string>`(${sql.ref(column)} || jsonb_build_array(${value}::text))`,
  arrayLength: (column) => sql<number>`jsonb_array_length(${sql.ref(column)})`,
  lockKey: async (trx, key) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  },
  // The trigram GIN index serves ILIKE as it stands (a lossy bitmap, rechecked by the heap).
  containsText: (_table, column, text) => sql<boolean>`${sql.ref(column)} ilike ${'%' + escapeLike(text) + '%'} escape '\\'`,
  forUpdate: (query) => query.forUpdate(),
  forShare: (query) => query.forShare(),
  notIndexed: (column) => sql.ref(column),
  semiJoin: (column, inner) =>
    sql<boolean>`exists (select 1 from ${sql.table(inner.table)} where ${inner.where} and ${sql.ref(`${inner.table}.${inner.column}`)} = ${sql.ref(column)})`,
  jsonWithoutKey: (column, key) => sql`nullif(${sql.ref(column)} - ${key}::text, '{}'::jsonb)`,
  jsonHasKey: (column, key) => sql<boolean>`jsonb_exists(${sql.ref(column)}, ${key}::text)`,
  skipLocked: (query) => query.forUpdate().skipLocked(),
  isUniqueViolation: (err) => (err as { code?: string })?.code === '23505',
  isForeignKeyViolation: (err) => (err as { code?: string })?.code === '23503',
  isTimeout: (err) => ['57014', '55P03'].includes(String((err as { code?: string })?.code)),
  isTransientConflict: (err) => ['40P01', '40001'].includes(String((err as { code?: string })?.code)),
  boundLockWait: async (trx, ms) => {
    await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.floor(ms))}ms`}, true)`.execute(trx);
  },
  // NOTIFY inside a transaction is delivered at commit, never for a rollback.
  notify: async (db, channel) => {
    await sql`select pg_notify(${channel}, '')`.execute(db);
  },
  fullTextSearch: (q) => {
    // The tsquery written out where it is used (not a CTE): it folds to a constant at planning, so
    // the planner sees the word's frequency in the tsv statistics and picks the GIN index for a rare
    // word, the doc_id order with a per-row check for a common one (a CTE hid it: 150 ms for a word
    // in every document, ranking all of them). Candidates: the SEARCH_CANDIDATES newest matches.
    const query = sql`websearch_to_tsquery(${q.config}::regconfig, ${q.text})`;
    const marks = `StartSel=${SEARCH_MARK_START}, StopSel=${SEARCH_MARK_END}`;
    // The title whole: with MaxFragments set, ts_headline cuts fragments and ignores HighlightAll.
    const titleOptions = `${marks}, HighlightAll=true`;
    const options = `${marks}, MaxWords=35, MinWords=15, MaxFragments=2, FragmentDelimiter=" … "`;
    // Escaped first, then marked: ts_headline's parser reads `<…>` as a tag and drops it (and what it
    // swallows); escaped, it holds entity tokens, which are never marked nor cut. Unescaped after
    // (`&lt;`, `&gt;` before `&amp;`: the exact inverse), so both dialects answer the text with marks.
    const headline = (column: string, opts: string) =>
      sql`replace(replace(replace(ts_headline(${q.config}::regconfig, replace(replace(replace(${sql.ref(column)}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), ${query}, ${opts}), '&lt;', '<'), '&gt;', '>'), '&amp;', '&')`;
    return sql<FullTextHit>`with cand as (
        select d.doc_id, d.tsv from search_documents d
        where d.tsv @@ ${query} and d.website_id = ${q.websiteId} and d.view_id = ${q.viewId} and d.live_from <= ${q.now}
        order by d.doc_id desc limit ${SEARCH_CANDIDATES}),
      top as (
        select cand.doc_id, ts_rank_cd(cand.tsv, ${query}) as score from cand
        order by score desc, cand.doc_id limit ${q.limit} offset ${q.offset})
      select d.kind, d.source_id, d.path, d.title, d.update_time,
        ${headline('d.title', titleOptions)} as title_marked,
        ${headline('d.body', options)} as snippet_marked
      from top join search_documents d on d.doc_id = top.doc_id
      order by top.score desc, top.doc_id`;
  },
};
