import type { FieldDecl, ResourceDecl } from './declaration.js';

/** JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 share). */
export type JsonSchema = Record<string, unknown>;

// Strings without a declared bound still get one, so no field accepts unbounded text.
const DEFAULT_MAX_LENGTH = 1024;

export const has = (field: FieldDecl, behavior: NonNullable<FieldDecl['behavior']>[number]) =>
  field.behavior?.includes(behavior) ?? false;

/** Whether a client may set the field at all. */
export const isWritable = (field: FieldDecl) => !has(field, 'OUTPUT_ONLY');
/** Whether the field appears in responses. */
export const isReadable = (field: FieldDecl) => !has(field, 'INPUT_ONLY');

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
        ...(field.minimum !== undefined && { minimum: field.minimum }),
        ...(field.maximum !== undefined && { maximum: field.maximum }),
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
      return { ...base, type: 'string', format: 'date-time' };
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
      const open = schema.properties === undefined && schema.additionalProperties === undefined && schema.patternProperties === undefined;
      return { ...base, type: 'object', ...(open && { additionalProperties: true }), ...schema };
    }
    case 'json':
      // Any JSON value; its shape is checked by the resource's own rules (e.g. a setting's descriptor).
      return { ...base, ...(field.schema ?? {}) };
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  if (schema.type === undefined) return schema; // untyped (json): null is already a value
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...schema.type, 'null'] };
  const type = schema.type as string;
  const { enum: members, ...rest } = schema;
  return { ...rest, type: [type, 'null'], ...(members ? { enum: [...(members as unknown[]), null] } : {}) };
}

const COMMON_OUTPUT: Record<string, JsonSchema> = {
  name: { type: 'string', description: 'Resource name; the identity.', readOnly: true },
  id: { type: 'string', description: 'Last segment of `name`; unique inside its parent.', readOnly: true },
  create_time: { type: 'string', format: 'date-time', description: 'When created (RFC 3339, UTC).', readOnly: true },
  update_time: { type: 'string', format: 'date-time', description: 'When last changed (RFC 3339, UTC).', readOnly: true },
  etag: { type: 'string', description: 'Version of the persisted state; send in `If-Match`.', readOnly: true },
};

/**
 * The body schema of Create or Update. Writable fields take their type (or null to clear);
 * output-only and common fields are accepted and ignored, so a resource read can be sent back;
 * anything else is an unknown field.
 */
export function inputSchema(decl: ResourceDecl, mode: 'create' | 'update', extra: Record<string, JsonSchema> = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const name of Object.keys(COMMON_OUTPUT)) properties[name] = { description: 'Output only; ignored on write.' };
  // On Update the etag is a precondition (AIP-154), checked like If-Match.
  if (mode === 'update') properties.etag = { type: 'string', maxLength: 128, description: 'Write only if the resource still has this etag (like `If-Match`); 409 ABORTED otherwise.' };
  const required: string[] = [];
  for (const [name, field] of Object.entries(decl.fields)) {
    if (!isWritable(field)) {
      properties[name] = { description: 'Output only; ignored on write.' };
      continue;
    }
    properties[name] = nullable(fieldSchema(field));
    if (mode === 'create' && has(field, 'REQUIRED')) required.push(name);
  }
  Object.assign(properties, extra);
  return {
    type: 'object',
    title: `${decl.singular}${mode === 'create' ? 'Create' : 'Update'}`,
    properties,
    ...(required.length && { required }),
    additionalProperties: false,
  };
}

/** The schema of the resource as returned. */
export function resourceSchema(decl: ResourceDecl): JsonSchema {
  const properties: Record<string, JsonSchema> = { ...COMMON_OUTPUT };
  if (decl.kind === 'singleton') {
    // SPEC 2.1: a singleton carries no id; a never-written one has no timestamps.
    delete properties.id;
    properties.create_time = { ...properties.create_time, description: 'When first written (RFC 3339, UTC); absent while never written.' };
    properties.update_time = { ...properties.update_time, description: 'When last written (RFC 3339, UTC); absent while never written.' };
  }
  for (const [name, field] of Object.entries(decl.fields)) {
    if (!isReadable(field)) continue;
    properties[name] = { ...fieldSchema(field), ...(has(field, 'OUTPUT_ONLY') && { readOnly: true }) };
  }
  return { type: 'object', title: decl.singular, description: decl.description, properties };
}

/** The List envelope `{<collection>: [...], next_page_token, total_size}`. */
export function listSchema(decl: ResourceDecl): JsonSchema {
  return {
    type: 'object',
    title: `List${decl.singular}sResponse`,
    properties: {
      [decl.collection]: { type: 'array', items: resourceSchema(decl) },
      next_page_token: { type: 'string', description: 'Absent or empty on the last page.' },
      total_size: { type: 'integer', description: 'Size of the whole filtered collection visible to the caller.' },
    },
    required: [decl.collection, 'total_size'],
  };
}
