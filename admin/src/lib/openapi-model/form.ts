import { humanize, isNullable, nonNull, schemaTypes } from './schema.js';
import type { JsonSchema, Reference, ResourceModel } from './types.js';

/** How a field is edited. */
export type FieldKind =
  | 'text'
  | 'textarea'
  | 'email'
  | 'url'
  | 'password'
  | 'datetime'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'select'
  | 'multiselect'
  | 'tags'
  | 'reference'
  | 'references'
  | 'fieldset'
  | 'file'
  | 'json';

/** One control of a generated form. */
export interface FormField {
  /** Dotted path in the request body (`title`, `settings.interval`); the key of its value and error. */
  path: string;
  name: string;
  label: string;
  description: string;
  kind: FieldKind;
  required: boolean;
  /** Null is accepted: emptying the control clears the field (Update with `update_mask`). */
  nullable: boolean;
  /** Shown, not editable: an immutable field on edit. */
  readOnly: boolean;
  options?: string[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  default?: unknown;
  reference?: Reference;
  /** Controls of a nested object (`fieldset`). */
  fields?: FormField[];
}

/** Fields no person types: the idempotency key (the client makes one) and the etag (sent as `If-Match`). */
const MACHINE_FIELDS = new Set(['request_id', 'etag']);
/** Strings longer than this get a multi-line control. */
const TEXTAREA_FROM = 256;
/** Nested objects deeper than this are edited as JSON. */
const MAX_DEPTH = 2;

export interface FormOptions {
  mode: 'create' | 'update' | 'verb';
  /** The resource the form writes: its immutable fields, references and write-only fields. */
  resource?: ResourceModel;
}

/** The controls of a request schema, required ones first, output-only fields left out. */
export function formFields(schema: JsonSchema | undefined, opts: FormOptions): FormField[] {
  // Required fields first (the document lists properties alphabetically), the rest in order.
  const fields = fieldsOf(schema, opts, '', 0);
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

function fieldsOf(schema: JsonSchema | undefined, opts: FormOptions, prefix: string, depth: number): FormField[] {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  const out: FormField[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    if (raw.readOnly || (depth === 0 && MACHINE_FIELDS.has(name))) continue;
    // The resource schema marks a field output-only even where a request schema repeats it.
    if (depth === 0 && opts.resource?.schema.properties?.[name]?.readOnly) continue;
    // Set once on create and never answered (an instruction's first text): nothing to show or edit later.
    const resourceProp = opts.resource?.schema.properties?.[name];
    if (depth === 0 && opts.mode === 'update' && opts.resource?.immutable.includes(name) && (raw.writeOnly || resourceProp?.writeOnly || !resourceProp)) continue;
    out.push(fieldOf(name, raw, required.has(name), opts, prefix, depth));
  }
  return out;
}

function fieldOf(name: string, raw: JsonSchema, required: boolean, opts: FormOptions, prefix: string, depth: number): FormField {
  const schema = nonNull(raw);
  const path = prefix ? `${prefix}.${name}` : name;
  const reference = depth === 0 ? opts.resource?.references[name] : undefined;
  const writeOnly = depth === 0 && (raw.writeOnly || opts.resource?.schema.properties?.[name]?.writeOnly);
  const field: FormField = {
    path,
    name,
    label: humanize(reference ? name.replace(/_ids?$/, reference.many ? 's' : '') : name),
    description: schema.description ?? raw.description ?? '',
    kind: 'text',
    required,
    nullable: isNullable(raw),
    readOnly: opts.mode === 'update' && depth === 0 && (opts.resource?.immutable.includes(name) ?? false),
    ...(schema.default !== undefined && { default: schema.default }),
  };
  const types = schemaTypes(schema).filter((t) => t !== 'null');
  const type = types.length === 1 ? types[0] : undefined;
  if (schema.enum && schema.enum.some((v) => typeof v === 'string')) {
    return { ...field, kind: 'select', options: schema.enum.filter((v): v is string => typeof v === 'string') };
  }
  switch (type) {
    case 'string':
      return {
        ...field,
        kind: reference ? 'reference' : stringKind(name, schema, !!writeOnly),
        ...bounds(schema, ['minLength', 'maxLength', 'pattern']),
        ...(reference && { reference }),
      };
    case 'integer':
    case 'number':
      return { ...field, kind: type, ...bounds(schema, ['minimum', 'maximum']) };
    case 'boolean':
      return { ...field, kind: 'boolean' };
    case 'array': {
      const items = nonNull(schema.items ?? {});
      const itemTypes = schemaTypes(items);
      const base = { ...field, ...bounds(schema, ['maxItems']) };
      if (items.enum) return { ...base, kind: 'multiselect', options: items.enum.filter((v): v is string => typeof v === 'string') };
      if (itemTypes.includes('string')) {
        return reference ? { ...base, kind: 'references', reference } : { ...base, kind: 'tags', ...bounds(items, ['maxLength']) };
      }
      return { ...base, kind: 'json' };
    }
    case 'object':
      if (schema.properties && Object.keys(schema.properties).length > 0 && depth < MAX_DEPTH && !schema.additionalProperties) {
        return { ...field, kind: 'fieldset', fields: fieldsOf(schema, opts, path, depth + 1) };
      }
      return { ...field, kind: 'json' };
    default:
      return { ...field, kind: 'json' };
  }
}

function stringKind(name: string, schema: JsonSchema, writeOnly: boolean): FieldKind {
  if (schema.format === 'binary') return 'file';
  if (schema.format === 'date-time') return 'datetime';
  if (schema.format === 'email' || name === 'email') return 'email';
  if (schema.format === 'uri' || schema.format === 'url') return 'url';
  // Write-only is not secret by itself (an instruction's first text is write-only too): secrets go by name.
  if (/password|secret|api_key|token/.test(name) && (writeOnly || (schema.maxLength ?? 0) <= 1024)) return 'password';
  if ((schema.maxLength ?? 0) >= TEXTAREA_FROM) return 'textarea';
  return 'text';
}

function bounds<K extends keyof JsonSchema>(schema: JsonSchema, keys: K[]): Partial<FormField> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (schema[key] !== undefined) out[key as string] = schema[key];
  return out as Partial<FormField>;
}

// ---- Values -----------------------------------------------------------------------------------

/**
 * What a control holds: text controls a string ('' for empty), numbers a number or '', booleans a
 * boolean, selects a string or null, lists a string[], fieldsets an object of their children's
 * values, JSON controls the JSON text.
 */
export type FormValue = string | number | boolean | null | string[] | Blob | FormValues;
export interface FormValues {
  [key: string]: FormValue;
}

/** A wire value → the control's value. */
export function toFormValue(field: FormField, wire: unknown): FormValue {
  switch (field.kind) {
    case 'integer':
    case 'number':
      return typeof wire === 'number' ? wire : '';
    case 'boolean':
      return typeof wire === 'boolean' ? wire : false;
    case 'select':
      return typeof wire === 'string' ? wire : null;
    case 'multiselect':
    case 'tags':
    case 'references':
      return Array.isArray(wire) ? wire.map(String) : [];
    case 'fieldset': {
      const obj = wire && typeof wire === 'object' ? (wire as Record<string, unknown>) : {};
      return Object.fromEntries((field.fields ?? []).map((f) => [f.name, toFormValue(f, obj[f.name])]));
    }
    case 'json':
      return wire === undefined || wire === null ? '' : JSON.stringify(wire, null, 2);
    case 'file':
      return typeof Blob !== 'undefined' && wire instanceof Blob ? wire : null;
    default:
      return typeof wire === 'string' ? wire : wire === undefined || wire === null ? '' : String(wire);
  }
}

/** Whether a control is empty (nothing to send on create; a clear on update). */
export function isEmpty(field: FormField, value: FormValue): boolean {
  if (value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0 && !field.required;
  if (field.kind === 'file') return !(typeof Blob !== 'undefined' && value instanceof Blob);
  if (field.kind === 'fieldset') return (field.fields ?? []).every((f) => isEmpty(f, (value as FormValues)[f.name] ?? null));
  return false;
}

/** The control's value → the wire value (undefined: leave out). Throws SyntaxError on bad JSON text. */
export function toWireValue(field: FormField, value: FormValue): unknown {
  if (field.kind === 'boolean') return value === true;
  if (isEmpty(field, value)) return Array.isArray(value) ? [] : undefined;
  switch (field.kind) {
    case 'integer':
    case 'number':
      return typeof value === 'number' ? value : Number(value);
    case 'fieldset': {
      const obj = value as FormValues;
      const out: Record<string, unknown> = {};
      for (const f of field.fields ?? []) {
        const v = toWireValue(f, obj[f.name] ?? null);
        if (v !== undefined) out[f.name] = v;
      }
      return out;
    }
    case 'json':
      return JSON.parse(value as string);
    default:
      return value;
  }
}

/** The values a form starts with: the resource's (edit) or the schema's defaults (create). */
export function initialValues(fields: readonly FormField[], source?: Record<string, unknown>): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, toFormValue(f, source ? source[f.name] : f.default)]));
}

/** Deep equality of JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => jsonEqual(v, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A request body built from a form, or the controls whose text is not valid JSON. */
export interface BuiltRequest {
  body: Record<string, unknown>;
  /** Top-level fields an Update changes (its `update_mask`); empty on create. */
  updateMask: string[];
  /** Paths of JSON controls whose text does not parse. */
  invalid: Record<string, string>;
}

/**
 * The body of a Create or custom method: every control that holds something (an empty control is
 * left out so the server's default applies).
 */
export function buildCreateBody(fields: readonly FormField[], values: FormValues): BuiltRequest {
  const body: Record<string, unknown> = {};
  const invalid: Record<string, string> = {};
  for (const f of fields) {
    if (f.readOnly) continue;
    try {
      const wire = toWireValue(f, values[f.name] ?? null);
      if (wire !== undefined && !(Array.isArray(wire) && wire.length === 0 && !f.required)) body[f.name] = wire;
    } catch {
      invalid[f.path] = 'Not valid JSON.';
    }
  }
  return { body, updateMask: [], invalid };
}

/**
 * The body of an Update: only the fields the person changed, with their names as `update_mask` so a
 * field emptied on purpose is cleared (sent as null, or [] for a list) rather than left as it was.
 * Unchanged fields are not sent, so a concurrent change to another field survives.
 */
export function buildUpdateBody(fields: readonly FormField[], values: FormValues, original: Record<string, unknown>): BuiltRequest {
  const body: Record<string, unknown> = {};
  const invalid: Record<string, string> = {};
  const updateMask: string[] = [];
  for (const f of fields) {
    if (f.readOnly) continue;
    let wire: unknown;
    try {
      wire = toWireValue(f, values[f.name] ?? null);
    } catch {
      invalid[f.path] = 'Not valid JSON.';
      continue;
    }
    const before = toWireValue(f, toFormValue(f, original[f.name]));
    if (jsonEqual(wire, before)) continue;
    body[f.name] = wire === undefined ? null : wire;
    updateMask.push(f.name);
  }
  return { body, updateMask, invalid };
}

/**
 * What the browser can tell before the server does: required, lengths, pattern, bounds. The
 * server's answer (`validate_only` or the write) stays the authority; this only saves a round trip.
 */
export function validateValues(fields: readonly FormField[], values: FormValues, mode: FormOptions['mode']): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const f of fields) {
    if (f.readOnly) continue;
    const value = values[f.name] ?? null;
    if (f.kind === 'fieldset') {
      Object.assign(errors, validateValues(f.fields ?? [], (value as FormValues) ?? {}, mode));
      continue;
    }
    if (isEmpty(f, value) || (Array.isArray(value) && value.length === 0)) {
      if (f.required && mode !== 'update' && f.kind !== 'boolean') errors[f.path] = 'Required.';
      continue;
    }
    if (typeof value === 'string' && f.kind !== 'json') {
      const length = [...value].length;
      if (f.maxLength !== undefined && length > f.maxLength) errors[f.path] = `At most ${f.maxLength} characters.`;
      else if (f.minLength !== undefined && length < f.minLength) errors[f.path] = `At least ${f.minLength} characters.`;
      else if (f.pattern && !safeTest(f.pattern, value)) errors[f.path] = 'Not in the expected format.';
    }
    if (typeof value === 'number' || ((f.kind === 'integer' || f.kind === 'number') && value !== '')) {
      const n = Number(value);
      if (Number.isNaN(n)) errors[f.path] = 'Not a number.';
      else if (f.kind === 'integer' && !Number.isInteger(n)) errors[f.path] = 'A whole number.';
      else if (f.minimum !== undefined && n < f.minimum) errors[f.path] = `At least ${f.minimum}.`;
      else if (f.maximum !== undefined && n > f.maximum) errors[f.path] = `At most ${f.maximum}.`;
    }
    if (Array.isArray(value) && f.maxItems !== undefined && value.length > f.maxItems) errors[f.path] = `At most ${f.maxItems} items.`;
    if (f.kind === 'json' && typeof value === 'string') {
      try {
        JSON.parse(value);
      } catch {
        errors[f.path] = 'Not valid JSON.';
      }
    }
  }
  return errors;
}

function safeTest(pattern: string, value: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(value);
  } catch {
    return true; // a pattern JavaScript cannot compile is left to the server
  }
}
