import type { ListDeclaration } from './types.js';

/**
 * The filterable and sortable fields and the default order of a List. The document carries them
 * only as the sentence the resource engine appends to every List description
 * (`Sortable: a, b. Filterable: c, d. Default order: \`a desc\`.`, src/platform/resource/routes.ts),
 * so this reads that sentence; a List without it has no declared filters or orders.
 */
export function parseListDeclaration(description: string | undefined): ListDeclaration | undefined {
  if (!description) return undefined;
  const match = /Sortable: ([^\n]*?)\. Filterable: ([^\n]*?)\. Default order: `([^`]*)`/.exec(description);
  if (!match) return undefined;
  const list = (text: string) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => /^[a-z][a-z0-9_.]*$/.test(s));
  return { sortable: list(match[1]!), filterable: list(match[2]!), defaultOrder: match[3]!.trim() };
}

/** One key of `order_by`. */
export interface OrderKey {
  field: string;
  desc: boolean;
}

/** `create_time desc, title` → keys; unknown shapes are dropped. */
export function parseOrderBy(orderBy: string | undefined): OrderKey[] {
  if (!orderBy) return [];
  return orderBy
    .split(',')
    .map((part) => part.trim().split(/\s+/))
    .filter((words) => words[0] && /^[a-z][a-z0-9_.]*$/.test(words[0]))
    .map((words) => ({ field: words[0]!, desc: (words[1] ?? '').toLowerCase() === 'desc' }));
}

/** Keys → `order_by` text (`asc` left implicit). */
export const formatOrderBy = (keys: readonly OrderKey[]): string => keys.map((k) => (k.desc ? `${k.field} desc` : k.field)).join(', ');
