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
  // Derived schemas are shared by several routes: compile each once per validator.
  const compiled = { body: new WeakMap<object, ValidateFunction>(), query: new WeakMap<object, ValidateFunction>() };
  return ({ schema, httpPart }) => {
    const part = httpPart === 'body' ? 'body' : 'query';
    let validate = compiled[part].get(schema as object);
    if (!validate) {
      validate = (part === 'body' ? body : query).compile(schema as object);
      compiled[part].set(schema as object, validate);
    }
    return validate as never;
  };
}
