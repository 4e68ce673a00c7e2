import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

const DECIMAL_INTEGER = /^-?\d+$/;

/**
 * A query/params/headers validator whose `integer` parameters accept decimal digits only: ajv's
 * coercion would also take `1e2` or `0x10`, which SPEC 4.2's integers are not. An empty value is
 * an absent one.
 */
function strictIntegers(schema: { properties?: Record<string, Record<string, unknown>> }, validate: ValidateFunction): ValidateFunction {
  const integers = Object.entries<Record<string, unknown>>(schema.properties ?? {})
    .filter(([, property]) => property.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  const wrapped = ((data: Record<string, unknown> | undefined) => {
    const errors = [];
    for (const name of integers) {
      const value = data?.[name];
      if (value === '') delete data![name];
      else if (typeof value === 'string' && !DECIMAL_INTEGER.test(value)) {
        errors.push({ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be an integer' });
      }
    }
    if (errors.length) {
      wrapped.errors = errors;
      return false;
    }
    const valid = validate(data);
    wrapped.errors = validate.errors;
    return valid;
  }) as ValidateFunction;
  return wrapped;
}

/**
 * Two validators: bodies are checked strictly (no type coercion, unknown fields refused and not
 * silently dropped, every violation reported at once); query strings, path parameters and headers
 * are coerced from their string form, as HTTP sends them. `shared` are the surface's named schemas
 * (components.ts) that route schemas reference as `Name#`.
 */
export function createValidatorCompiler(shared: Record<string, unknown> = {}): FastifySchemaCompiler<unknown> {
  const common = { allErrors: true, strict: false, removeAdditional: false as const, useDefaults: false };
  const body = addFormats.default(new Ajv({ ...common, coerceTypes: false }));
  const query = addFormats.default(new Ajv({ ...common, coerceTypes: true }));
  for (const schema of Object.values(shared)) {
    body.addSchema(schema as object);
    query.addSchema(schema as object);
  }
  // Derived schemas are shared by several routes: compile each once per validator.
  const compiled = { body: new WeakMap<object, ValidateFunction>(), query: new WeakMap<object, ValidateFunction>() };
  return ({ schema, httpPart }) => {
    const part = httpPart === 'body' ? 'body' : 'query';
    let validate = compiled[part].get(schema as object);
    if (!validate) {
      // why (the casts): Fastify hands the route's schema untyped; ours are JSON Schema objects.
      validate = part === 'body' ? body.compile(schema as object) : strictIntegers(schema as { properties?: Record<string, Record<string, unknown>> }, query.compile(schema as object));
      compiled[part].set(schema as object, validate);
    }
    // why: ajv's ValidateFunction is what Fastify calls; its typing wants Fastify's own result type.
    return validate as never;
  };
}

/**
 * Fastify's `buildValidator`: one compiler per distinct set of named schemas. Fastify asks again
 * for every route of a context that added schemas; building ajv anew each time cost seconds.
 */
export function validatorFactory(): (shared: Record<string, unknown>) => FastifySchemaCompiler<unknown> {
  const compilers = new Map<string, FastifySchemaCompiler<unknown>>();
  return (shared) => {
    // components.ts guarantees one definition per name, so the names identify the set.
    const key = Object.keys(shared ?? {}).sort().join('\n');
    let compiler = compilers.get(key);
    if (!compiler) {
      compiler = createValidatorCompiler(shared);
      compilers.set(key, compiler);
    }
    return compiler;
  };
}
