// The dashboard's edit-mode moves (admin/src/areas/analytics/layout.ts): every layout they make
// keeps the rules the API checks on saving (inside 12 columns, no shared cell, sizes within bounds).
import { describe, expect, it } from 'vitest';
import { addWidget, moveWidget, newWidgetId, pack, readingOrder, removeWidget, resizeWidget, resolveQuery, type LayoutWidget } from '../../admin/src/areas/analytics/layout.js';

const w = (id: string, x: number, y: number, width: number, height: number): LayoutWidget => ({ id, type: id.replace(/_\d+$/, ''), position: { x, y }, size: { width, height } });
/** The default layout of the API (src/dashboard). */
const DEFAULT = [
  w('key_metrics', 0, 0, 12, 2),
  w('visitors_graph', 0, 2, 12, 5),
  w('top_sources', 0, 7, 6, 6),
  w('top_pages', 6, 7, 6, 6),
  w('devices', 0, 13, 4, 5),
  w('browsers', 4, 13, 4, 5),
  w('operating_systems', 8, 13, 4, 5),
];
const place = (ws: LayoutWidget[]) => ws.map((x) => `${x.id}@${x.position.x},${x.position.y}:${x.size.width}x${x.size.height}`);

function expectValid(ws: LayoutWidget[]) {
  const cells = new Set<string>();
  for (const x of ws) {
    expect(x.position.x + x.size.width).toBeLessThanOrEqual(12);
    for (let dy = 0; dy < x.size.height; dy++)
      for (let dx = 0; dx < x.size.width; dx++) {
        const cell = `${x.position.x + dx},${x.position.y + dy}`;
        expect(cells.has(cell), `${x.id} shares ${cell}`).toBe(false);
        cells.add(cell);
      }
  }
}

describe('dashboard layout moves', () => {
  it('packing the default layout in reading order leaves it as it is', () => {
    expect(place(pack(readingOrder(DEFAULT)))).toEqual(place(DEFAULT));
  });

  it('moving a widget later swaps it with the next one in reading order', () => {
    const moved = moveWidget(DEFAULT, 'top_sources', 1);
    expect(readingOrder(moved).map((x) => x.id).slice(2, 4)).toEqual(['top_pages', 'top_sources']);
    expect(place(moved).slice(2, 4)).toEqual(['top_pages@0,7:6x6', 'top_sources@6,7:6x6']);
    expectValid(moved);
  });

  it('moving the first widget earlier changes nothing', () => {
    expect(place(moveWidget(DEFAULT, 'key_metrics', -1))).toEqual(place(DEFAULT));
  });

  it('moving a full-width widget below half-width ones packs them up', () => {
    const moved = moveWidget(DEFAULT, 'visitors_graph', 2);
    expect(place(moved).slice(0, 4)).toEqual(['key_metrics@0,0:12x2', 'top_sources@0,2:6x6', 'top_pages@6,2:6x6', 'visitors_graph@0,8:12x5']);
    expectValid(moved);
  });

  it('widening a widget beyond the row wraps the next one onto a new row, and never past 12 columns', () => {
    const wider = resizeWidget(DEFAULT, 'top_sources', 2, 0);
    expect(place(wider).slice(2, 4)).toEqual(['top_sources@0,7:8x6', 'top_pages@0,13:6x6']);
    expectValid(wider);
    const widest = resizeWidget(DEFAULT, 'top_sources', 40, 0);
    expect(widest.find((x) => x.id === 'top_sources')!.size.width).toBe(12);
  });

  it('resizing keeps within the type’s bounds', () => {
    const bounds = { min: { width: 3, height: 3 }, max: { width: 12, height: 12 } };
    const narrow = resizeWidget(DEFAULT, 'devices', -5, -5, bounds);
    expect(narrow.find((x) => x.id === 'devices')!.size).toEqual({ width: 3, height: 3 });
    expectValid(narrow);
  });

  it('removing a widget lets the later ones move up into its place', () => {
    const removed = removeWidget(DEFAULT, 'visitors_graph');
    expect(removed.map((x) => x.id)).not.toContain('visitors_graph');
    expect(place(removed)[1]).toBe('top_sources@0,2:6x6');
    expectValid(removed);
  });

  it('adding a widget puts it at the end with a free id, the way the server names them', () => {
    expect(newWidgetId(DEFAULT, 'devices')).toBe('devices_2');
    expect(newWidgetId(DEFAULT, 'events')).toBe('events');
    const added = addWidget(DEFAULT, { type: 'devices', size: { width: 4, height: 5 } });
    expect(place(added).at(-1)).toBe('devices_2@0,18:4x5');
    expectValid(added);
  });

  it('a widget type’s query is filled in from the settings (whole placeholders typed, null left out)', () => {
    const query = { metrics: '{{metrics}}', date_range: '{{date_range}}', compare: '{{compare}}', dimensions: ['{{parameter}}'], order_by: '{{metric}} desc' };
    expect(resolveQuery(query, { metrics: ['visitors'], date_range: '7d', compare: null, parameter: 'utm_source', metric: 'visits' })).toEqual({
      metrics: ['visitors'],
      date_range: '7d',
      dimensions: ['utm_source'],
      order_by: 'visits desc',
    });
  });
});
