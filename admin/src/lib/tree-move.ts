/**
 * Trees the API orders with `:move` (`{parent_id, after_id}`: the new parent, null at the root, and
 * the sibling to follow, null to come first): navigation items and blog categories. Pure, so the
 * drag-and-drop projection and the keyboard moves are unit-tested (test/admin-unit/tree-move.test.ts).
 */
export interface TreeRecord {
  id: string;
  parent_id?: string | null;
  sort_order?: number | null;
}

export interface FlatNode<T extends TreeRecord = TreeRecord> {
  id: string;
  parentId: string | null;
  depth: number;
  /** Place among its siblings, 0 first. */
  index: number;
  item: T;
}

export interface MoveRequest {
  parent_id: string | null;
  after_id: string | null;
}

/** The tree depth-first, siblings by `sort_order` (then id); orphans (a parent not in the list) at the root. */
export function flattenTree<T extends TreeRecord>(items: readonly T[]): FlatNode<T>[] {
  const ids = new Set(items.map((i) => i.id));
  const children = new Map<string | null, T[]>();
  for (const item of items) {
    const parent = item.parent_id && ids.has(item.parent_id) ? item.parent_id : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent)!.push(item);
  }
  for (const list of children.values()) list.sort((a, b) => (a.sort_order ?? 0) - (b.sort_order ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out: FlatNode<T>[] = [];
  const walk = (parent: string | null, depth: number) => {
    (children.get(parent) ?? []).forEach((item, index) => {
      out.push({ id: item.id, parentId: parent, depth, index, item });
      walk(item.id, depth + 1);
    });
  };
  walk(null, 0);
  return out;
}

/** Ids of `id`'s descendants in a flattened tree. */
export function descendantsOf(flat: readonly FlatNode[], id: string): Set<string> {
  const out = new Set<string>();
  const start = flat.findIndex((n) => n.id === id);
  if (start < 0) return out;
  for (let i = start + 1; i < flat.length && flat[i].depth > flat[start].depth; i++) out.add(flat[i].id);
  return out;
}

export interface Projection extends MoveRequest {
  depth: number;
}

/**
 * Where a dragged node lands: dropped over `overId` (it takes that row's place in the list without
 * its own descendants) at the depth the horizontal drag suggests (`offsetDepth` levels right of its
 * own, negative left), kept between what its new neighbours allow and `maxDepth`.
 */
export function projectDrop(flat: readonly FlatNode[], activeId: string, overId: string, offsetDepth = 0, maxDepth = Infinity): Projection | undefined {
  const hidden = descendantsOf(flat, activeId);
  const rows = flat.filter((n) => !hidden.has(n.id));
  const from = rows.findIndex((n) => n.id === activeId);
  const to = rows.findIndex((n) => n.id === overId);
  if (from < 0 || to < 0) return undefined;
  const active = rows[from];
  const moved = rows.slice();
  moved.splice(from, 1);
  moved.splice(to, 0, active);
  const previous = moved[to - 1];
  const next = moved[to + 1];
  const allowedMax = Math.min(previous ? previous.depth + 1 : 0, maxDepth);
  const allowedMin = next ? Math.min(next.depth, allowedMax) : 0;
  const depth = Math.max(allowedMin, Math.min(allowedMax, active.depth + offsetDepth));
  return { depth, ...placeAt(moved, to, depth) };
}

/** The `:move` body of the node at `position` of `rows` (its new order) given the depth it takes there. */
function placeAt(rows: readonly FlatNode[], position: number, depth: number): MoveRequest {
  let parent_id: string | null = null;
  if (depth > 0) {
    for (let i = position - 1; i >= 0; i--) {
      if (rows[i].depth === depth - 1) {
        parent_id = rows[i].id;
        break;
      }
    }
  }
  let after_id: string | null = null;
  for (let i = position - 1; i >= 0; i--) {
    if (rows[i].depth < depth) break; // reached the parent: first child
    if (rows[i].depth === depth) {
      after_id = rows[i].id;
      break;
    }
  }
  return { parent_id, after_id };
}

function siblingsOf(flat: readonly FlatNode[], node: FlatNode): FlatNode[] {
  return flat.filter((n) => n.parentId === node.parentId);
}

export type KeyboardMove = 'up' | 'down' | 'indent' | 'outdent';

/** The `:move` body of a keyboard move, or undefined where it cannot go (first up, last down, …). */
export function keyboardMove(flat: readonly FlatNode[], id: string, move: KeyboardMove, maxDepth = Infinity): MoveRequest | undefined {
  const node = flat.find((n) => n.id === id);
  if (!node) return undefined;
  const siblings = siblingsOf(flat, node);
  const at = siblings.findIndex((n) => n.id === id);
  switch (move) {
    case 'up':
      if (at === 0) return undefined;
      return { parent_id: node.parentId, after_id: at >= 2 ? siblings[at - 2].id : null };
    case 'down':
      if (at === siblings.length - 1) return undefined;
      return { parent_id: node.parentId, after_id: siblings[at + 1].id };
    case 'indent': {
      if (at === 0) return undefined;
      const newParent = siblings[at - 1];
      const subtreeDepth = Math.max(0, ...[...descendantsOf(flat, id)].map((d) => flat.find((n) => n.id === d)!.depth - node.depth));
      if (node.depth + 1 + subtreeDepth > maxDepth) return undefined;
      const children = flat.filter((n) => n.parentId === newParent.id);
      return { parent_id: newParent.id, after_id: children.length ? children[children.length - 1].id : null };
    }
    case 'outdent': {
      if (!node.parentId) return undefined;
      const parent = flat.find((n) => n.id === node.parentId)!;
      return { parent_id: parent.parentId, after_id: parent.id };
    }
  }
}

/** The tree as it will be after a move (for an optimistic view): the moved node re-placed, sort orders renumbered. */
export function applyMove<T extends TreeRecord>(items: readonly T[], id: string, move: MoveRequest): T[] {
  const moved = items.find((i) => i.id === id);
  if (!moved) return items.slice();
  const flat = flattenTree(items);
  const siblingsAfter = flat.filter((n) => n.parentId === move.parent_id && n.id !== id).map((n) => n.item);
  const at = move.after_id ? siblingsAfter.findIndex((s) => s.id === move.after_id) + 1 : 0;
  siblingsAfter.splice(at, 0, moved);
  const order = new Map(siblingsAfter.map((s, i) => [s.id, i]));
  return items.map((i) => (i.id === id ? { ...i, parent_id: move.parent_id, sort_order: order.get(i.id) } : order.has(i.id) ? { ...i, sort_order: order.get(i.id) } : i));
}
