/**
 * The `filter` list parameter compiled: an AST (filter-syntax.ts parses and prints it) typed against
 * the declared fields, then turned into a Kysely boolean expression over declared columns only (never
 * joins, never undeclared columns), or into a predicate over rows held in memory (virtual collections).
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { escapeLike, type SemiJoinPlan, type SqlDialect, type TextMatchPlan } from '../db/database.js';
import { InvalidArgument } from '../errors.js';
import { formatFilter, parseFilter, type FilterAst, type FilterOperator } from './filter-syntax.js';

export { MAX_FILTER_LENGTH, MAX_FILTER_DEPTH, parseFilter, formatFilter } from './filter-syntax.js';
export type { FilterOperator, FilterValue, FilterAst } from './filter-syntax.js';

/** How a filterable field's values are typed and compared. */
export type FilterFieldType = 'string' | 'integer' | 'number' | 'boolean' | 'timestamp' | 'enum' | 'string_list';

/** One filterable field: the column it reads, its type and, for enums, the allowed members. */
export interface FilterField {
  column: string;
  type: FilterFieldType;
  values?: readonly string[];
  /** `:` on this string field matches a prefix (dotted setting paths) instead of a substring. */
  hasMatchesPrefix?: boolean;
  /** Values are stored lowercase: compare the filter value lowercased (case-insensitive match). */
  lowercase?: boolean;
  /**
   * String fields: the table holding the column, whose trigram text index answers `:` (contains)
   * (see `SqlDialect.containsText`); absent: a plain LIKE over the column.
   */
  textIndexedTable?: string;
  /**
   * Answers `field:value` itself (e.g. from an indexed side table) instead of the column; gets the
   * scope ids and, for a List page, the `SemiJoinPlan` to hand to `SqlDialect.semiJoin`.
   */
  has?: (value: string, scope: Readonly<Record<string, string>>, plan?: SemiJoinPlan) => RawBuilder<boolean>;
}

/** Path ids of the query being filtered (`website_id`, ...), for `has` compilers that need the tenant. */
export type FilterScope = Readonly<Record<string, string>>;


const SQL_OPERATOR: Record<Exclude<FilterOperator, '!='>, string> = {
  '=': '=',
  ':': '=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

const EQUALITY_OPERATORS: readonly FilterOperator[] = ['=', '!=', ':'];
const ALL_OPERATORS: readonly FilterOperator[] = ['=', '!=', '<', '<=', '>', '>=', ':'];

const OPERATORS_OF: Record<FilterFieldType, readonly FilterOperator[]> = {
  string: ALL_OPERATORS,
  integer: ALL_OPERATORS,
  number: ALL_OPERATORS,
  timestamp: ALL_OPERATORS,
  boolean: EQUALITY_OPERATORS,
  enum: EQUALITY_OPERATORS,
  string_list: [':'],
};

const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Epoch milliseconds of an RFC 3339 timestamp, or undefined when it is not one (including impossible dates). */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const millis = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  const offsetHours = m[9] ? Number(m[10]) : 0;
  const offsetMinutes = m[9] ? Number(m[11]) : 0;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const local = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  // Date.UTC rolls 02-30 over into March; a round trip of the calendar fields catches it.
  if (local.getUTCFullYear() !== year || local.getUTCMonth() !== month - 1 || local.getUTCDate() !== day) return undefined;
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return local.getTime() - offset;
}

/** The bound value for a non-null literal compared with `name`, checked against the field's type. */
function typedValue(name: string, field: FilterField, text: string): string | number | boolean {
  const refuse = (expected: string) => InvalidArgument.field(name, `expects ${expected}, got ${JSON.stringify(text)}`);
  switch (field.type) {
    case 'string':
    case 'string_list':
      return text;
    case 'integer': {
      const n = Number(text);
      if (!INTEGER.test(text) || !Number.isSafeInteger(n)) throw refuse('an integer');
      return n;
    }
    case 'number': {
      const n = Number(text);
      if (!DECIMAL.test(text) || !Number.isFinite(n)) throw refuse('a number');
      return n;
    }
    case 'boolean':
      if (text !== 'true' && text !== 'false') throw refuse('true or false');
      return text === 'true';
    case 'timestamp': {
      const millis = parseRfc3339(text);
      if (millis === undefined) throw refuse('an RFC 3339 timestamp such as 2024-01-02T03:04:05Z');
      return millis;
    }
    case 'enum': {
      const allowed = field.values ?? [];
      if (!allowed.includes(text)) throw refuse(`one of ${allowed.join(', ')}`);
      return text;
    }
  }
}

function compileComparison(
  node: Extract<FilterAst, { kind: 'comparison' }>,
  fields: Record<string, FilterField>,
  dialect: SqlDialect,
  scope: FilterScope,
  semiJoin?: SemiJoinPlan,
): RawBuilder<SqlBool> {
  const name = node.field;
  // Own properties only, so `constructor` or `__proto__` never resolve to Object.prototype.
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (!field) throw InvalidArgument.field(name, 'is not a filterable field');
  const column = sql.ref(field.column);
  const { operator, value } = node;

  if (value.kind === 'null') {
    if (operator === '=') return sql<SqlBool>`${column} is null`;
    if (operator === '!=') return sql<SqlBool>`${column} is not null`;
    throw InvalidArgument.field(name, `compares with null only through = or !=, not ${operator}`);
  }
  const allowed = OPERATORS_OF[field.type];
  if (!allowed.includes(operator)) {
    const accepted = field.type === 'string_list' ? ':, = null and != null' : allowed.join(', ');
    throw InvalidArgument.field(name, `does not support ${operator} (${field.type} fields accept ${accepted})`);
  }
  const typed = typedValue(name, field, value.text);
  const bound = field.lowercase && typeof typed === 'string' ? typed.toLowerCase() : typed;
  if (operator === ':' && field.has) return field.has(String(bound), scope, semiJoin).$castTo<SqlBool>();

  if (operator === ':' && field.type === 'string' && field.hasMatchesPrefix) {
    return sql<SqlBool>`${column} like ${escapeLike(String(bound)) + '%'} escape '\\'`;
  }
  if (operator === ':' && field.type === 'string') return dialect.containsText(field.textIndexedTable, field.column, String(bound)).$castTo<SqlBool>();
  if (operator === ':' && field.type === 'string_list') return dialect.arrayHas(field.column, String(bound)).$castTo<SqlBool>();
  const parameter = typeof bound === 'boolean' ? dialect.bool(bound) : bound;
  // AIP-160 `!=` means "is not x", which an absent (NULL) value also is; plain SQL <> would drop it.
  if (operator === '!=') return sql<SqlBool>`(${column} <> ${parameter} or ${column} is null)`;
  return sql<SqlBool>`${column} ${sql.raw(SQL_OPERATOR[operator])} ${parameter}`;
}

/** `semiJoin`: the plan of the side-table filters that every match must pass (reached through ANDs only). */
function compileNode(ast: FilterAst, fields: Record<string, FilterField>, dialect: SqlDialect, scope: FilterScope, semiJoin?: SemiJoinPlan): RawBuilder<SqlBool> {
  switch (ast.kind) {
    case 'comparison':
      return compileComparison(ast, fields, dialect, scope, semiJoin);
    case 'and':
    case 'or': {
      const parts = ast.operands.map((o) => compileNode(o, fields, dialect, scope, ast.kind === 'and' ? semiJoin : undefined));
      return sql<SqlBool>`(${sql.join(parts, sql.raw(` ${ast.kind} `))})`;
    }
    case 'not':
      // A comparison on a NULL column is unknown, and SQL's NOT keeps it unknown (row dropped);
      // coalescing makes NOT a true complement, consistent with `!=` matching NULLs.
      return sql<SqlBool>`not coalesce(${compileNode(ast.operand, fields, dialect, scope)}, false)`;
  }
}

/** Compiles an AST to a boolean expression over the declared columns; undeclared fields and mistyped values throw InvalidArgument naming the field. */
export function compileFilter(ast: FilterAst, fields: Record<string, FilterField>, dialect: SqlDialect, scope: FilterScope = {}, semiJoin?: SemiJoinPlan): Expression<SqlBool> {
  return compileNode(ast, fields, dialect, scope, semiJoin);
}

/** Whether a side-table filter (`has`) restricts every match (reached from the root through ANDs only): then its rows can drive a page. */
function hasDrivingSemiJoin(ast: FilterAst, fields: Record<string, FilterField>): boolean {
  if (ast.kind === 'and') return ast.operands.some((o) => hasDrivingSemiJoin(o, fields));
  if (ast.kind !== 'comparison') return false;
  const field = Object.hasOwn(fields, ast.field) ? fields[ast.field] : undefined;
  return ast.operator === ':' && ast.value.kind !== 'null' && !!field?.has;
}

/** A contains (`:`) on a string field with a trigram text index: the plan of these is `TextMatchPlan`'s to choose. */
export interface IndexedContains {
  table: string;
  column: string;
  text: string;
}

function indexedContainsOf(ast: FilterAst, fields: Record<string, FilterField>, found: IndexedContains[]): IndexedContains[] {
  switch (ast.kind) {
    case 'comparison': {
      const field = Object.hasOwn(fields, ast.field) ? fields[ast.field] : undefined;
      if (ast.operator === ':' && ast.value.kind === 'text' && field?.type === 'string' && !field.has && !field.hasMatchesPrefix && field.textIndexedTable) {
        found.push({ table: field.textIndexedTable, column: field.column, text: field.lowercase ? ast.value.text.toLowerCase() : ast.value.text });
      }
      break;
    }
    case 'and':
    case 'or':
      for (const operand of ast.operands) indexedContainsOf(operand, fields, found);
      break;
    case 'not':
      indexedContainsOf(ast.operand, fields, found);
  }
  return found;
}

/**
 * Parses and compiles `text`, returning the WHERE expression (undefined when empty), the canonical
 * text page tokens bind to, and its contains that can take either `TextMatchPlan` (`textMatch`,
 * default `text_index`, decides which this compilation uses); `drivingSemiJoin` says whether a
 * side-table filter every match passes could drive the page (`semiJoin`, default the `has`
 * compiler's own, decides its `SemiJoinPlan`).
 */
export function buildFilter(
  text: string | undefined,
  fields: Record<string, FilterField>,
  dialect: SqlDialect,
  scope: FilterScope = {},
  textMatch: TextMatchPlan = 'text_index',
  semiJoin?: SemiJoinPlan,
): { where: Expression<SqlBool> | undefined; canonical: string; indexedContains: IndexedContains[]; drivingSemiJoin: boolean } {
  const ast = parseFilter(text ?? '');
  const compiling: SqlDialect =
    textMatch === 'text_index' ? dialect : { ...dialect, containsText: (table, column, value) => dialect.containsText(table, column, value, textMatch) };
  return {
    where: ast && compileFilter(ast, fields, compiling, scope, semiJoin),
    canonical: formatFilter(ast),
    indexedContains: ast ? indexedContainsOf(ast, fields, []) : [],
    drivingSemiJoin: ast ? hasDrivingSemiJoin(ast, fields) : false,
  };
}

/** A value of a row held in memory, as the filter compares it (timestamps in epoch ms). */
export type FilterOperand = string | number | boolean | null | undefined | readonly string[];

/**
 * Compiles an AST to a predicate over rows held in memory (virtual collections such as settings,
 * whose rows merge a registry with stored values). Same typing, errors and semantics as the SQL
 * compiler: `!=` matches absent values, NOT is a true complement, string `:` is a
 * case-insensitive substring match (or a prefix match where the field says so).
 */
export function compileFilterPredicate(ast: FilterAst | undefined, fields: Record<string, FilterField>): (row: Record<string, FilterOperand>) => boolean {
  if (!ast) return () => true;
  const compile = (node: FilterAst): ((row: Record<string, FilterOperand>) => boolean | null) => {
    switch (node.kind) {
      case 'and': {
        const parts = node.operands.map(compile);
        return (row) => {
          let unknown = false;
          for (const p of parts) {
            const v = p(row);
            if (v === false) return false;
            if (v === null) unknown = true;
          }
          return unknown ? null : true;
        };
      }
      case 'or': {
        const parts = node.operands.map(compile);
        return (row) => {
          let unknown = false;
          for (const p of parts) {
            const v = p(row);
            if (v === true) return true;
            if (v === null) unknown = true;
          }
          return unknown ? null : false;
        };
      }
      case 'not': {
        const inner = compile(node.operand);
        return (row) => !(inner(row) ?? false);
      }
      case 'comparison':
        return compileComparisonPredicate(node, fields);
    }
  };
  const predicate = compile(ast);
  return (row) => predicate(row) === true;
}

/** One restriction in memory; null stands for SQL's unknown (a comparison with an absent value). */
function compileComparisonPredicate(
  node: Extract<FilterAst, { kind: 'comparison' }>,
  fields: Record<string, FilterField>,
): (row: Record<string, FilterOperand>) => boolean | null {
  const name = node.field;
  const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
  if (!field) throw InvalidArgument.field(name, 'is not a filterable field');
  const { operator, value } = node;
  const key = field.column;
  const absent = (v: FilterOperand) => v === null || v === undefined || (Array.isArray(v) && v.length === 0 && field.type !== 'string_list');
  if (value.kind === 'null') {
    if (operator === '=') return (row) => absent(row[key]);
    if (operator === '!=') return (row) => !absent(row[key]);
    throw InvalidArgument.field(name, `compares with null only through = or !=, not ${operator}`);
  }
  const allowed = OPERATORS_OF[field.type];
  if (!allowed.includes(operator)) {
    const accepted = field.type === 'string_list' ? ':, = null and != null' : allowed.join(', ');
    throw InvalidArgument.field(name, `does not support ${operator} (${field.type} fields accept ${accepted})`);
  }
  const bound = typedValue(name, field, value.text);
  if (operator === ':' && field.type === 'string_list') return (row) => (row[key] as readonly string[] | undefined)?.includes(String(bound)) ?? false;
  if (operator === ':' && field.type === 'string') {
    const needle = String(bound);
    if (field.hasMatchesPrefix) return (row) => (absent(row[key]) ? null : String(row[key]).startsWith(needle));
    const lower = needle.toLowerCase();
    return (row) => (absent(row[key]) ? null : String(row[key]).toLowerCase().includes(lower));
  }
  const compare = (a: string | number | boolean, b: string | number | boolean): number => (a < b ? -1 : a > b ? 1 : 0);
  return (row) => {
    const v = row[key];
    if (absent(v)) return operator === '!=' ? true : null;
    const c = compare(v as string | number | boolean, bound);
    switch (operator) {
      case '=':
      case ':':
        return c === 0;
      case '!=':
        return c !== 0;
      case '<':
        return c < 0;
      case '<=':
        return c <= 0;
      case '>':
        return c > 0;
      case '>=':
        return c >= 0;
    }
  };
}
