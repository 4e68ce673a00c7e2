/**
 * Edit-mode moves of the dashboard's widgets on the 12-column grid (pure; test/admin-unit/). The
 * layout is kept in reading order (top to bottom, left to right) and re-packed after every change:
 * each widget takes the first free cell at or after the previous widget's, so moving a widget
 * earlier or later in the order, resizing or removing one never makes two widgets share a cell
 * and never leaves a widget off the grid (the rules the API checks on saving).
 */
export const GRID_COLUMNS = 12;
export const MAX_HEIGHT = 12;

export interface Size {
  width: number;
  height: number;
}

export interface LayoutWidget {
  id?: string;
  type: string;
  position: { x: number; y: number };
  size: Size;
  settings?: Record<string, unknown>;
}

export interface SizeBounds {
  min: Size;
  max: Size;
}

/** Widgets in reading order (row, then column). */
export function readingOrder<W extends LayoutWidget>(widgets: readonly W[]): W[] {
  return [...widgets].sort((a, b) => a.position.y - b.position.y || a.position.x - b.position.x);
}

/** Places widgets (already in the wanted order) first-fit, each at or after the previous one's cell. */
export function pack<W extends LayoutWidget>(ordered: readonly W[]): W[] {
  const taken = new Set<string>();
  const free = (x: number, y: number, s: Size) => {
    for (let dy = 0; dy < s.height; dy++) for (let dx = 0; dx < s.width; dx++) if (taken.has(`${x + dx},${y + dy}`)) return false;
    return true;
  };
  let cursor = { x: 0, y: 0 };
  return ordered.map((w) => {
    const size = { width: Math.min(GRID_COLUMNS, Math.max(1, w.size.width)), height: Math.min(MAX_HEIGHT, Math.max(1, w.size.height)) };
    let { x, y } = cursor;
    for (;;) {
      if (x + size.width > GRID_COLUMNS) {
        x = 0;
        y += 1;
        continue;
      }
      if (free(x, y, size)) break;
      x += 1;
    }
    for (let dy = 0; dy < size.height; dy++) for (let dx = 0; dx < size.width; dx++) taken.add(`${x + dx},${y + dy}`);
    cursor = { x: x + size.width, y };
    return { ...w, position: { x, y }, size };
  });
}

const indexOf = (widgets: readonly LayoutWidget[], id: string) => widgets.findIndex((w) => w.id === id);

/** Moves a widget `by` places in reading order (−1: earlier, +1: later) and re-packs. */
export function moveWidget<W extends LayoutWidget>(widgets: readonly W[], id: string, by: number): W[] {
  const ordered = readingOrder(widgets);
  const from = indexOf(ordered, id);
  if (from < 0) return [...widgets];
  const to = Math.max(0, Math.min(ordered.length - 1, from + by));
  const [moved] = ordered.splice(from, 1);
  ordered.splice(to, 0, moved!);
  return pack(ordered);
}

/** Changes a widget's size by `dw` columns and `dh` rows within its type's bounds, and re-packs. */
export function resizeWidget<W extends LayoutWidget>(widgets: readonly W[], id: string, dw: number, dh: number, bounds?: SizeBounds): W[] {
  const min = bounds?.min ?? { width: 1, height: 1 };
  const max = bounds?.max ?? { width: GRID_COLUMNS, height: MAX_HEIGHT };
  return pack(
    readingOrder(widgets).map((w) =>
      w.id === id
        ? {
            ...w,
            size: {
              width: Math.max(min.width, Math.min(max.width, GRID_COLUMNS, w.size.width + dw)),
              height: Math.max(min.height, Math.min(max.height, MAX_HEIGHT, w.size.height + dh)),
            },
          }
        : w,
    ),
  );
}

export function removeWidget<W extends LayoutWidget>(widgets: readonly W[], id: string): W[] {
  return pack(readingOrder(widgets).filter((w) => w.id !== id));
}

/** A free id for a new widget of `type`: the type, then `{type}_2`, … (as the server assigns them). */
export function newWidgetId(widgets: readonly LayoutWidget[], type: string): string {
  const ids = new Set(widgets.map((w) => w.id));
  if (!ids.has(type)) return type;
  for (let n = 2; ; n++) if (!ids.has(`${type}_${n}`)) return `${type}_${n}`;
}

/** Adds a widget of `type` at its default size at the end of the layout. */
export function addWidget<W extends LayoutWidget>(widgets: readonly W[], widget: Omit<W, 'position' | 'id'> & { id?: string }): W[] {
  const id = widget.id ?? newWidgetId(widgets, widget.type);
  return pack([...readingOrder(widgets), { ...widget, id, position: { x: 0, y: 0 } } as unknown as W]);
}

const WHOLE = /^\{\{([a-z_]+)\}\}$/;
const INSIDE = /\{\{([a-z_]+)\}\}/g;

/**
 * A widget type's `query` with settings filled in (the catalogue's rule: a string that is exactly
 * `{{name}}` is the setting with its JSON type, left out when null; inside a longer string, its
 * text) — for widgets added in edit mode, before the server answers their `query` on saving.
 */
export function resolveQuery(query: Record<string, unknown>, settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const fill = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const whole = WHOLE.exec(value);
      if (whole) return settings[whole[1]!] ?? null;
      return value.replace(INSIDE, (_, name: string) => String(settings[name] ?? ''));
    }
    if (Array.isArray(value)) return value.map(fill);
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) {
        const filled = fill(inner);
        if (filled !== null) out[key] = filled;
      }
      return out;
    }
    return value;
  };
  return fill(query) as Record<string, unknown>;
}
