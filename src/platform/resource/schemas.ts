import type { JsonSchema } from '../http/components.js';
import type { FieldDecl, ResourceDecl } from './declaration.js';
import { templateParams } from './paths.js';

// Declared with the HTTP components (below the engine, which builds its schemas for them); re-exported for the engine's callers.
export type { JsonSchema };

// Strings without a declared bound still get one, so no field accepts unbounded text.
const DEFAULT_MAX_LENGTH = 1024;

export const has = (field: FieldDecl, behavior: NonNullable<FieldDecl['behavior']>[number]) =>
  field.behavior?.includes(behavior) ?? false;

/** Whether a client may set the field at all. */
export const isWritable = (field: FieldDecl) => !has(field, 'OUTPUT_ONLY');
/** Whether the field appears in responses. */
export const isReadable = (field: FieldDecl) => !has(field, 'INPUT_ONLY');

const INT32 = 2 ** 31;
/** int32 when the declared bounds fit, else int64 (JSON numbers are exact up to 2^53). */
const integerFormat = (field: FieldDecl) =>
  field.minimum !== undefined && field.maximum !== undefined && field.minimum >= -INT32 && field.maximum < INT32 ? 'int32' : 'int64';

/** The JSON Schema of one field's value. */
export function fieldSchema(field: FieldDecl): JsonSchema {
  const base: JsonSchema = { description: field.description };
  switch (field.type) {
    case 'string':
      return {
        ...base,
        type: 'string',
        ...(field.minLength !== undefined && { minLength: field.minLength }),
        maxLength: field.maxLength ?? DEFAULT_MAX_LENGTH,
        ...(field.pattern && { pattern: field.pattern }),
      };
    case 'enum':
      return { ...base, type: 'string', enum: [...(field.values ?? [])] };
    case 'integer':
      return {
        ...base,
        type: 'integer',
        format: integerFormat(field),
        // Undeclared bounds are those of exact JSON integers.
        minimum: field.minimum ?? -Number.MAX_SAFE_INTEGER,
        maximum: field.maximum ?? Number.MAX_SAFE_INTEGER,
      };
    case 'number':
      return {
        ...base,
        type: 'number',
        ...(field.minimum !== undefined && { minimum: field.minimum }),
        ...(field.maximum !== undefined && { maximum: field.maximum }),
      };
    case 'boolean':
      return { ...base, type: 'boolean' };
    case 'timestamp':
      return { ...base, type: 'string', format: 'date-time', maxLength: 40 };
    case 'string_list':
      return {
        ...base,
        type: 'array',
        maxItems: field.maxItems ?? 100,
        items: { type: 'string', minLength: field.itemMinLength ?? 0, maxLength: field.itemMaxLength ?? DEFAULT_MAX_LENGTH },
      };
    case 'object': {
      // A free-form object (no declared properties) must say so: the response serializer drops
      // undeclared properties, which would answer `{}`.
      const schema = field.schema ?? {};
      // A named shape (`$id`, e.g. Money) is referenced as it is (fast-json-stringify drops values
      // under an `allOf` that holds a `$ref`, so the field's own description cannot wrap it).
      if (typeof schema.$id === 'string') return { ...schema };
      // Only an object can be open: a field declared with an array schema (editorial `slots`) keeps its items' shape.
      const isObject = schema.type === undefined || schema.type === 'object';
      const open = isObject && schema.properties === undefined && schema.additionalProperties === undefined && schema.patternProperties === undefined;
      return { ...base, type: 'object', ...(open && { additionalProperties: true }), ...schema };
    }
    case 'json':
      // Any JSON value; its shape is checked by the resource's own rules (e.g. a setting's descriptor).
      return { ...base, ...(field.schema ?? {}) };
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.allOf) && schema.type === undefined) {
    // A reference to a named shape: null clears it.
    const { allOf, ...rest } = schema;
    return { ...rest, anyOf: [...(allOf as JsonSchema[]), { type: 'null' }] };
  }
  if (schema.type === undefined) return schema; // untyped (json): null is already a value
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  const type = schema.type as string;
  const { enum: members, ...rest } = schema;
  return { ...rest, type: [type, 'null'], ...(members ? { enum: [...(members as unknown[]), null] } : {}) };
}

const COMMON_OUTPUT: Record<string, JsonSchema> = {
  name: { type: 'string', maxLength: 512, description: 'Resource name; the identity.', readOnly: true },
  id: { type: 'string', maxLength: 256, description: 'Last segment of `name`; unique inside its parent.', readOnly: true },
  create_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When created (RFC 3339, UTC).', readOnly: true },
  update_time: { type: 'string', format: 'date-time', maxLength: 40, description: 'When last changed (RFC 3339, UTC).', readOnly: true },
  etag: { type: 'string', maxLength: 128, description: 'Version of the persisted state; send in `If-Match`.', readOnly: true },
};

/** Names of the fields a response carries besides the declared ones. */
const commonFields = (decl: ResourceDecl) => Object.keys(COMMON_OUTPUT).filter((name) => name !== 'id' || decl.kind !== 'singleton');

/**
 * Whether every answer carries the field: a stored field that is REQUIRED, has a default, or is a
 * list (absent reads as `[]`). Fields computed by hooks or by a virtual source are not promised.
 */
export function alwaysPresent(decl: ResourceDecl, field: FieldDecl): boolean {
  if (!isReadable(field) || field.column === false || decl.virtual) return false;
  return has(field, 'REQUIRED') || field.default !== undefined || field.type === 'string_list';
}

/** Component names of a declaration's schemas (`CmsPage`, `CmsPageCreate`, `ListCmsPagesResponse`). */
export const schemaNames = (decl: ResourceDecl, plural: string) => ({
  resource: decl.singular,
  create: `${decl.singular}Create`,
  update: `${decl.singular}Update`,
  list: `List${plural}Response`,
});

/**
 * The body schema of Create or Update: the writable fields, each with its type (or null to clear),
 * input-only ones marked `writeOnly`. Output-only fields are not properties, so generated clients
 * never offer them; `propertyNames` still admits them (ignored), so a resource read can be sent
 * back; any other name is an unknown field.
 */
export function inputSchema(decl: ResourceDecl, mode: 'create' | 'update', extra: Record<string, JsonSchema> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const ignored: string[] = [...Object.keys(COMMON_OUTPUT)];
  // On Update the etag is a precondition (AIP-154), checked like If-Match.
  if (mode === 'update') properties.etag = { type: 'string', maxLength: 128, description: 'Write only if the resource still has this etag (like `If-Match`); 409 ABORTED otherwise.' };
  const required: string[] = [];
  for (const [name, field] of Object.entries(decl.fields)) {
    if (!isWritable(field)) {
      ignored.push(name);
      continue;
    }
    // A field a Create requires cannot be null there (null is not a value of it); elsewhere null clears or is dropped.
    const requiredHere = mode === 'create' && has(field, 'REQUIRED');
    const schema = requiredHere ? fieldSchema(field) : nullable(fieldSchema(field));
    properties[name] = { ...schema, ...(has(field, 'INPUT_ONLY') && { writeOnly: true }) };
    if (requiredHere) required.push(name);
  }
  Object.assign(properties, extra);
  const accepted = [...new Set([...Object.keys(properties), ...ignored])].sort();
  const example = mode === 'create' ? inputExample(decl, Object.keys(properties)) : undefined;
  return {
    $id: mode === 'create' ? `${decl.singular}Create` : `${decl.singular}Update`,
    type: 'object',
    description:
      mode === 'create'
        ? `Fields of a new ${decl.singular}. Output-only fields of the resource may be sent too (a read sent back) and are ignored.`
        : `Fields of ${decl.singular} to change (merge semantics; see \`update_mask\`). Output-only fields may be sent too (a read sent back) and are ignored.`,
    properties,
    ...(required.length && { required }),
    propertyNames: { enum: accepted },
    ...(example && { example }),
  };
}

/** The schema of the resource as returned. */
export function resourceSchema(decl: ResourceDecl): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const name of commonFields(decl)) properties[name] = COMMON_OUTPUT[name];
  const required = ['name', 'etag'];
  // Singleton-like declarations (item path = collection path, e.g. ai_billing) show no id either.
  if (decl.kind === 'singleton' || decl.virtual || decl.itemPath === decl.collectionPath) {
    // SPEC 2.1: a singleton carries no id; a never-written one (or never-written setting) has no timestamps.
    if (decl.kind !== 'singleton' && decl.itemPath !== decl.collectionPath) required.push('id');
    properties.create_time = { ...properties.create_time, description: 'When first written (RFC 3339, UTC); absent while never written.' };
    properties.update_time = { ...properties.update_time, description: 'When last written (RFC 3339, UTC); absent while never written.' };
  } else {
    required.push('id', 'create_time', 'update_time');
  }
  for (const [name, field] of Object.entries(decl.fields)) {
    if (!isReadable(field)) continue;
    properties[name] = { ...fieldSchema(field), ...(has(field, 'OUTPUT_ONLY') && { readOnly: true }) };
    if (alwaysPresent(decl, field)) required.push(name);
  }
  return { $id: decl.singular, type: 'object', description: decl.description, properties, required, example: resourceExample(decl) };
}

/** The List envelope `{<collection>: [...], next_page_token, total_size}`. */
export function listSchema(decl: ResourceDecl, plural: string): JsonSchema {
  return {
    $id: `List${plural}Response`,
    type: 'object',
    description: `A page of ${decl.collection}.`,
    properties: {
      [decl.collection]: { type: 'array', maxItems: 100, items: resourceSchema(decl), description: 'The page, in the requested order.' },
      next_page_token: { type: 'string', maxLength: 4096, description: 'Pass as `page_token` for the next page; empty on the last page.' },
      total_size: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Size of the whole filtered collection visible to the caller, not of the page.' },
    },
    required: [decl.collection, 'next_page_token', 'total_size'],
  };
}

// Examples: derived from the declaration (a field's `example`, else its default, else a value of
// its type), so every resource schema shows a plausible instance without a second declaration.

/** A stable, realistic id (20 base32 characters, as the server mints them) for a path parameter. */
function sampleId(seed: string): string {
  const alphabet = '0123456789abcdefghijklmnopqrstuv';
  let h = 2166136261;
  let id = '0j5r8k2m';
  for (let i = 0; id.length < 20; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i % seed.length), 16777619) >>> 0;
    id += alphabet[h % 32];
  }
  return id;
}

const SAMPLE_TIME = '2026-01-15T09:30:00.000Z';

/** A value of the field's type, or undefined when none can be made up honestly (patterns, objects). */
function sampleValue(name: string, field: FieldDecl): unknown {
  if (field.example !== undefined) return field.example;
  if (field.default !== undefined && field.default !== null) return field.default;
  switch (field.type) {
    case 'enum':
      return field.values?.[0];
    case 'boolean':
      return true;
    case 'integer':
    case 'number':
      return field.minimum !== undefined ? Math.max(field.minimum, Math.min(1, field.maximum ?? 1)) : Math.min(1, field.maximum ?? 1);
    case 'timestamp':
      return SAMPLE_TIME;
    case 'string_list':
      return name.endsWith('_ids') ? [sampleId(name)] : [];
    case 'string': {
      if (field.pattern) return undefined;
      if (name.endsWith('_id')) return sampleId(name);
      const text = name.replace(/_/g, ' ');
      const value = `${text[0].toUpperCase()}${text.slice(1)}`;
      return value.length >= (field.minLength ?? 0) && value.length <= (field.maxLength ?? DEFAULT_MAX_LENGTH) ? value : undefined;
    }
    default:
      return undefined;
  }
}

function resourceExample(decl: ResourceDecl): Record<string, unknown> {
  const params = templateParams(decl.itemPath);
  const ids = Object.fromEntries(params.map((p) => [p, sampleId(p)]));
  const name = decl.itemPath.replace(/\{([a-z_]+)\}/g, (_, p: string) => ids[p]);
  const example: Record<string, unknown> = { name };
  if (decl.kind !== 'singleton') example.id = ids[params[params.length - 1]];
  for (const [field, spec] of Object.entries(decl.fields)) {
    if (!isReadable(spec)) continue;
    const value = sampleValue(field, spec);
    if (value !== undefined) example[field] = value;
  }
  example.create_time = SAMPLE_TIME;
  example.update_time = SAMPLE_TIME;
  example.etag = '3-mjx8q2k0';
  return example;
}

function inputExample(decl: ResourceDecl, writable: string[]): Record<string, unknown> | undefined {
  const example: Record<string, unknown> = {};
  for (const name of writable) {
    const field = decl.fields[name];
    if (!field) continue;
    const value = sampleValue(name, field);
    if (value !== undefined) example[name] = value;
  }
  return Object.keys(example).length ? example : undefined;
}
