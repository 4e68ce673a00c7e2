import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifySerializerCompiler } from 'fastify';

type Schemas = Record<string, unknown>;

/** Ids of the named schemas `schema` reaches through `$ref: 'Name#…'`, transitively. */
function referencedIds(schema: unknown, shared: Schemas, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) referencedIds(item, shared, found);
  } else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === '$ref' && typeof value === 'string') {
        const id = value.split('#')[0];
        if (id && !found.has(id) && shared[id]) {
          found.add(id);
          referencedIds(shared[id], shared, found);
        }
      } else if (key !== 'example' && key !== 'examples') {
        referencedIds(value, shared, found);
      }
    }
  }
  return found;
}

/** Key-sorted JSON of a response schema without its documentation-only parts. */
function serializationKey(schema: unknown): string {
  const { description: _description, headers: _headers, ...rest } = schema as Record<string, unknown>;
  return JSON.stringify(rest, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  );
}

/**
 * fast-json-stringify, as Fastify uses it, but fed only the named schemas a response reaches and
 * built once per distinct response schema of a surface: every route documents the same error
 * answers and every resource is answered by several routes, and fast-json-stringify checks each
 * external schema it is given on every build, which made startup take minutes.
 */
export function buildSerializerFactory(shared: Schemas = {}, options: Record<string, unknown> = {}): FastifySerializerCompiler<unknown> {
  const factory = SerializerSelector();
  const built = new Map<string, ReturnType<FastifySerializerCompiler<unknown>>>();
  return (route) => {
    const key = serializationKey(route.schema);
    let serialize = built.get(key);
    if (!serialize) {
      const needed = Object.fromEntries([...referencedIds(route.schema, shared)].map((id) => [id, shared[id]]));
      // why (the casts): the stock compiler's typings take a route of its own generic shape; ours is the same object.
      serialize = factory(needed, options)(route as never) as ReturnType<FastifySerializerCompiler<unknown>>;
      built.set(key, serialize);
    }
    return serialize;
  };
}
