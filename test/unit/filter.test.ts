// Runs in both vitest projects: row selections against that project's database (SQLite or PostgreSQL),
// the rest (syntax, refusals, canonical text) is dialect-independent and cheap enough to repeat.
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnTypes } from '../../src/migrations/column-types.js';
import { dynamic } from '../../src/platform/db/dynamic.js';
import { ftsSubstringQuery, openDatabase } from '../../src/platform/db/database.js';
import { InvalidArgument } from '../../src/platform/errors.js';
import {
  buildFilter,
  compileFilter,
  compileFilterPredicate,
  formatFilter,
  parseFilter,
  type FilterAst,
  type FilterField,
} from '../../src/platform/query/filter.js';
import { describeDb, freshDatabase, testDialect, type FreshDatabase } from '../support/databases.js';

const FIELDS: Record<string, FilterField> = {
  id: { column: 'id', type: 'string' },
  title: { column: 'title', type: 'string' },
  n: { column: 'n', type: 'integer' },
  price: { column: 'price', type: 'number' },
  active: { column: 'active', type: 'boolean' },
  state: { column: 'state', type: 'enum', values: ['ACTIVE', 'DRAFT', 'ARCHIVED'] },
  tags: { column: 'tags', type: 'string_list' },
  // The API name differs from the column on purpose: filters address fields, SQL addresses columns.
  create_time: { column: 'ctime', type: 'timestamp' },
};

interface Row {
  id: string;
  title: string | null;
  n: number | null;
  price: number | null;
  active: boolean | null;
  state: string | null;
  tags: string[] | null;
  ctime: string | null;
}

const ROWS: Row[] = [
  { id: 'r01', title: 'Alpha launch', n: 1, price: 9.5, active: true, state: 'ACTIVE', tags: ['red', 'blue'], ctime: '2024-01-01T00:00:00Z' },
  { id: 'r02', title: 'beta TEST', n: 2, price: 10, active: false, state: 'DRAFT', tags: ['blue'], ctime: '2024-01-02T00:00:00Z' },
  { id: 'r03', title: 'Sale 50% off', n: 3, price: 19.99, active: true, state: 'ACTIVE', tags: [], ctime: '2024-01-03T12:00:00.500Z' },
  { id: 'r04', title: 'Sale 500 off', n: 4, price: 0.5, active: false, state: 'ARCHIVED', tags: ['green'], ctime: '2024-02-01T00:00:00Z' },
  { id: 'r05', title: 'snake_case', n: -5, price: null, active: true, state: 'DRAFT', tags: ['red'], ctime: '2023-12-31T23:59:59Z' },
  { id: 'r06', title: null, n: null, price: 100, active: null, state: null, tags: null, ctime: null },
  { id: 'r07', title: 'under_score', n: 7, price: 7, active: true, state: 'ACTIVE', tags: ['a_b', 'x y'], ctime: '2024-03-01T00:00:00Z' },
  { id: 'r08', title: 'Say "hi"', n: 8, price: 8.25, active: false, state: 'DRAFT', tags: ['Red'], ctime: '2024-03-02T00:00:00Z' },
  { id: 'r09', title: "It's Omega", n: 9, price: 9.5, active: true, state: 'ARCHIVED', tags: ['red', 'green'], ctime: '2024-03-03T00:00:00Z' },
  { id: 'r10', title: 'AND', n: 10, price: -1.5, active: false, state: 'ACTIVE', tags: ['blue', 'green'], ctime: '2024-03-04T00:00:00Z' },
];
const ALL_IDS = ROWS.map((r) => r.id);
const except = (...ids: string[]) => ALL_IDS.filter((id) => !ids.includes(id));

/** [rule, filter, ids it must select] — run unchanged against every database. */
const SELECTIONS: [string, string, string[]][] = [
  ['an empty filter selects every row', '   ', ALL_IDS],
  ['= on an integer field', 'n = 3', ['r03']],
  ['a negative integer literal', 'n = -5', ['r05']],
  ['a quoted numeric string on an integer field', 'n = "7"', ['r07']],
  ['ordering operators on an integer field skip NULL', 'n < 2', ['r01', 'r05']],
  ['>= on an integer field', 'n >= 8', ['r08', 'r09', 'r10']],
  ['!= also matches rows where the field is NULL (AIP semantics)', 'n != 3', except('r03')],
  ['decimals on a number field', 'price > 9.5', ['r02', 'r03', 'r06']],
  ['= on a number field', 'price = 9.5', ['r01', 'r09']],
  ['negative decimals on a number field', 'price <= 0.5', ['r04', 'r10']],
  ['= true on a boolean field', 'active = true', ['r01', 'r03', 'r05', 'r07', 'r09']],
  ['= false on a boolean field', 'active = false', ['r02', 'r04', 'r08', 'r10']],
  ['!= on a boolean field includes NULL', 'active != true', ['r02', 'r04', 'r06', 'r08', 'r10']],
  ['has on a boolean field means =', 'active:true', ['r01', 'r03', 'r05', 'r07', 'r09']],
  ['= on an enum member', 'state = ACTIVE', ['r01', 'r03', 'r07', 'r10']],
  ['!= on an enum member includes NULL', 'state != DRAFT', ['r01', 'r03', 'r04', 'r06', 'r07', 'r09', 'r10']],
  ['has on an enum field means =', 'state:ARCHIVED', ['r04', 'r09']],
  ['= null is IS NULL', 'title = null', ['r06']],
  ['!= null is IS NOT NULL', 'title != null', except('r06')],
  ['= null on a list field', 'tags = null', ['r06']],
  ['!= null on a list field', 'tags != null', except('r06')],
  ['= null on a timestamp field', 'create_time = null', ['r06']],
  ['a quoted "null" is text, not NULL', 'title = "null"', []],
  ['has on a list field is exact, case-sensitive membership', 'tags:red', ['r01', 'r05', 'r09']],
  ['has on a list field with a quoted member containing a space', 'tags:"x y"', ['r07']],
  ['has on a list field treats LIKE wildcards literally', 'tags:"a_b"', ['r07']],
  ['has on a list field matches no member by wildcard', 'tags:"%"', []],
  ['has on a string field is a case-insensitive contains', 'title:alpha', ['r01']],
  ['has on a string field ignores the case of the needle', 'title:"TeSt"', ['r02']],
  ['has on a string field finds every row containing the text', 'title:Sale', ['r03', 'r04']],
  ['a % in contains text matches literally', 'title:"50%"', ['r03']],
  ['an _ in contains text matches literally', 'title:"_"', ['r05', 'r07']],
  ['backslash escapes inside double quotes', 'title:"\\"hi\\""', ['r08']],
  ['backslash escapes inside single quotes', "title:'it\\'s'", ['r09']],
  ['= on a string field is exact', 'title = "Alpha launch"', ['r01']],
  ['a quoted keyword is an ordinary string', 'title = "AND"', ['r10']],
  ['ordering operators on a string field compare text', 'id >= r08', ['r08', 'r09', 'r10']],
  ['a bare RFC 3339 timestamp', 'create_time >= 2024-03-01T00:00:00Z', ['r07', 'r08', 'r09', 'r10']],
  ['a quoted RFC 3339 timestamp', 'create_time < "2024-01-01T00:00:00Z"', ['r05']],
  ['fractional seconds in a timestamp', 'create_time = 2024-01-03T12:00:00.5Z', ['r03']],
  ['a positive offset in a timestamp', 'create_time = 2024-01-01T01:00:00+01:00', ['r01']],
  ['a negative offset in a timestamp', 'create_time = 2023-12-31T19:00:00-05:00', ['r01']],
  ['a timestamp window at millisecond precision', 'create_time > 2024-01-03T12:00:00.499Z AND create_time < 2024-01-03T12:00:00.501Z', ['r03']],
  ['AND intersects', 'state = ACTIVE AND active = true', ['r01', 'r03', 'r07']],
  ['juxtaposition is an implicit AND', 'state = ACTIVE active = true', ['r01', 'r03', 'r07']],
  ['OR unites', 'n = 1 OR n = 10', ['r01', 'r10']],
  ['OR binds tighter than AND', 'n = 1 AND n = 2 OR active = true', ['r01']],
  ['OR binds tighter than AND when AND comes last', 'active = true OR n = 2 AND state = DRAFT', ['r02', 'r05']],
  ['OR binds tighter than juxtaposition', 'n = 1 n = 2 OR active = true', ['r01']],
  ['parentheses override precedence', '(n = 1 AND n = 2) OR active = true', ['r01', 'r03', 'r05', 'r07', 'r09']],
  ['NOT is a complement that keeps NULL rows', 'NOT state = ACTIVE', ['r02', 'r04', 'r05', 'r06', 'r08', 'r09']],
  ['- prefix negates like NOT', '-state = ACTIVE', ['r02', 'r04', 'r05', 'r06', 'r08', 'r09']],
  ['NOT over a parenthesised OR', 'NOT (n < 5 OR n > 8)', ['r06', 'r07', 'r08']],
  ['double negation cancels', 'NOT NOT n = 3', ['r03']],
  ['- before has on a list field', '-tags:red', ['r02', 'r03', 'r04', 'r06', 'r07', 'r08', 'r10']],
  ['NOT applies to one term, not to the OR around it', 'NOT n = 1 OR n = 1', ALL_IDS],
  ['keywords need no spaces next to parentheses', '(n = 1)OR(n = 2)', ['r01', 'r02']],
];

/** A string field whose `:` is a prefix match (settings paths). */
const PREFIX_FIELDS: Record<string, FilterField> = { ...FIELDS, title: { column: 'title', type: 'string', hasMatchesPrefix: true } };
const PREFIX_SELECTIONS: [string, string[]][] = [
  ['title:"Sale 5"', ['r03', 'r04']],
  ['title:"ale"', []],
  ['title:"snake_"', ['r05']],
  ['title:"snake%"', []],
  ['NOT title:"Sale"', except('r03', 'r04')],
];

describe('the in-memory predicate (virtual collections) selects exactly what SQL selects', () => {
  const memoryRows = ROWS.map((r) => ({ ...r, ctime: r.ctime === null ? null : Date.parse(r.ctime) }));
  const select = (filter: string, fields = FIELDS) => {
    const matches = compileFilterPredicate(parseFilter(filter), fields);
    return memoryRows.filter((r) => matches(r)).map((r) => r.id);
  };
  it.each(SELECTIONS)('%s: %s', (_rule, filter, expected) => {
    expect(select(filter)).toEqual(expected);
  });
  it.each(PREFIX_SELECTIONS)('hasMatchesPrefix: %s', (filter, expected) => {
    expect(select(filter, PREFIX_FIELDS)).toEqual(expected);
  });
  it('refuses undeclared fields and mistyped values like the SQL compiler', () => {
    expect(() => select('colour = red')).toThrow(InvalidArgument);
    expect(() => select('n = abc')).toThrow(InvalidArgument);
    expect(() => select('tags = red')).toThrow(InvalidArgument);
  });
});

describeDb(`filter selects the expected rows on ${testDialect()}`, () => {
  // The database is private to this file, so a fixed table name cannot collide.
  const table = 'filter_fixture';
  let fresh: FreshDatabase;

  beforeAll(async () => {
    fresh = await freshDatabase();
    const { dialect } = fresh.database;
    const db = dynamic(fresh.database.db); // a scratch table, outside the schema
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('title', 'text')
      .addColumn('n', 'integer')
      .addColumn('price', 'double precision')
      .addColumn('active', 'boolean')
      .addColumn('state', 'text')
      .addColumn('tags', columnTypes(db).json)
      .addColumn('ctime', 'bigint')
      .execute();
    await db
      .insertInto(table)
      .values(
        ROWS.map((r) => ({
          ...r,
          active: r.active === null ? null : dialect.bool(r.active),
          tags: r.tags === null ? null : dialect.json(r.tags),
          ctime: r.ctime === null ? null : Date.parse(r.ctime),
        })),
      )
      .execute();
  });

  afterAll(() => fresh?.cleanup());

  async function selectIds(filter: string): Promise<string[]> {
    const { where } = buildFilter(filter, FIELDS, fresh.database.dialect);
    let query = dynamic(fresh.database.db).selectFrom(table).select('id').orderBy('id');
    if (where) query = query.where(where);
    return (await query.execute()).map((r) => r.id as string);
  }

  it.each(SELECTIONS)('%s: %s', async (_rule, filter, expected) => {
    expect(await selectIds(filter)).toEqual(expected);
  });

  it.each(PREFIX_SELECTIONS)('hasMatchesPrefix: %s', async (filter, expected) => {
    const { where } = buildFilter(filter, PREFIX_FIELDS, fresh.database.dialect);
    const rows = await dynamic(fresh.database.db).selectFrom(table).select('id').orderBy('id').where(where!).execute();
    expect(rows.map((r) => r.id)).toEqual(expected);
  });

  it('binds values as parameters, never as SQL text', async () => {
    const hostile = `x'); drop table ${table}; --`;
    const { where } = buildFilter(`title = "${hostile}" OR title:"${hostile}"`, FIELDS, fresh.database.dialect);
    const compiled = dynamic(fresh.database.db).selectFrom(table).select('id').where(where!).compile();
    expect(compiled.sql).not.toContain('drop table');
    expect(compiled.parameters).toContain(hostile);
    expect(await selectIds(`title = "${hostile}"`)).toEqual([]);
  });

  it('binds a number literal compared with a string field as text', () => {
    const { where } = buildFilter('title = 5', FIELDS, fresh.database.dialect);
    const compiled = dynamic(fresh.database.db).selectFrom(table).select('id').where(where!).compile();
    expect(compiled.parameters).toEqual(['5']);
  });
});

// Refusals and canonical text never reach a database; an in-memory SQLite lends its dialect for compiling.
const scratch = openDatabase({ dataDir: tmpdir(), sqliteFile: ':memory:' });
const dialect = scratch.dialect;
afterAll(() => scratch.close());

/** The InvalidArgument a call throws, or a failed expectation when it does not throw one. */
function invalidArgument(call: () => unknown): InvalidArgument {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(InvalidArgument);
    return err as InvalidArgument;
  }
  throw new Error('expected an InvalidArgument, nothing was thrown');
}

/** The field and description of the single FIELD_VIOLATION an error carries. */
function violation(err: InvalidArgument): { field: string; description: string } {
  expect(err.details).toHaveLength(1);
  const [detail] = err.details;
  if (detail.type !== 'FIELD_VIOLATION') throw new Error(`expected a FIELD_VIOLATION, got ${detail.type}`);
  return { field: detail.field, description: detail.description };
}

describe('filter refuses bad input', () => {
  const compile = (text: string) => () => buildFilter(text, FIELDS, dialect);

  it.each([
    ['a missing value', 'n = ', 'expected a value, got end of filter at offset 4'],
    ['a missing operator', 'n 5', 'expected a comparison operator after "n", got "5" at offset 2'],
    ['a missing field', '= 5', 'expected a field name, got "=" at offset 0'],
    ['an unclosed parenthesis', '(n = 1', 'expected ")" to close the "(" at offset 0, got end of filter at offset 6'],
    ['a stray closing parenthesis', 'n = 1)', 'unexpected ")" at offset 5'],
    ['empty parentheses', '()', 'expected a field name, got ")" at offset 1'],
    ['a dangling AND', 'n = 1 AND', 'expected a field name, got end of filter at offset 9'],
    ['a dangling OR', 'n = 1 OR ', 'expected a field name, got end of filter at offset 9'],
    ['a leading AND', 'AND n = 1', 'unexpected keyword AND, expected a field name at offset 0'],
    ['a keyword as a bare value', 'title = OR', 'expected a value, got keyword OR (quote it to compare with the word) at offset 8'],
    ['lowercase keywords', 'n = 1 and n = 2', 'expected a comparison operator after "and", got "n" (keywords are uppercase: AND) at offset 10'],
    ['an unterminated string', 'title = "abc', 'unterminated string at offset 8'],
    ['a string ending in a lone backslash', 'title = "abc\\', 'unterminated string at offset 8'],
    ['a special character in a bare value', 'title = foo*', 'unexpected "*" after a value (quote values that contain it) at offset 11'],
    ['a doubled operator', 'n == 1', 'expected a value, got "=" (quote values that contain it) at offset 3'],
    ['text glued to a quoted value', 'title = "a"b', 'unexpected "b" after a value (quote values that contain it) at offset 11'],
    ['a trailing dot in a field path', 'title. = 1', 'expected a field name after ".", got " " at offset 6'],
    ['a global search term without a field', '"hello"', 'expected a field name, got "\\"" at offset 0'],
    ['a NUL character, which no stored text can hold', 'title:"ab\u0000cd"', 'unexpected NUL character at offset 9'],
  ])('refuses %s with the offset and the problem', (_rule, text, description) => {
    const err = invalidArgument(() => parseFilter(text));
    expect(violation(err)).toEqual({ field: 'filter', description });
    expect(err.message).toBe(`filter: ${description}`);
  });

  it('refuses a filter longer than 2000 characters', () => {
    const text = 'n = 1 '.repeat(334);
    expect(text.length).toBeGreaterThan(2000);
    expect(violation(invalidArgument(() => parseFilter(text)))).toEqual({
      field: 'filter',
      description: 'is longer than 2000 characters',
    });
    expect(parseFilter(text.slice(0, 1998))).toBeDefined();
  });

  it('refuses parentheses nested deeper than 32, accepts 32', () => {
    const nest = (depth: number) => '('.repeat(depth) + 'n = 1' + ')'.repeat(depth);
    expect(parseFilter(nest(32))).toEqual({ kind: 'comparison', field: 'n', operator: '=', value: { kind: 'text', text: '1', quoted: false } });
    expect(violation(invalidArgument(() => parseFilter(nest(33))))).toEqual({
      field: 'filter',
      description: 'nesting deeper than 32 levels at offset 32',
    });
  });

  it('counts negations towards the nesting limit', () => {
    expect(parseFilter('NOT '.repeat(32) + 'n = 1')).toBeDefined();
    expect(violation(invalidArgument(() => parseFilter('-'.repeat(33) + 'n = 1'))).description).toBe(
      'nesting deeper than 32 levels at offset 32',
    );
  });

  it('handles pathological inputs in linear time', () => {
    const inputs = [
      '('.repeat(2000),
      'a'.repeat(2000),
      '"'.repeat(2000),
      '"' + '\\'.repeat(1999),
      'n = 1 '.repeat(333),
      'n = 1 OR '.repeat(222) + 'n = 1',
      'n = 1 AND '.repeat(199) + 'n = 1',
      'n:' + 'a:'.repeat(998),
      '(n = 1) '.repeat(250),
    ];
    const started = performance.now();
    for (const text of inputs) {
      try {
        buildFilter(text, FIELDS, dialect);
      } catch (err) {
        expect(err).toBeInstanceOf(InvalidArgument);
      }
    }
    expect(performance.now() - started).toBeLessThan(500);
  });

  it.each([
    ['an undeclared field', 'secret = 1', 'secret'],
    ['an undeclared field deep inside the expression', 'n = 1 OR NOT (state = ACTIVE secret:x)', 'secret'],
    ['a dotted path', 'title.length = 3', 'title.length'],
    ['a field name that is an Object.prototype member', 'constructor = 1', 'constructor'],
    ['__proto__', '__proto__ = 1', '__proto__'],
    ['the column name behind a differently named field', 'ctime = 1', 'ctime'],
    ['a field that differs only in case', 'Title = x', 'Title'],
  ])('refuses a field outside the filterable list, naming it: %s', (_rule, text, field) => {
    const err = invalidArgument(compile(text));
    expect(violation(err)).toEqual({ field, description: 'is not a filterable field' });
    expect(err.message).toContain(field);
  });

  it.each([
    ['a word on an integer field', 'n = abc', 'n', 'expects an integer, got "abc"'],
    ['a decimal on an integer field', 'n = 1.5', 'n', 'expects an integer, got "1.5"'],
    ['an integer beyond 2^53', 'n > 9007199254740993', 'n', 'expects an integer, got "9007199254740993"'],
    ['a word on a number field', 'price < cheap', 'price', 'expects a number, got "cheap"'],
    ['a word on a boolean field', 'active = yes', 'active', 'expects true or false, got "yes"'],
    ['1 on a boolean field', 'active = 1', 'active', 'expects true or false, got "1"'],
    ['a date without a time', 'create_time > 2024-01-01', 'create_time', 'expects an RFC 3339 timestamp such as 2024-01-02T03:04:05Z, got "2024-01-01"'],
    ['an impossible date', 'create_time > 2024-02-30T00:00:00Z', 'create_time', 'expects an RFC 3339 timestamp such as 2024-01-02T03:04:05Z, got "2024-02-30T00:00:00Z"'],
    ['a timestamp without a zone', 'create_time > 2024-01-01T00:00:00', 'create_time', 'expects an RFC 3339 timestamp such as 2024-01-02T03:04:05Z, got "2024-01-01T00:00:00"'],
    ['epoch milliseconds on a timestamp field', 'create_time > 1700000000000', 'create_time', 'expects an RFC 3339 timestamp such as 2024-01-02T03:04:05Z, got "1700000000000"'],
  ])('refuses a value of the wrong type naming the field: %s', (_rule, text, field, description) => {
    expect(violation(invalidArgument(compile(text)))).toEqual({ field, description });
  });

  it('refuses an enum value outside its members, listing the allowed ones', () => {
    expect(violation(invalidArgument(compile('state = active')))).toEqual({
      field: 'state',
      description: 'expects one of ACTIVE, DRAFT, ARCHIVED, got "active"',
    });
  });

  it.each([
    ['ordering on a boolean field', 'active < true', 'active', 'does not support < (boolean fields accept =, !=, :)'],
    ['ordering on an enum field', 'state >= ACTIVE', 'state', 'does not support >= (enum fields accept =, !=, :)'],
    ['= with a value on a list field', 'tags = red', 'tags', 'does not support = (string_list fields accept :, = null and != null)'],
    ['!= with a value on a list field', 'tags != red', 'tags', 'does not support != (string_list fields accept :, = null and != null)'],
    ['ordering against null', 'n < null', 'n', 'compares with null only through = or !=, not <'],
    ['has against null', 'title:null', 'title', 'compares with null only through = or !=, not :'],
  ])('refuses an operator the field type does not support: %s', (_rule, text, field, description) => {
    expect(violation(invalidArgument(compile(text)))).toEqual({ field, description });
  });
});

describe('filter parse tree and canonical text', () => {
  const cmp = (field: string, text: string): FilterAst => ({
    kind: 'comparison',
    field,
    operator: '=',
    value: { kind: 'text', text, quoted: false },
  });

  it('parses empty and whitespace-only text as no filter', () => {
    expect(parseFilter('')).toBeUndefined();
    expect(parseFilter(' \t\n ')).toBeUndefined();
    expect(buildFilter(undefined, FIELDS, dialect)).toEqual({ where: undefined, canonical: '', indexedContains: [], drivingSemiJoin: false });
    expect(buildFilter('  ', FIELDS, dialect)).toEqual({ where: undefined, canonical: '', indexedContains: [], drivingSemiJoin: false });
  });

  it('OR binds tighter than AND in the tree', () => {
    expect(parseFilter('a = 1 AND b = 2 OR c = 3')).toEqual({
      kind: 'and',
      operands: [cmp('a', '1'), { kind: 'or', operands: [cmp('b', '2'), cmp('c', '3')] }],
    });
  });

  it('flattens chains of the same operator', () => {
    expect(parseFilter('a = 1 AND (b = 2 c = 3) AND d = 4')).toEqual({
      kind: 'and',
      operands: [cmp('a', '1'), cmp('b', '2'), cmp('c', '3'), cmp('d', '4')],
    });
  });

  it('reads escapes in quoted strings', () => {
    expect(parseFilter(String.raw`t = "a\"b\\c\nd\q" u = 'it\'s'`)).toEqual({
      kind: 'and',
      operands: [
        { kind: 'comparison', field: 't', operator: '=', value: { kind: 'text', text: 'a"b\\c\nd' + 'q', quoted: true } },
        { kind: 'comparison', field: 'u', operator: '=', value: { kind: 'text', text: "it's", quoted: true } },
      ],
    });
  });

  it('canonical text ignores whitespace and spelling differences of the same filter', () => {
    const spellings = [
      'n=1 state=ACTIVE OR -active:true',
      '  n = 1   AND  ( state = ACTIVE OR NOT active : true )  ',
      'n = 1\n(state = ACTIVE\tOR - active:true)',
    ];
    const canonicals = spellings.map((s) => buildFilter(s, FIELDS, dialect).canonical);
    expect(canonicals).toEqual(Array(spellings.length).fill('n = 1 AND (state = ACTIVE OR NOT active:true)'));
  });

  it('canonical text differs when the filter means something else', () => {
    const a = buildFilter('n = 1 AND (n = 2 OR n = 3)', FIELDS, dialect).canonical;
    const b = buildFilter('(n = 1 AND n = 2) OR n = 3', FIELDS, dialect).canonical;
    expect(a).not.toBe(b);
    expect(b).toBe('(n = 1 AND n = 2) OR n = 3');
  });

  it.each([
    'a = 1',
    'a != null AND b:"x y" OR c < -2.5',
    String.raw`t = "quote \" back \\ tab	nl
end"`,
    'NOT (a = 1 OR b = 2) -c = 3',
    'NOT NOT a = 1',
    'a = 1 OR (b = 2 AND c = 3) OR NOT (d = 4 AND e = 5)',
    "ts >= 2024-01-02T03:04:05.123+02:00 AND name = 'AND'",
  ])('canonical text parses back to the same tree: %s', (text) => {
    const ast = parseFilter(text);
    const canonical = formatFilter(ast);
    expect(parseFilter(canonical)).toEqual(ast);
    expect(formatFilter(parseFilter(canonical))).toBe(canonical);
  });

  it('compileFilter checks a hand-built tree like a parsed one', () => {
    const tree: FilterAst = { kind: 'not', operand: { kind: 'or', operands: [cmp('n', '3'), cmp('secret', '1')] } };
    expect(violation(invalidArgument(() => compileFilter(tree, FIELDS, dialect))).field).toBe('secret');
  });
});

describe('contains through the trigram text index (SQLite FTS5 query)', () => {
  it('is one quoted phrase in the column, so operators and punctuation are plain characters', () => {
    expect(ftsSubstringQuery('title', 'abc')).toBe('{title} : "abc"');
    expect(ftsSubstringQuery('title', 'OR NEAR( x*')).toBe('{title} : "OR NEAR( x*"');
    expect(ftsSubstringQuery('title', 'a"b')).toBe('{title} : "a""b"');
    expect(ftsSubstringQuery('title', '"""')).toBe('{title} : """"""""');
  });

  it('leaves text shorter than a trigram (3 characters, not UTF-16 units) to the plain LIKE', () => {
    expect(ftsSubstringQuery('title', 'ab')).toBeUndefined();
    expect(ftsSubstringQuery('title', '😀😀')).toBeUndefined();
    expect(ftsSubstringQuery('title', '😀ab')).toBe('{title} : "😀ab"');
  });
});
