/**
 * Request bodies made from the served OpenAPI document: `sample(schema)` is a value the schema
 * accepts (required properties only), so a request passes validation and reaches the access check.
 * Used by the derived tests that walk every route (tenancy, rights).
 */

/** Candidate strings for a `pattern`: the first that fits is used. */
const PATTERN_SAMPLES = ['x', 'a1', 'abc', 'en', '/x', '#aabbcc', '--x', 'a.b', '1', '1s', 'x@example.com', 'https://example.com/', 'X'];

export function openApiSampler(doc: any) {
  /** Resolves `$ref`s into the document's components. */
  function deref(schema: any): any {
    while (schema?.$ref) schema = schema.$ref.split('/').slice(1).reduce((node: any, key: string) => node[key], doc);
    return schema;
  }

  function sample(raw: any): unknown {
    const schema = deref(raw) ?? {};
    if ('const' in schema) return schema.const;
    if (schema.enum) return schema.enum.find((v: unknown) => v !== null);
    if (schema.default !== undefined && schema.default !== null) return schema.default;
    for (const key of ['anyOf', 'oneOf']) {
      if (schema[key]) return sample(schema[key].find((s: any) => deref(s)?.type !== 'null') ?? schema[key][0]);
    }
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: any) => sample(s)));
    const type = Array.isArray(schema.type) ? schema.type.find((x: string) => x !== 'null') : schema.type;
    switch (type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const name of schema.required ?? []) out[name] = sample(schema.properties?.[name]);
        return out;
      }
      case 'array':
        return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items));
      case 'integer':
      case 'number':
        return schema.minimum ?? (schema.maximum !== undefined && schema.maximum < 1 ? schema.maximum : 1);
      case 'boolean':
        return false;
      case 'string': {
        if (schema.format === 'email') return 'someone@example.com';
        if (schema.format === 'date-time') return new Date(Date.now() + 3_600_000).toISOString();
        if (schema.format === 'uri') return 'https://example.com/';
        const min = schema.minLength ?? 1;
        const candidates = schema.pattern ? PATTERN_SAMPLES : ['x'.repeat(Math.max(min, 1))];
        const fits = candidates.find((c) => (!schema.pattern || new RegExp(schema.pattern, 'u').test(c)) && c.length >= min && c.length <= (schema.maxLength ?? Infinity));
        if (fits === undefined) throw new Error(`no sample string fits ${JSON.stringify(schema)}; add one to PATTERN_SAMPLES`);
        return fits;
      }
      default:
        return 'x';
    }
  }
  return { deref, sample };
}
