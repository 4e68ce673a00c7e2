import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError, Internal, InvalidArgument, NotFound, ResourceExhausted, renderError, type FieldViolation } from '../errors.js';

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** `/labels/de` → `labels.de`, `/tags/0` → `tags[0]`. */
function fieldPath(instancePath: string, prefix: string): string {
  const parts = instancePath.split('/').slice(1);
  let path = prefix;
  for (const part of parts) path = /^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part;
  return path;
}

/** ajv errors → FIELD_VIOLATIONs naming the field (body fields by path, query parameters by name). */
function violationsOf(errors: AjvError[], context: string): FieldViolation[] {
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  for (const e of errors) {
    let field = fieldPath(e.instancePath, '');
    let description = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      field = field ? `${field}.${e.params.missingProperty}` : String(e.params.missingProperty);
      description = 'is required';
    } else if ((e as { propertyName?: string }).propertyName !== undefined) {
      // The inner error of a `propertyNames` violation (ajv reports it first, then the summary).
      const name = (e as { propertyName?: string }).propertyName;
      if (e.keyword === 'enum') {
        // Request bodies name the fields they accept with `propertyNames: {enum}` (resource/schemas.ts inputSchema).
        field = field ? `${field}.${name}` : String(name);
        description = 'is not a known field';
      } else {
        // A map's key rule (labels' locales, attribute keys): the map is the field, the key is what is wrong.
        description = `has an invalid key ${JSON.stringify(name)}: ${description}`;
      }
    } else if (e.keyword === 'propertyNames') {
      const explained = errors.some((inner) => (inner as { propertyName?: string }).propertyName === e.params.propertyName && inner.instancePath === e.instancePath);
      if (explained) continue; // reported through its inner error above
      field = field ? `${field}.${e.params.propertyName}` : String(e.params.propertyName);
      description = 'is not a known field';
    } else if (e.keyword === 'additionalProperties') {
      field = field ? `${field}.${e.params.additionalProperty}` : String(e.params.additionalProperty);
      description = 'is not a known field';
    } else if (e.keyword === 'enum') {
      description = `must be one of ${(e.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    }
    if (!field) field = context === 'body' ? 'body' : context;
    const key = `${field}\n${description}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push({ field, description });
  }
  return violations;
}

/** Maps anything thrown while handling a request to an ApiError. */
export function toApiError(err: FastifyError & { validation?: AjvError[]; validationContext?: string }): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const violations = violationsOf(err.validation, err.validationContext ?? 'body');
    return new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new InvalidArgument(`request body is larger than the limit`, [{ field: 'body', description: 'is too large' }], 413);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new InvalidArgument(`unsupported Content-Type; send application/json`, [{ field: 'content-type', description: 'is not supported' }], 415);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new InvalidArgument('Content-Length does not match the body');
  }
  if (err.statusCode === 400) return new InvalidArgument(err.message);
  if (err.statusCode === 404) return new NotFound('resource');
  if (err.statusCode === 429) return new ResourceExhausted(err.message, 1);
  return new Internal();
}

/**
 * The canonical error body everywhere: validation, parsing, unknown routes, thrown ApiErrors.
 * A 500 is logged with the same request id the body carries; its text never leaks.
 */
export function installErrorHandling(app: FastifyInstance): void {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the body schema (400)
  // where an unsupported media type is 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    // An empty body is no body: custom methods take an optional empty body.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(new InvalidArgument('request body is not valid JSON', [{ field: 'body', description: 'is not valid JSON' }]), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err);
    if (apiError.httpCode >= 500) request.log.error({ err, request_id: request.id }, 'request failed');
    if (apiError instanceof ResourceExhausted) reply.header('retry-after', String(apiError.retryAfterSeconds));
    // UNAVAILABLE is transient (busy, a dependency unreachable): clients may retry, after a second (documented on every 503).
    else if (apiError.status === 'UNAVAILABLE') reply.header('retry-after', '1');
    return reply.code(apiError.httpCode).send(renderError(apiError, request.id));
  });

  // Before routing decides anything: `/accounts/` would otherwise match `/accounts/:account_id` with an empty id.
  app.addHook('onRequest', async (request, reply) => {
    if (redirectTrailingSlash(request, reply)) return reply;
  });

  app.setNotFoundHandler((request, reply) => {
    if (redirectTrailingSlash(request, reply)) return reply;
    const err = new NotFound(`no route ${request.method} ${splitUrl(request.url)[0]}`);
    return reply.code(404).send(renderError(err, request.id));
  });
}

/** Canonical paths have no trailing slash: answers 301 to the path without it (query kept) and returns true. */
function redirectTrailingSlash(request: FastifyRequest, reply: FastifyReply): boolean {
  if (reply.sent) return true;
  const [path, query] = splitUrl(request.url);
  if (path.length <= 1 || !path.endsWith('/')) return false;
  reply.code(301).header('location', path.replace(/\/+$/, '') + (query ? `?${query}` : '')).send();
  return true;
}

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i < 0 ? [url, ''] : [url.slice(0, i), url.slice(i + 1)];
}
