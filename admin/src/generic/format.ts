/** How values read on screen. */
import { nonNull, schemaTypes } from '../lib/openapi-model/schema.js';
import type { JsonSchema } from '../lib/openapi-model/types.js';

const pad = (n: number) => String(n).padStart(2, '0');

/** RFC 3339 → the `datetime-local` input's local `YYYY-MM-DDTHH:mm:ss`. */
export function toLocalInput(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The `datetime-local` input's local time → RFC 3339 UTC ('' stays ''). */
export function fromLocalInput(local: string): string {
  if (!local) return '';
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? '' : d.toISOString();
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A value of a resource field as one line of text. */
export function displayValue(value: unknown, schema?: JsonSchema): string {
  if (value === undefined || value === null || value === '') return '—';
  const s = schema ? nonNull(schema) : undefined;
  if (s?.format === 'date-time' && typeof value === 'string') {
    const d = new Date(value);
    return Number.isNaN(d.getTime()) ? value : dateTime.format(d);
  }
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  if (s && schemaTypes(s).includes('string') && typeof value === 'string' && value.length > 160) return `${value.slice(0, 157)}…`;
  return String(value);
}

/** Whether a field is better shown as a block (objects, long text) than inline. */
export function isBlock(value: unknown): boolean {
  return (typeof value === 'object' && value !== null && !Array.isArray(value)) || (typeof value === 'string' && value.length > 160);
}
