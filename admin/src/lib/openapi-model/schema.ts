import type { JsonSchema, OpenApiDocument } from './types.js';

const REF_PREFIX = '#/components/schemas/';

/** Name of the component a `$ref` points at (`#/components/schemas/BlogPost` → `BlogPost`). */
export const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * The schema with every `$ref` replaced by its component, recursively. A component already being
 * expanded on the way down (a recursive shape) stays a free-form object, so the result is finite.
 */
export function derefSchema(doc: OpenApiDocument, schema: JsonSchema, seen: readonly string[] = []): JsonSchema {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    if (!schema.$ref.startsWith(REF_PREFIX) || seen.includes(name)) return { type: 'object', additionalProperties: true, description: schema.description };
    const target = doc.components.schemas[name];
    if (!target) throw new Error(`unresolved $ref ${schema.$ref}`);
    const { $ref: _ref, ...rest } = schema;
    return { ...derefSchema(doc, target, [...seen, name]), ...rest };
  }
  const out: JsonSchema = { ...schema };
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, derefSchema(doc, v, seen)]));
  }
  if (schema.items) out.items = derefSchema(doc, schema.items, seen);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    out.additionalProperties = derefSchema(doc, schema.additionalProperties, seen);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (list) out[key] = list.map((s) => derefSchema(doc, s, seen));
  }
  return out;
}

/** The JSON types a schema allows (`type` may be one name or a list; an `anyOf` of types counts too). */
export function schemaTypes(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return [...new Set(alternatives.flatMap(schemaTypes))];
  if (schema.enum) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))];
  return [];
}

/** Whether null is an allowed value (how an Update clears a field). */
export const isNullable = (schema: JsonSchema): boolean => schemaTypes(schema).includes('null');

/**
 * The schema without its `null` alternative: `{type: ['string', 'null']}` → `{type: 'string'}`,
 * `anyOf: [Money, {type: 'null'}]` → Money, enum members without null.
 */
export function nonNull(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type)) {
    const types = schema.type.filter((t) => t !== 'null');
    const out: JsonSchema = { ...schema, type: types.length === 1 ? types[0] : types };
    if (schema.enum) out.enum = schema.enum.filter((v) => v !== null);
    return out;
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && schema.type === undefined) {
    const rest = alternatives.filter((s) => !(s.type === 'null'));
    if (rest.length === 1) {
      const { anyOf: _a, oneOf: _o, ...own } = schema;
      return { ...rest[0], ...own, description: own.description ?? rest[0]!.description };
    }
  }
  return schema;
}

/** `feature_image_media_id` → `Feature image media id`, with the product's acronyms kept upper case. */
export function humanize(name: string): string {
  const ACRONYMS: Record<string, string> = { ai: 'AI', cms: 'CMS', id: 'ID', ids: 'IDs', url: 'URL', og: 'OG', seo: 'SEO', html: 'HTML', mime: 'MIME', dns: 'DNS', api: 'API', ui: 'UI' };
  const words = name.split(/[_.\s]+/).filter(Boolean);
  return words
    .map((w, i) => {
      const lower = w.toLowerCase();
      if (ACRONYMS[lower]) return ACRONYMS[lower];
      return i === 0 ? lower.charAt(0).toUpperCase() + lower.slice(1) : lower;
    })
    .join(' ');
}

/** `BlogPost` → `blog_post`, `AiAgentVersion` → `ai_agent_version`. */
export const snakeCase = (pascal: string): string => pascal.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
