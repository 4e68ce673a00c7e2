import { isDeepStrictEqual } from 'node:util';
import type { FieldViolation } from '../platform/errors.js';

/** The attribute types of SPEC 2.13. */
export const ATTRIBUTE_TYPES = ['TEXT', 'TEXTAREA', 'NUMBER', 'BOOLEAN', 'DATE', 'SELECT', 'MULTISELECT'] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

export const SELECT_TYPES: readonly string[] = ['SELECT', 'MULTISELECT'];
export const TEXT_TYPES: readonly string[] = ['TEXT', 'TEXTAREA'];
/** Longest value (and largest `max_length`) of each text type; also the default bound. */
export const TEXT_CAP: Record<string, number> = { TEXT: 1024, TEXTAREA: 8192 };

/** One attribute definition as the value checks need it (read from `customer_attributes`). */
export interface AttributeDef {
  key: string;
  type: AttributeType;
  options: Array<{ value: string }> | null;
  isRequired: boolean;
  isActive: boolean;
  minLength: number | null;
  maxLength: number | null;
  minValue: number | null;
  maxValue: number | null;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [year, month, day] = m.slice(1).map(Number);
  const d = new Date(Date.UTC(year, month - 1, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month - 1 && d.getUTCDate() === day;
}

/** SPEC 2.15: left out, null, empty string and empty array all mean "no value". */
export const isEmptyValue = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);

/** Why `value` is not acceptable for an active definition, or undefined; MULTISELECT values come back deduplicated. */
function problemOf(def: AttributeDef, value: unknown): { problem?: string; value?: unknown } {
  const optionValues = () => (def.options ?? []).map((o) => o.value);
  switch (def.type) {
    case 'TEXT':
    case 'TEXTAREA': {
      if (typeof value !== 'string') return { problem: 'must be a string' };
      const max = def.maxLength ?? TEXT_CAP[def.type];
      if (value.length > max) return { problem: `must be at most ${max} characters` };
      if (def.minLength !== null && value.length < def.minLength) return { problem: `must be at least ${def.minLength} characters` };
      return { value };
    }
    case 'NUMBER':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { problem: 'must be a number' };
      if (def.minValue !== null && value < def.minValue) return { problem: `must be at least ${def.minValue}` };
      if (def.maxValue !== null && value > def.maxValue) return { problem: `must be at most ${def.maxValue}` };
      return { value };
    case 'BOOLEAN':
      return typeof value === 'boolean' ? { value } : { problem: 'must be true or false' };
    case 'DATE':
      return typeof value === 'string' && isCalendarDate(value) ? { value } : { problem: 'must be a date YYYY-MM-DD' };
    case 'SELECT':
      if (typeof value !== 'string') return { problem: 'must be the value of one option' };
      return optionValues().includes(value) ? { value } : { problem: `${JSON.stringify(value)} is not an option` };
    case 'MULTISELECT': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { problem: 'must be an array of option values' };
      const allowed = optionValues();
      const unknown = value.find((v) => !allowed.includes(v));
      if (unknown !== undefined) return { problem: `${JSON.stringify(unknown)} is not an option` };
      return { value: [...new Set(value)] };
    }
  }
}

/**
 * Checks the `attributes` a write sends against the website's definitions (SPEC 2.15) and answers
 * what to store (null when empty). Replaced whole when sent; an inactive field's stored value is
 * kept when left out, accepted when sent unchanged, refused when changed or cleared; an active
 * `is_required` field must have a value. Every problem is a violation on `attributes.<key>`.
 */
export function checkAttributes(
  defs: ReadonlyMap<string, AttributeDef>,
  sent: Record<string, unknown> | null | undefined,
  previous: Record<string, unknown> | null,
): { value: Record<string, unknown> | null; violations: FieldViolation[] } {
  const violations: FieldViolation[] = [];
  const result: Record<string, unknown> = {};
  const incoming = sent ?? {};
  for (const [key, raw] of Object.entries(incoming)) {
    const field = `attributes.${key}`;
    const def = defs.get(key);
    if (!def) {
      violations.push({ field, description: 'is not an attribute of this website' });
      continue;
    }
    const before = previous?.[key];
    if (!def.isActive) {
      const same = isEmptyValue(raw) ? isEmptyValue(before) : isDeepStrictEqual(raw, before);
      if (!same) violations.push({ field, description: 'is inactive: its value is kept and cannot be changed' });
      else if (!isEmptyValue(before)) result[key] = before;
      continue;
    }
    if (isEmptyValue(raw)) continue;
    const checked = problemOf(def, raw);
    if (checked.problem) violations.push({ field, description: checked.problem });
    else result[key] = checked.value;
  }
  for (const def of defs.values()) {
    const before = previous?.[def.key];
    if (!def.isActive && !(def.key in incoming) && !isEmptyValue(before)) result[def.key] = before;
    if (def.isActive && def.isRequired && isEmptyValue(result[def.key]) && !violations.some((v) => v.field === `attributes.${def.key}`)) {
      violations.push({ field: `attributes.${def.key}`, description: 'is required' });
    }
  }
  return { value: Object.keys(result).length ? result : null, violations };
}
