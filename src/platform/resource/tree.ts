import type { Kysely } from 'kysely';
import { dynamic } from '../db/dynamic.js';
import type { DB } from '../db/schema.js';
import { InvalidArgument } from '../errors.js';
import type { CustomMethodDecl, Row } from './declaration.js';
import { appendSortOrder, placeAfter, whereScope, type SiblingScope } from './ordering.js';

/**
 * Trees stored as materialised paths (media folders, navigation items). Each row has `parent_id`
 * (null at the root), `path` (ancestor ids and its own id joined by `/`; sorting by it lists a
 * tree depth-first), `level` (root 0) and `sort_order` among its siblings. A subtree is the row
 * plus every row whose path starts with `path + '/'`, read and rewritten with an index range.
 */
export interface TreeSpec {
  table: string;
  /** Columns that select one tree, e.g. `{account_id, website_id}` (or `{…, menu_id}`). */
  scope: SiblingScope;
  /** Deepest level allowed (root 0); bounds path length. */
  maxLevel?: number;
}

const DEFAULT_MAX_LEVEL = 15;
const SEPARATOR = '/';
// '0' is the character right after '/', so [p + '/', p + '0') is exactly the strings starting with p + '/'.
const AFTER_SEPARATOR = '0';

async function parentRow(trx: Kysely<DB>, spec: TreeSpec, parentId: string | null | undefined): Promise<Row | undefined> {
  if (!parentId) return undefined;
  const parent = await whereScope(dynamic(trx).selectFrom(spec.table).select(['id', 'path', 'level']).where('id', '=', parentId), spec.scope).executeTakeFirst();
  if (!parent) throw InvalidArgument.field('parent_id', `${parentId} is not an item of this tree`);
  return parent;
}

function checkLevel(spec: TreeSpec, level: number): void {
  const max = spec.maxLevel ?? DEFAULT_MAX_LEVEL;
  if (level > max) throw InvalidArgument.field('parent_id', `trees are at most ${max + 1} levels deep`);
}

/** Fills `path`, `level` and `sort_order` (last among its siblings) of a new row under `row.parent_id`. */
export async function placeNewInTree(trx: Kysely<DB>, spec: TreeSpec, row: Row): Promise<void> {
  const parent = await parentRow(trx, spec, row.parent_id);
  row.parent_id = parent ? parent.id : null;
  row.level = parent ? Number(parent.level) + 1 : 0;
  checkLevel(spec, row.level);
  row.path = parent ? `${parent.path}${SEPARATOR}${row.id}` : row.id;
  row.sort_order = await appendSortOrder(trx, spec.table, { ...spec.scope, parent_id: row.parent_id });
}

/**
 * `:move` of a node and its subtree: sets `next.parent_id`, `path`, `level`, `sort_order` (the caller
 * persists `next`), rewrites every descendant's path and level in one statement, and shifts the new
 * siblings. Moving under itself or a descendant is INVALID_ARGUMENT on `parent_id`.
 */
export async function moveInTree(
  trx: Kysely<DB>,
  spec: TreeSpec,
  next: Row,
  target: { parentId: string | null | undefined; afterId: string | null | undefined; now: number },
): Promise<void> {
  const oldPath: string = next.path;
  const parent = await parentRow(trx, spec, target.parentId);
  if (parent && (parent.id === next.id || String(parent.path).startsWith(oldPath + SEPARATOR))) {
    throw InvalidArgument.field('parent_id', 'a node cannot move under itself or one of its descendants');
  }
  const newLevel = parent ? Number(parent.level) + 1 : 0;
  const newPath = parent ? `${parent.path}${SEPARATOR}${next.id}` : next.id;
  const depthBelow = await whereScope(dynamic(trx).selectFrom(spec.table).select((eb) => eb.fn.max('level').as('deepest')), spec.scope)
    .where('path', '>=', oldPath + SEPARATOR)
    .where('path', '<', oldPath + AFTER_SEPARATOR)
    .executeTakeFirst();
  const deltaLevel = newLevel - Number(next.level);
  checkLevel(spec, Math.max(newLevel, depthBelow?.deepest == null ? 0 : Number(depthBelow.deepest) + deltaLevel));

  if (newPath !== oldPath) {
    await whereScope(dynamic(trx).updateTable(spec.table), spec.scope)
      .set((eb) => ({
        path: eb(eb.val(newPath), '||', eb.fn('substr', ['path', eb.val(oldPath.length + 1)])),
        level: eb('level', '+', deltaLevel),
        revision: eb('revision', '+', 1),
        update_time: target.now,
      }))
      .where('path', '>=', oldPath + SEPARATOR)
      .where('path', '<', oldPath + AFTER_SEPARATOR)
      .execute();
  }
  next.parent_id = parent ? parent.id : null;
  next.path = newPath;
  next.level = newLevel;
  next.sort_order = await placeAfter(trx, {
    table: spec.table,
    scope: { ...spec.scope, parent_id: next.parent_id },
    id: next.id,
    afterId: target.afterId,
    now: target.now,
  });
}

/**
 * The `:move` custom method of a tree resource: body `{parent_id?, after_id?}` (absent or null:
 * the root / first among the new siblings), answered with the moved node. `description` says what
 * the node is; the rules common to every tree are appended.
 */
export function treeMoveMethod(opts: { summary: string; description: string; treeOf: (row: Row) => TreeSpec }): CustomMethodDecl {
  return {
    verb: 'move',
    on: 'item',
    summary: opts.summary,
    description:
      `${opts.description} \`path\` and \`level\` of the node and its whole subtree are rewritten in one statement, in one transaction; ` +
      'later siblings shift (their etags change). A parent outside the tree, the node itself or one of its descendants is INVALID_ARGUMENT on ' +
      '`parent_id`; an `after_id` that is not a sibling under the new parent is INVALID_ARGUMENT on `after_id`. `If-Match` is honoured.',
    access: 'write',
    body: {
      properties: {
        parent_id: { type: ['string', 'null'], maxLength: 64, description: 'New parent; absent or null for the root.' },
        after_id: { type: ['string', 'null'], maxLength: 64, description: 'Sibling to follow; absent or null to come first.' },
      },
    },
    async mutate(ctx, next, _previous, body) {
      await moveInTree(ctx.trx, opts.treeOf(next), next, { parentId: body.parent_id, afterId: body.after_id, now: ctx.now });
    },
  };
}
