import type { Kysely } from 'kysely';
import { dynamic } from '../db/dynamic.js';
import type { DB } from '../db/schema.js';
import { InvalidArgument } from '../errors.js';

/** Column values that select one set of siblings, e.g. `{website_id, parent_id: null}`; null matches IS NULL. */
export type SiblingScope = Record<string, string | number | null>;

/** Applies a sibling scope as WHERE terms. */
export function whereScope<Q extends { where(column: string, op: '=' | 'is', value: unknown): Q }>(query: Q, scope: SiblingScope): Q {
  let q = query;
  for (const [column, value] of Object.entries(scope)) q = value === null ? q.where(column, 'is', null) : q.where(column, '=', value);
  return q;
}

/** The `sort_order` that puts a new item last among its siblings. */
export async function appendSortOrder(db: Kysely<DB>, table: string, scope: SiblingScope): Promise<number> {
  const row = await whereScope(dynamic(db).selectFrom(table).select((eb) => eb.fn.max('sort_order').as('last')), scope).executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

/**
 * `:move` with `after_id` (AIP-style): puts `id` right after `afterId` among the siblings of
 * `scope`, or first when `afterId` is null/absent, and answers the new `sort_order` (the caller
 * writes it on its own row). The siblings at or after the new place shift by one in a single
 * statement (their revision rises, so their etags change), which keeps the order total without
 * reading the sibling set into memory. `after_id` outside the siblings is INVALID_ARGUMENT.
 */
export async function placeAfter(
  trx: Kysely<DB>,
  opts: { table: string; scope: SiblingScope; id: string; afterId: string | null | undefined; now: number },
): Promise<number> {
  const { table, scope, id, afterId, now } = opts;
  let position = 0;
  if (afterId) {
    if (afterId === id) throw InvalidArgument.field('after_id', 'an item cannot be placed after itself');
    const after = await whereScope(dynamic(trx).selectFrom(table).select('sort_order').where('id', '=', afterId), scope).executeTakeFirst();
    if (!after) throw InvalidArgument.field('after_id', `${afterId} is not a sibling of ${id}`);
    position = Number(after.sort_order) + 1;
  }
  await whereScope(dynamic(trx).updateTable(table), scope)
    .set((eb) => ({ sort_order: eb('sort_order', '+', 1), revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '!=', id)
    .where('sort_order', '>=', position)
    .execute();
  return position;
}
