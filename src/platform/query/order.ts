import { sql, type Expression, type SqlBool, type RawBuilder } from 'kysely';
import { InvalidArgument } from '../errors.js';

export interface SortColumn {
  field: string;
  column: string;
  desc: boolean;
  nullable: boolean;
}

const MAX_ORDER_KEYS = 3;

/**
 * Parses `order_by` (`field [asc|desc], ...`, at most 3 keys) against the sortable fields and
 * appends `id` as the tie-breaker that makes keyset pagination total.
 */
export function parseOrderBy(
  text: string,
  sortable: Record<string, { column: string; nullable: boolean }>,
): { columns: SortColumn[]; canonical: string } {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 1 && parts[0] === '') throw InvalidArgument.field('order_by', 'is empty');
  if (parts.length > MAX_ORDER_KEYS) throw InvalidArgument.field('order_by', `takes at most ${MAX_ORDER_KEYS} keys`);
  const columns: SortColumn[] = [];
  for (const part of parts) {
    const m = /^([A-Za-z_][A-Za-z0-9_.]*)(?:\s+(asc|desc))?$/i.exec(part);
    if (!m) throw InvalidArgument.field('order_by', `"${part}" is not "field [asc|desc]"`);
    const [, field, direction] = m;
    const spec = sortable[field];
    if (!spec) throw InvalidArgument.field('order_by', `${field} is not a sortable field (sortable: ${Object.keys(sortable).join(', ')})`);
    if (columns.some((c) => c.field === field)) throw InvalidArgument.field('order_by', `${field} is listed twice`);
    columns.push({ field, column: spec.column, desc: direction?.toLowerCase() === 'desc', nullable: spec.nullable });
  }
  const canonical = columns.map((c) => `${c.field} ${c.desc ? 'desc' : 'asc'}`).join(',');
  if (!columns.some((c) => c.column === 'id')) {
    columns.push({ field: 'id', column: 'id', desc: columns[columns.length - 1].desc, nullable: false });
  }
  return { columns, canonical };
}

/**
 * ORDER BY terms. Nullable columns sort NULLs last ascending and first descending in both
 * dialects (PostgreSQL's native order, so its b-tree indexes serve it).
 */
export function orderTerms(columns: SortColumn[], refOf: ColumnRef = sql.ref): RawBuilder<unknown>[] {
  return columns.map((c) => {
    const dir = sql.raw(c.desc ? 'desc' : 'asc');
    if (!c.nullable) return sql`${refOf(c.column)} ${dir}`;
    return sql`${refOf(c.column)} ${dir} ${sql.raw(c.desc ? 'nulls first' : 'nulls last')}`;
  });
}

/**
 * How a sort column is written in ORDER BY and the keyset: the plain column, or
 * `SqlDialect.notIndexed` when the page must not walk the ordered index (a `drive` plan).
 */
export type ColumnRef = (column: string) => Expression<unknown>;

/** Rows strictly after the cursor `values` (one per column) in the given order. */
export function keysetAfter(columns: SortColumn[], values: unknown[], refOf: ColumnRef = sql.ref): Expression<SqlBool> {
  const sameDirection = columns.every((c) => c.desc === columns[0].desc);
  // Descending, NULLs sort first: a row whose column is NULL lies before any non-null cursor, and a
  // row-value comparison with a NULL in it is not true, so it excludes exactly those rows.
  const nullsBefore = (c: SortColumn) => !c.nullable || c.desc;
  if (sameDirection && columns.every(nullsBefore) && values.every((v) => v !== null)) {
    // Row-value comparison: one range condition both dialects serve straight from the index.
    const op = sql.raw(columns[0].desc ? '<' : '>');
    return sql<SqlBool>`(${sql.join(columns.map((c) => refOf(c.column)))}) ${op} (${sql.join(values)})`;
  }
  const after = (i: number): RawBuilder<SqlBool> => {
    const c = columns[i];
    const v = values[i];
    const ref = refOf(c.column);
    let strictly: RawBuilder<SqlBool>;
    if (c.desc) strictly = v === null ? sql`${ref} is not null` : sql`${ref} < ${v}`;
    else strictly = v === null ? sql`1 = 0` : c.nullable ? sql`(${ref} > ${v} or ${ref} is null)` : sql`${ref} > ${v}`;
    if (i === columns.length - 1) return strictly;
    const equal = v === null ? sql`${ref} is null` : sql`${ref} = ${v}`;
    return sql<SqlBool>`(${strictly} or (${equal} and ${after(i + 1)}))`;
  };
  return after(0);
}
