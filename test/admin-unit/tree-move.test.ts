// The `:move` body of a tree move (navigation items, blog categories): where a drag lands and the
// keyboard moves, as `{parent_id, after_id}` (pure, admin/src/lib/tree-move.ts).
import { describe, expect, it } from 'vitest';
import { applyMove, flattenTree, keyboardMove, projectDrop } from '../../admin/src/lib/tree-move.js';

// a
//   a1
//   a2
// b
// c
//   c1
const items = [
  { id: 'c', sort_order: 2 },
  { id: 'a', sort_order: 0 },
  { id: 'a2', parent_id: 'a', sort_order: 1 },
  { id: 'b', sort_order: 1 },
  { id: 'a1', parent_id: 'a', sort_order: 0 },
  { id: 'c1', parent_id: 'c', sort_order: 0 },
];
const flat = flattenTree(items);

describe('tree moves', () => {
  it('flattens the tree depth-first, siblings by sort_order', () => {
    expect(flat.map((n) => `${n.id}@${n.depth}`)).toEqual(['a@0', 'a1@1', 'a2@1', 'b@0', 'c@0', 'c1@1']);
  });

  it('a drop takes the place of the row it is over, among the siblings around that place', () => {
    // b dragged down over c lands between c and its child c1: c's first child.
    expect(projectDrop(flat, 'b', 'c')).toEqual({ depth: 1, parent_id: 'c', after_id: null });
    // b dragged down over c1 (the last row): after c at the root.
    expect(projectDrop(flat, 'b', 'c1')).toEqual({ depth: 0, parent_id: null, after_id: 'c' });
    // b dragged up over a: first at the root.
    expect(projectDrop(flat, 'b', 'a')).toEqual({ depth: 0, parent_id: null, after_id: null });
  });

  it('a drop dragged right nests under the row above; its subtree moves with it', () => {
    // b over a2 and one level right: b becomes a's child after a2.
    expect(projectDrop(flat, 'b', 'b', 1)).toEqual({ depth: 1, parent_id: 'a', after_id: 'a2' });
    // a1 dragged right under... a1 is first child, the row above is a: it cannot go deeper than a's child.
    expect(projectDrop(flat, 'a1', 'a1', 3)).toEqual({ depth: 1, parent_id: 'a', after_id: null });
    // c (with c1) over b: c1 is not a row while c is dragged; c comes after a at the root, before b.
    expect(projectDrop(flat, 'c', 'b')).toEqual({ depth: 0, parent_id: null, after_id: 'a' });
  });

  it('keeps the depth between what the neighbours allow and the maximum', () => {
    // a2 dragged over b, two levels left: the root, after a.
    expect(projectDrop(flat, 'a2', 'b', -2)).toEqual({ depth: 0, parent_id: null, after_id: 'b' });
    // b dragged right under a2 would be depth 2; the maximum says 1.
    expect(projectDrop(flat, 'b', 'b', 2, 1)).toEqual({ depth: 1, parent_id: 'a', after_id: 'a2' });
  });

  it('keyboard moves: up, down, in one level, out one level; none where the tree ends', () => {
    expect(keyboardMove(flat, 'b', 'up')).toEqual({ parent_id: null, after_id: null });
    expect(keyboardMove(flat, 'c', 'up')).toEqual({ parent_id: null, after_id: 'a' });
    expect(keyboardMove(flat, 'b', 'down')).toEqual({ parent_id: null, after_id: 'c' });
    expect(keyboardMove(flat, 'a1', 'down')).toEqual({ parent_id: 'a', after_id: 'a2' });
    expect(keyboardMove(flat, 'b', 'indent')).toEqual({ parent_id: 'a', after_id: 'a2' });
    expect(keyboardMove(flat, 'a2', 'outdent')).toEqual({ parent_id: null, after_id: 'a' });
    expect(keyboardMove(flat, 'a', 'up')).toBeUndefined();
    expect(keyboardMove(flat, 'c', 'down')).toBeUndefined();
    expect(keyboardMove(flat, 'a1', 'indent')).toBeUndefined();
    expect(keyboardMove(flat, 'b', 'outdent')).toBeUndefined();
    // c has a child: indenting it under b would make c1 depth 2, beyond a maximum of 1.
    expect(keyboardMove(flat, 'c', 'indent', 1)).toBeUndefined();
  });

  it('applyMove shows the tree as it will be', () => {
    const moved = flattenTree(applyMove(items, 'b', { parent_id: 'a', after_id: 'a1' }));
    expect(moved.map((n) => `${n.id}@${n.depth}`)).toEqual(['a@0', 'a1@1', 'b@1', 'a2@1', 'c@0', 'c1@1']);
  });
});
