import type { FastifyInstance } from 'fastify';
import { InvalidArgument } from '../errors.js';

/**
 * Text both databases can store, checked once for every request instead of per field.
 *
 * PostgreSQL refuses the NUL character (U+0000) in `text` (`invalid byte sequence for encoding
 * "UTF8": 0x00`) and in `jsonb` (`unsupported Unicode escape sequence`), and a lone UTF-16
 * surrogate in `jsonb`; SQLite stores all three. Rather than a 500 on one database and silently
 * stored garbage on the other, such text is refused everywhere with 400 INVALID_ARGUMENT naming the
 * field: every string and object key of a JSON body at any depth, every path parameter and every
 * query parameter (a `filter` value included).
 *
 * JSON bodies nested deeper than MAX_DEPTH are refused too: nothing we store needs it, and
 * serialising a value nested a few thousand levels deep overflows the stack (a 500).
 */
export const MAX_DEPTH = 32;

/** With the `u` flag a surrogate pair is one code point, so only unpaired halves match. */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `text` cannot be stored (as a value, or as an object key), or undefined when it can. */
function problemOf(text: string): { value: string; key: string } | undefined {
  if (text.includes('\u0000')) return { value: 'must not contain the NUL character (U+0000)', key: 'has a key containing the NUL character (U+0000)' };
  if (LONE_SURROGATE.test(text)) return { value: 'must be well-formed Unicode (no lone surrogate)', key: 'has a key that is not well-formed Unicode' };
  return undefined;
}

/** `tags` + 0 → `tags[0]`, `metadata` + `k` → `metadata.k`. */
function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/**
 * The common case of every request's parameters (a flat record of clean strings) decided without the
 * walk's allocations; false sends anything else (nesting, arrays, a problem) to the walk, which names the field.
 */
function isStorableRecord(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field !== 'string' || problemOf(key) || problemOf(field)) return false;
  }
  return true;
}

/**
 * Throws INVALID_ARGUMENT naming the first field of `value` (a parsed JSON value, or a record of
 * request parameters) that holds text no database can store, or that nests deeper than MAX_DEPTH.
 * Iterative, so a hostile nesting depth cannot overflow the stack here either.
 */
export function refuseUnstorableText(value: unknown, root: string): void {
  if (isStorableRecord(value)) return;
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: root, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop()!;
    const field = path || 'body';
    if (typeof current === 'string') {
      const problem = problemOf(current);
      if (problem) throw InvalidArgument.field(field, problem.value);
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_DEPTH) throw InvalidArgument.field(field, `nests deeper than ${MAX_DEPTH} levels`);
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: child(path, i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(current);
    for (let i = keys.length - 1; i >= 0; i--) {
      const problem = problemOf(keys[i]);
      // The key itself cannot be shown faithfully in a field path: name the object holding it.
      if (problem) throw InvalidArgument.field(field, problem.key);
      stack.push({ value: (current as Record<string, unknown>)[keys[i]], path: child(path, keys[i]), depth: depth + 1 });
    }
  }
}

/**
 * Runs the check on every routed request, after the body is parsed and before validation and the
 * handler: path parameters and query parameters by name, the JSON body by field path.
 */
export function installInputGuard(app: FastifyInstance): void {
  // Callback style: no promise per request for a check that never waits.
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      refuseUnstorableText(request.params, '');
      refuseUnstorableText(request.query, '');
      if (request.body !== undefined) refuseUnstorableText(request.body, '');
    } catch (err) {
      return done(err as Error);
    }
    done();
  });
}
