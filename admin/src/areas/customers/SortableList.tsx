/**
 * A vertical list reordered by drag and drop, or with the keyboard (focus the handle, Space to pick
 * up, arrows to move, Space to drop; dnd-kit announces each step to screen readers).
 */
import type { ReactNode } from 'react';
import { ActionIcon, Group, Paper } from '@mantine/core';
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';

export function SortableList<T extends { id: string }>({ items, label, disabled, onMove, render }: { items: T[]; label: (item: T) => string; disabled?: boolean; onMove: (ids: string[], movedIndex: number) => void; render: (item: T) => ReactNode }) {
  // A pointer must move 4 px before a drag starts: a click or a key press on the handle is not a drag.
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));
  const ids = items.map((i) => i.id);
  const nameOf = (id: string | number) => {
    const item = items.find((i) => i.id === String(id));
    return item ? label(item) : String(id);
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const next = arrayMove(ids, ids.indexOf(String(active.id)), ids.indexOf(String(over.id)));
    onMove(next, next.indexOf(String(active.id)));
  };
  return (
    <DndContext
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        screenReaderInstructions: { draggable: 'To reorder, press Space to pick up, use the arrow keys to move, Space to drop, Escape to cancel.' },
        // Said by name and position (dnd-kit's defaults name the ids).
        announcements: {
          onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}.`,
          onDragOver: ({ active, over }) => (over ? `${nameOf(active.id)} is over position ${ids.indexOf(String(over.id)) + 1} of ${ids.length}.` : `${nameOf(active.id)} is no longer over the list.`),
          onDragEnd: ({ active, over }) => (over ? `${nameOf(active.id)} dropped at position ${ids.indexOf(String(over.id)) + 1} of ${ids.length}.` : `${nameOf(active.id)} dropped.`),
          onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled.`,
        },
      }}
    >
      <SortableContext items={ids} strategy={verticalListSortingStrategy}>
        <ul style={{ listStyle: 'none', padding: 0, margin: 0, display: 'grid', gap: 6 }}>
          {items.map((item) => (
            <Row key={item.id} id={item.id} label={label(item)} disabled={disabled}>
              {render(item)}
            </Row>
          ))}
        </ul>
      </SortableContext>
    </DndContext>
  );
}

function Row({ id, label, disabled, children }: { id: string; label: string; disabled?: boolean; children: ReactNode }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id, disabled });
  return (
    <li ref={setNodeRef} style={{ transform: CSS.Transform.toString(transform), transition, zIndex: isDragging ? 1 : undefined, position: 'relative' }}>
      <Paper withBorder p="xs" shadow={isDragging ? 'md' : undefined}>
        <Group wrap="nowrap" gap="sm" align="center">
          {!disabled && (
            <ActionIcon variant="subtle" color="gray.8" ref={setActivatorNodeRef} {...attributes} {...listeners} aria-label={`Move ${label}`} style={{ cursor: 'grab', touchAction: 'none' }}>
              <span aria-hidden="true">⠿</span>
            </ActionIcon>
          )}
          <div style={{ flex: 1, minWidth: 0 }}>{children}</div>
        </Group>
      </Paper>
    </li>
  );
}
