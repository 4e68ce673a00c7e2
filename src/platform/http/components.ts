import type { FastifyInstance } from 'fastify';

/** JSON Schema (draft 2020-12 subset that ajv and OpenAPI 3.1 share). */
export type JsonSchema = Record<string, unknown>;

/**
 * Named schemas: every (sub)schema that carries an `$id` is a shared schema of the surface
 * (`app.addSchema`), referenced from route schemas as `{$ref: 'Name#'}`. The same shared schemas feed
 * the validator (ajv, see validation.ts), the serializer (fast-json-stringify) and the OpenAPI
 * document (`components.schemas.Name`, see openapi.ts), so all three read one definition.
 */

/** Key-sorted JSON, to tell two definitions of one name apart. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}

const isSchemaObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A reference to a named schema; nullable when the inlined schema admitted null (a clearable input field). */
function referenceTo(node: JsonSchema): JsonSchema {
  const ref = { $ref: `${node.$id as string}#` };
  const type = node.type;
  const admitsNull = type === 'null' || (Array.isArray(type) && type.includes('null'));
  return admitsNull ? { anyOf: [ref, { type: 'null' }] } : ref;
}

/**
 * Registers `schema` (which must carry `$id`) on the surface, once; nested `$id` schemas become
 * components of their own. A second, different schema under a taken name throws at startup.
 */
export function addComponent(app: FastifyInstance, schema: JsonSchema): JsonSchema {
  const id = schema.$id;
  if (typeof id !== 'string') throw new Error('a component needs an $id');
  const { $id, ...rest } = schema;
  const body: JsonSchema = { $id, ...(hoistNested(app, rest) as JsonSchema) };
  // A nullable inline use (`type: [object, null]`) names the same component as the plain one.
  if (Array.isArray(body.type)) body.type = (body.type as string[]).filter((t) => t !== 'null');
  if (Array.isArray(body.type) && (body.type as string[]).length === 1) body.type = (body.type as string[])[0];
  if (Array.isArray(body.enum)) body.enum = (body.enum as unknown[]).filter((v) => v !== null);
  // readOnly/writeOnly describe a use (an output-only field holding Money), not the shape.
  delete body.readOnly;
  delete body.writeOnly;
  const existing = app.getSchema(id) as JsonSchema | undefined;
  if (existing) {
    if (canonical(existing) !== canonical(body)) throw new Error(`two different schemas are named ${id}: ${canonical(existing)} vs ${canonical(body)}`);
  } else {
    app.addSchema(body);
  }
  return { $ref: `${id}#` };
}

/** `schema` with every nested `$id` schema registered and replaced by a reference. */
export function hoistNested(app: FastifyInstance, schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((item) => hoistNested(app, item));
  if (!isSchemaObject(schema)) return schema;
  if (typeof schema.$id === 'string') {
    addComponent(app, schema);
    return referenceTo(schema);
  }
  const out: JsonSchema = {};
  // Examples are data, not schemas: never rewritten.
  for (const [key, value] of Object.entries(schema)) out[key] = key === 'example' || key === 'examples' || key === 'const' || key === 'enum' || key === 'default' ? value : hoistNested(app, value);
  return out;
}

/** One documented answer of a route: its description, body schema (none: no body) and headers. */
export class Reply {
  constructor(
    readonly description: string,
    readonly schema?: object,
    readonly headers?: Record<string, JsonSchema>,
  ) {}
}

/**
 * The route schema as Fastify gets it: body and response schemas with their named parts registered
 * and referenced (params, querystring and headers stay inline: OpenAPI lists them as parameters).
 * A `Reply` becomes the response schema with its description and headers beside it, where
 * fast-json-stringify ignores them and @fastify/swagger documents them.
 */
export function routeSchema<T extends Record<string, unknown>>(app: FastifyInstance, schema: T): T {
  const out: Record<string, unknown> = { ...schema };
  if (schema.body) out.body = hoistNested(app, schema.body);
  if (schema.response) {
    const responses: Record<string, unknown> = {};
    for (const [code, entry] of Object.entries(schema.response as Record<string, unknown>)) {
      if (!(entry instanceof Reply)) {
        responses[code] = hoistNested(app, entry);
        continue;
      }
      const body = entry.schema ? (hoistNested(app, entry.schema) as JsonSchema) : { type: 'null' };
      responses[code] = { ...body, description: entry.description, ...(entry.headers && { headers: entry.headers }) };
    }
    out.response = responses;
  }
  return out as T;
}
