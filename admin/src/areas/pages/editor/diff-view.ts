/**
 * Readable differences between two versions of a field (a conflict, two revisions): rich text
 * is compared as the text a reader sees, one block per line, word by word. Pure (unit-tested in
 * test/admin-unit/editor-logic.test.ts).
 */
import { diffWords } from 'diff';

export interface DiffPart {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** The text of rich-text HTML: block elements on their own lines, images as `[image: alt]`, blocks as `[block: id]`. */
export function htmlToText(html: string): string {
  return html
    .replace(/<img\b[^>]*?\balt="([^"]*)"[^>]*>/gi, '[image: $1]')
    .replace(/<img\b[^>]*>/gi, '[image]')
    .replace(/<div\b[^>]*?\bdata-block="([^"]*)"[^>]*>\s*<\/div>/gi, '\n[block: $1]\n')
    .replace(/<a\b[^>]*?\bhref="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
    .replace(/<li\b[^>]*>/gi, '\n• ')
    .replace(/<(td|th)\b[^>]*>/gi, ' | ')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(p|h[1-6]|div|ul|ol|li|tr|table|thead|tbody|blockquote|pre|figure|figcaption|section|hr)\b[^>]*>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    // A list item's paragraph stays on the bullet's line.
    .replace(/•\s*\n\s*/g, '• ')
    .replace(/&(#?\w+);/g, (m, name: string) => ENTITIES[name] ?? (name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : m))
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
}

/** A field's value as comparable text (lists joined, rich text read, absent as ''). */
export function fieldText(value: unknown, richText = false): string {
  if (value === undefined || value === null) return '';
  if (Array.isArray(value)) return value.join(', ');
  if (typeof value === 'string') return richText ? htmlToText(value) : value;
  return String(value);
}

/** The parts from `before` to `after`: removed words, added words, the rest unchanged. */
export function diffParts(before: string, after: string): DiffPart[] {
  return diffWords(before, after).map((c) => ({ kind: c.added ? 'added' : c.removed ? 'removed' : 'same', text: c.value }));
}

/** The fields whose readable values differ between two versions. */
export function changedFields(a: Record<string, unknown>, b: Record<string, unknown>, fields: readonly string[], richText: readonly string[] = []): string[] {
  return fields.filter((f) => fieldText(a[f], richText.includes(f)) !== fieldText(b[f], richText.includes(f)));
}
