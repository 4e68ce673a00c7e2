/**
 * Hostile request generation for the route fuzz (test/api/fuzz.test.ts), driven by the OpenAPI
 * documents the app serves. Deterministic: every choice comes from a seeded PRNG.
 */

/** mulberry32: a small, fast, seedable PRNG (same seed, same sequence). */
export function seeded(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    chance: (p: number) => next() < p,
    int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}
export type Rng = ReturnType<typeof seeded>;

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  pathParams: string[];
  query: Array<{ name: string; schema: any }>;
  /** JSON body schema ($refs resolved), when the operation takes JSON. */
  jsonBody?: any;
  /** Multipart body schema, when the operation takes multipart/form-data. */
  multipartBody?: any;
}

/** Resolves local `$ref`s (`#/components/...`) of an OpenAPI document, bounded against cycles. */
export function resolver(doc: any) {
  const deref = (schema: any, depth = 0): any => {
    if (!schema || typeof schema !== 'object' || depth > 12) return schema;
    if (typeof schema.$ref === 'string' && schema.$ref.startsWith('#/')) {
      const target = schema.$ref
        .slice(2)
        .split('/')
        .reduce((node: any, key: string) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
      return deref({ ...target, ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$ref')) }, depth + 1);
    }
    if (Array.isArray(schema)) return schema.map((s) => deref(s, depth + 1));
    return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === 'example' || k === 'examples' ? v : deref(v, depth + 1)]));
  };
  return deref;
}

/** Every operation of an OpenAPI document, in document order. */
export function operationsOf(doc: any): Operation[] {
  const deref = resolver(doc);
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths ?? {})) {
    for (const [method, raw] of Object.entries<any>(item)) {
      if (!['get', 'post', 'patch', 'delete', 'put'].includes(method)) continue;
      const op = deref(raw);
      const params: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(p));
      const content = op.requestBody?.content ?? {};
      ops.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId ?? `${method} ${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        jsonBody: content['application/json']?.schema,
        multipartBody: content['multipart/form-data']?.schema,
      });
    }
  }
  return ops;
}

/** Path segments that must never reach a database unrefused, percent-encoded as sent. */
export const HOSTILE_PATH_SEGMENTS = [
  '%00',
  'a%00b',
  '%01%02%1F',
  '%7F',
  '%0A%0D',
  'x'.repeat(120),
  'y'.repeat(300),
  '%E0%A4%A',
  '%ED%A0%80',
  '%C0%AF',
  '%FF',
  '..',
  '%2e%2e%2fusers',
  '%20',
  '%22%27%3B--',
  '%F0%9F%98%80',
  'UPPER_case.id',
  '-1',
  '0',
  '*',
];

/** Hostile strings for JSON values and query parameters. */
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001f\u007f',
  '\ud800',
  'x\udfffy',
  '\u202e\u200b\ufeff',
  '😀'.repeat(300),
  'z'.repeat(70_000),
  '<script>alert(1)</script>',
  "'; drop table accounts; --",
  '../../etc/passwd',
  '%00',
  '${jndi:ldap://x}',
  '{{7*7}}',
  'null',
  '1e309',
  '-0',
  '2026-13-45T99:99:99Z',
];

/** Hostile values of any JSON type. */
export function hostileValue(rng: Rng, depth = 0): unknown {
  const kind = rng.int(0, depth > 2 ? 5 : 8);
  switch (kind) {
    case 0:
    case 1:
      return rng.pick(HOSTILE_STRINGS);
    case 2:
      return rng.pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MIN_VALUE]);
    case 3:
      return rng.pick([true, false]);
    case 4:
      return null;
    case 5:
      return rng.pick([{}, [], [null], ['\u0000'], { '': '' }]);
    case 6:
      return { [rng.pick(['k\u0000', '\ud800', 'a.b', '__proto__x', 'x'.repeat(300)])]: hostileValue(rng, depth + 1) };
    case 7:
      return Array.from({ length: rng.int(1, 4) }, () => hostileValue(rng, depth + 1));
    default: {
      let deep: unknown = 'leaf';
      for (let i = 0; i < rng.int(20, 80); i++) deep = rng.chance(0.5) ? [deep] : { d: deep };
      return deep;
    }
  }
}

/** A plausible value for a schema (what a careless but well-meaning client sends). */
export function plausible(schema: any, rng: Rng): unknown {
  const type = Array.isArray(schema?.type) ? schema.type.find((t: string) => t !== 'null') : schema?.type;
  if (schema?.enum?.length) return rng.pick(schema.enum.filter((v: unknown) => v !== null)) ?? null;
  switch (type) {
    case 'string':
      return schema.format === 'date-time' ? '2026-01-01T00:00:00Z' : schema.format === 'email' ? 'fuzz@example.com' : 'fuzz';
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return 'fuzz';
  }
}

/** Text a database may refuse or mangle, for fields that take text. */
const UNSTORABLE = ['\u0000', 'a\u0000b', 'x\ud800', '\udc00', '\u0001\u007f', 'ok\u0000'.repeat(3)];

/**
 * A hostile value of the field's own type, so validation lets it through and it reaches the
 * handler and the database: text with NUL or a lone surrogate, an object with such a key or value,
 * a list holding such text, a number at the edge.
 */
export function hostileForType(schema: any, rng: Rng): unknown {
  const types: string[] = Array.isArray(schema?.type) ? schema.type : schema?.type ? [schema.type] : [];
  if (types.includes('string') || types.length === 0) return rng.pick(UNSTORABLE);
  if (types.includes('object')) return rng.pick([{ [rng.pick(['k\u0000', '\ud800'])]: 'v' }, { en: rng.pick(UNSTORABLE) }, { a: { b: rng.pick(UNSTORABLE) } }]);
  if (types.includes('array')) return [rng.pick(UNSTORABLE)];
  if (types.includes('integer') || types.includes('number')) return rng.pick([0, -1, 2 ** 31, 2 ** 53 + 1, 1e308, 0.5]);
  return rng.pick(UNSTORABLE);
}

/** A JSON body for `schema`: plausible fields plus one hostile change, or something wilder. */
export function hostileBody(schema: any, rng: Rng): unknown {
  const roll = rng.next();
  if (roll < 0.06) return rng.pick(['[]', '"text"', '42', 'null', '{', '{"a":}', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}']);
  if (roll < 0.1) return hostileValue(rng);
  const props: Record<string, any> = schema?.properties ?? {};
  const names = Object.keys(props);
  const body: Record<string, unknown> = {};
  // Half the time exactly one field of the right type with unstorable text and nothing else wrong,
  // so it passes validation and reaches the database (a PATCH of one field is a whole valid request).
  if (roll < 0.55 && names.length > 0) {
    for (const name of schema.required ?? []) body[name] = plausible(props[name], rng);
    const name = rng.pick(names);
    body[name] = hostileForType(props[name], rng);
    return body;
  }
  for (const [name, prop] of Object.entries(props)) if ((schema.required ?? []).includes(name) || rng.chance(0.4)) body[name] = plausible(prop, rng);
  for (let i = rng.int(1, 3); i > 0; i--) {
    if (names.length === 0 || rng.chance(0.15)) body[rng.pick(['unknown_field', 'x\u0000', '\ud800', 'name.with.dots'])] = hostileValue(rng);
    else body[rng.pick(names)] = hostileValue(rng);
  }
  return body;
}

/** A hostile value for a query parameter, by its name and schema. */
export function hostileQueryValue(name: string, schema: any, rng: Rng): string {
  const byName: Record<string, string[]> = {
    filter: [
      'display_name:"\u0000"',
      '((((((((((',
      'display_name = ',
      'no_such_field = 1',
      'create_time > "not a date"',
      'NOT NOT NOT display_name:"x"',
      'display_name:"' + 'q'.repeat(1990) + '"',
      'a AND OR b',
      'display_name = "x" OR ' .repeat(60) + 'display_name = "y"',
      'id = "\ud800"',
      'labels.de:"x"',
      '"unterminated',
    ],
    page_token: ['garbage', '%00', 'eyJhIjoxfQ.', 'A'.repeat(4000), '..', '\u0000', 'e30.e30'],
    page_size: ['-1', '0', '1e400', 'NaN', '99999999999999999999', '1.5', 'abc'],
    skip: ['-1', '10001', '1e9', 'x'],
    order_by: ['nope', 'display_name sideways', 'a,b,c,d', 'display_name desc, display_name asc', '\u0000', 'id desc,'.repeat(20)],
    update_mask: ['', ',', 'no_such_field', '*,*', 'display_name,\u0000', 'a.b.c'],
    id: ['UPPER', '-x-', 'x'.repeat(70), '\u0000', 'ok-id'],
    request_id: ['', 'r'.repeat(65), '\u0000', 'fine-request-id'],
    etag: ['"', 'W/"x"', '*', 'stale', '\u0000'],
    w: ['0', '-5', '4097', 'abc', '1e3'],
    h: ['0', '-5', '4097', 'abc'],
    q: ['0', '101', 'abc'],
  };
  const pool = byName[name] ?? (schema?.type === 'boolean' ? ['maybe', '2', 'TRUE', ''] : HOSTILE_STRINGS.filter((s) => s.length < 5000));
  return rng.pick(pool);
}
