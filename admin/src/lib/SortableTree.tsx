/**
 * A tree the API orders with `:move` (navigation items, blog categories): drag a row by its handle
 * (pointer: up/down to reorder, left/right to change its level; keyboard: focus the handle, Space,
 * arrows, Space, with screen-reader announcements), or use the row's move buttons (up, down, in,
 * out). Every move becomes one `{parent_id, after_id}` for `onMove`; the list shows the moved tree at
 * once and the caller refetches.
 */
import { useMemo, useState, type ReactNode } from 'react';
import { ActionIcon, Box, Group, Text, Tooltip } from '@mantine/core';
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type DragMoveEvent,
  type DragOverEvent,
  type DragStartEvent,
} from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { applyMove, descendantsOf, flattenTree, keyboardMove, projectDrop, type FlatNode, type KeyboardMove, type MoveRequest, type TreeRecord } from './tree-move';

const INDENT = 28;

export interface SortableTreeProps<T extends TreeRecord> {
  items: readonly T[];
  /** What the tree holds, for its accessible name ("Menu items"). */
  label: string;
  labelOf: (item: T) => string;
  /** Extra text after the label (the link target, a count). */
  detailOf?: (item: T) => ReactNode;
  /** Buttons of a row (edit, delete), shown only when writable. */
  actionsOf?: (item: T) => ReactNode;
  onMove: (id: string, move: MoveRequest) => Promise<unknown>;
  /** Without it, no handles and no move buttons. */
  canWrite: boolean;
  /** Deepest level (0 = root) the API accepts. */
  maxDepth?: number;
  /** A row's selection (click on its label). */
  onSelect?: (item: T) => void;
  selectedId?: string;
}

export function SortableTree<T extends TreeRecord>(props: SortableTreeProps<T>) {
  const { items, labelOf, canWrite, maxDepth = Infinity, onMove } = props;
  // The order shown while a move is on its way (the caller's refetch replaces it).
  const [optimistic, setOptimistic] = useState<{ base: readonly T[]; items: T[] } | undefined>();
  const shown = optimistic && optimistic.base === items ? optimistic.items : items;
  const flat = useMemo(() => flattenTree(shown), [shown]);
  const [activeId, setActiveId] = useState<string>();
  const [overId, setOverId] = useState<string>();
  const [offsetDepth, setOffsetDepth] = useState(0);
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));

  const hidden = activeId ? descendantsOf(flat, activeId) : new Set<string>();
  const rows = flat.filter((n) => !hidden.has(n.id));
  const projection = activeId && overId ? projectDrop(flat, activeId, overId, offsetDepth, maxDepth) : undefined;
  const nameOf = (id: string | undefined) => {
    const node = flat.find((n) => n.id === id);
    return node ? labelOf(node.item) : '';
  };
  const where = (move: MoveRequest | undefined) => {
    if (!move) return '';
    const parent = move.parent_id ? `under ${nameOf(move.parent_id)}` : 'at the top level';
    return move.after_id ? `${parent}, after ${nameOf(move.after_id)}` : `${parent}, first`;
  };

  const move = async (id: string, request: MoveRequest) => {
    setOptimistic({ base: items, items: applyMove(shown, id, request) });
    try {
      await onMove(id, request);
    } catch (err) {
      setOptimistic(undefined);
      throw err;
    }
  };

  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${nameOf(String(active.id))}. Use the arrow keys to move it, Space to drop it, Escape to cancel.`,
    onDragOver: ({ active, over }) => (over ? `${nameOf(String(active.id))} would go ${where(projectDrop(flat, String(active.id), String(over.id), offsetDepth, maxDepth))}.` : undefined),
    onDragEnd: ({ active, over }) => (over ? `${nameOf(String(active.id))} dropped ${where(projectDrop(flat, String(active.id), String(over.id), offsetDepth, maxDepth))}.` : `${nameOf(String(active.id))} dropped.`),
    onDragCancel: ({ active }) => `Moving ${nameOf(String(active.id))} was cancelled.`,
  };

  const reset = () => {
    setActiveId(undefined);
    setOverId(undefined);
    setOffsetDepth(0);
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const id = String(active.id);
    const projected = over ? projectDrop(flat, id, String(over.id), offsetDepth, maxDepth) : undefined;
    reset();
    const node = flat.find((n) => n.id === id);
    if (!projected || !node) return;
    const current = keyOfPlace(flat, node);
    if (current.parent_id === projected.parent_id && current.after_id === projected.after_id) return;
    void move(id, { parent_id: projected.parent_id, after_id: projected.after_id }).catch(() => undefined);
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      accessibility={{
        announcements,
        screenReaderInstructions: { draggable: 'To move an entry, press Space or Enter on its handle, then the arrow keys; Space or Enter drops it, Escape cancels.' },
      }}
      onDragStart={({ active }: DragStartEvent) => {
        setActiveId(String(active.id));
        setOverId(String(active.id));
      }}
      onDragMove={({ delta }: DragMoveEvent) => setOffsetDepth(Math.round(delta.x / INDENT))}
      onDragOver={({ over }: DragOverEvent) => setOverId(over ? String(over.id) : undefined)}
      onDragEnd={onDragEnd}
      onDragCancel={reset}
    >
      <SortableContext items={rows.map((r) => r.id)} strategy={verticalListSortingStrategy}>
        <Box component="ul" aria-label={props.label} p={0} m={0} style={{ listStyle: 'none' }}>
          {rows.map((node) => (
            <TreeRow
              key={node.id}
              node={node}
              depth={node.id === activeId && projection ? projection.depth : node.depth}
              {...props}
              onKeyboardMove={(m) => {
                const request = keyboardMove(flat, node.id, m, maxDepth);
                if (request) void move(node.id, request).catch(() => undefined);
              }}
              canMove={(m) => !!keyboardMove(flat, node.id, m, maxDepth)}
            />
          ))}
        </Box>
      </SortableContext>
    </DndContext>
  );
}

/** A node's present place as a `:move` body (to skip drops that change nothing). */
function keyOfPlace(flat: readonly FlatNode[], node: FlatNode): MoveRequest {
  const siblings = flat.filter((n) => n.parentId === node.parentId);
  const at = siblings.findIndex((n) => n.id === node.id);
  return { parent_id: node.parentId, after_id: at > 0 ? siblings[at - 1].id : null };
}

const MOVES: Array<{ move: KeyboardMove; symbol: string; text: string }> = [
  { move: 'up', symbol: '↑', text: 'up' },
  { move: 'down', symbol: '↓', text: 'down' },
  { move: 'outdent', symbol: '←', text: 'out one level' },
  { move: 'indent', symbol: '→', text: 'in one level' },
];

function TreeRow<T extends TreeRecord>(
  props: SortableTreeProps<T> & { node: FlatNode<T>; depth: number; onKeyboardMove: (m: KeyboardMove) => void; canMove: (m: KeyboardMove) => boolean },
) {
  const { node, depth, labelOf, canWrite } = props;
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: node.id, disabled: !canWrite });
  const label = labelOf(node.item);
  const selected = props.selectedId === node.id;
  return (
    <li
      ref={setNodeRef}
      style={{
        transform: CSS.Translate.toString(transform),
        transition,
        marginLeft: depth * INDENT,
        opacity: isDragging ? 0.6 : 1,
        position: 'relative',
        zIndex: isDragging ? 1 : undefined,
      }}
    >
      <Group
        gap="xs"
        // On a narrow screen the move buttons go under the label rather than squeezing it.
        wrap="wrap"
        px="xs"
        py={6}
        mb={4}
        style={{
          border: '1px solid var(--mantine-color-gray-4)',
          borderRadius: 'var(--mantine-radius-sm)',
          background: selected ? 'var(--mantine-color-blue-0)' : 'var(--mantine-color-body)',
        }}
      >
        {canWrite && (
          <ActionIcon
            ref={setActivatorNodeRef}
            variant="subtle"
            color="gray"
            aria-label={`Drag ${label}`}
            style={{ cursor: 'grab', touchAction: 'none' }}
            {...attributes}
            {...listeners}
          >
            <span aria-hidden="true">⠿</span>
          </ActionIcon>
        )}
        <Box style={{ flex: '1 1 10rem', minWidth: 0 }}>
          {props.onSelect ? (
            <Text
              component="button"
              type="button"
              fw={selected ? 700 : 500}
              aria-current={selected ? 'true' : undefined}
              onClick={() => props.onSelect!(node.item)}
              style={{ background: 'none', border: 0, padding: 0, cursor: 'pointer', textAlign: 'left' }}
            >
              {label}
            </Text>
          ) : (
            <Text fw={500}>{label}</Text>
          )}
          {props.detailOf && (
            <Text size="sm" truncate>
              {props.detailOf(node.item)}
            </Text>
          )}
        </Box>
        {canWrite && (
          <Group gap={2} wrap="nowrap" ml="auto">
            {MOVES.map(({ move, symbol, text }) => (
              <Tooltip key={move} label={`Move ${text}`} openDelay={400}>
                <ActionIcon variant="subtle" color="gray" aria-label={`Move ${label} ${text}`} disabled={!props.canMove(move)} onClick={() => props.onKeyboardMove(move)}>
                  <span aria-hidden="true">{symbol}</span>
                </ActionIcon>
              </Tooltip>
            ))}
            {props.actionsOf?.(node.item)}
          </Group>
        )}
      </Group>
    </li>
  );
}
