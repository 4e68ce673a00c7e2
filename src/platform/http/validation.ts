import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused and not
 * silently dropped, every violation reported at once); query strings and path parameters are
 * coerced from their string form, as HTTP sends them.
 */
export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const common = { allErrors: true, strict: false, removeAdditional: false as const, useDefaults: false };
  const body = addFormats.default(new Ajv({ ...common, coerceTypes: false }));
  const query = addFormats.default(new Ajv({ ...common, coerceTypes: true }));
  const cache = new WeakMap<object, ValidateFunction>();
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? body : query;
    let validate = cache.get(schema as object);
    if (!validate || httpPart !== 'body') validate = ajv.compile(schema as object);
    if (httpPart === 'body') cache.set(schema as object, validate);
    return validate as never;
  };
}
