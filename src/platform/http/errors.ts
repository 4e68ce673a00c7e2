import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import secureJson from 'secure-json-parse';
import {
  ApiError,
  Internal,
  InvalidArgument,
  MethodNotAllowed,
  NotFound,
  ResourceExhausted,
  Unauthenticated,
  Unavailable,
  renderError,
  renderErrorJson,
  type FieldViolation,
} from '../errors.js';
import { newRequestId } from './request-id.js';

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

/**
 * ajv errors → FIELD_VIOLATIONs naming the field (body fields by path, query parameters by name).
 * `prefix` names where the validated value sits in the request (`widgets[2].settings`), for values
 * an area validates against a schema of its own.
 */
export function violationsOf(errors: AjvError[], context: string, prefix = ''): FieldViolation[] {
  const seen = new Set<string>();
  const violations: FieldViolation[] = [];
  for (const e of errors) {
    let field = fieldPath(e.instancePath, prefix);
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

/**
 * Maps anything thrown while handling a request to an ApiError. Fastify's and its plugins' own
 * errors get the canonical status their meaning has; the HTTP status follows from it (so a body too
 * large is 400 INVALID_ARGUMENT on `body`, not 413 with a status that maps to 400).
 */
export function toApiError(err: FastifyError & { validation?: AjvError[]; validationContext?: string }): ApiError {
  if (err instanceof ApiError) return err;
  if (err.validation) {
    const violations = violationsOf(err.validation, err.validationContext ?? 'body');
    return new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return InvalidArgument.field('body', 'is larger than the limit (BODY_LIMIT_BYTES)');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return InvalidArgument.field('content-type', 'is not supported; send application/json');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return InvalidArgument.field('content-length', 'does not match the body');
    case 'FST_ERR_BAD_URL':
      return InvalidArgument.field('path', 'is not a valid URL (malformed percent-encoding)');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return InvalidArgument.field('path', 'has a segment longer than any id');
  }
  const statusCode = err.statusCode ?? 500;
  if (statusCode === 404) return new NotFound('resource');
  if (statusCode === 429) return new ResourceExhausted('too many requests; retry later', 1);
  if (statusCode === 503) return new Unavailable('the service is unavailable; retry later');
  // Any other client error of Fastify or a plugin: its message is written for clients and names no internals.
  if (statusCode >= 400 && statusCode < 500) return new InvalidArgument(err.message || 'the request is not valid');
  return new Internal();
}

/** Sends an ApiError in the canonical body, with the headers its status calls for. */
export function sendError(apiError: ApiError, request: FastifyRequest, reply: FastifyReply) {
  if (apiError instanceof ResourceExhausted) reply.header('retry-after', String(apiError.retryAfterSeconds));
  // UNAVAILABLE is transient (busy, a dependency unreachable): clients may retry, after a second (documented on every 503).
  else if (apiError.status === 'UNAVAILABLE') reply.header('retry-after', '1');
  // RFC 9110 §11.6.1: every 401 names the scheme; a token that was sent and refused is an invalid_token (RFC 6750 §3.1).
  if (apiError instanceof Unauthenticated || apiError.status === 'UNAUTHENTICATED') {
    reply.header('www-authenticate', /^Bearer\s/i.test(request.headers.authorization ?? '') ? 'Bearer error="invalid_token"' : 'Bearer');
  }
  if (apiError instanceof MethodNotAllowed) reply.header('allow', apiError.allow.join(', '));
  reply.header('x-request-id', request.id);
  // Serialized here: a JSON string is sent as it is, past the route's per-status serializer (the shape is renderError's).
  return reply.code(apiError.httpCode).type('application/json; charset=utf-8').send(renderErrorJson(apiError, request.id));
}

/**
 * Fastify's `frameworkErrors`: errors raised while routing, before any hook or handler runs (a
 * malformed percent-encoding, a path segment over the router's limit). Answered in the canonical body.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(err);
  request.log.info({ request_id: request.id, code: err.code }, 'request refused while routing');
  // No hook runs for these: the CORS plugin's header is set here (its origin is `*` for every route).
  reply.header('access-control-allow-origin', '*');
  void sendError(apiError, request, reply);
}

/**
 * Errors Node's HTTP parser raises before there is a request (headers over the size limit, a
 * malformed request line, a client too slow to send its request): Node would answer 431/400/408 with
 * no body, Fastify's default with its own. The canonical body instead, with a fresh REQUEST_INFO id
 * that the log line carries too.
 */
export function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection has nobody left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let apiError: ApiError;
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      apiError = InvalidArgument.field('headers', 'are larger than the limit (request line and headers at most 16 KiB)');
      break;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      apiError = new ApiError('DEADLINE_EXCEEDED', 'the request was not received in time');
      break;
    default:
      apiError = new InvalidArgument('the request is not well-formed HTTP');
  }
  const requestId = newRequestId();
  this.log.info({ request_id: requestId, code: err.code }, 'malformed request refused');
  if (socket.writable) {
    const body = JSON.stringify(renderError(apiError, requestId));
    socket.write(
      `HTTP/1.1 ${apiError.httpCode} ${STATUS_CODES[apiError.httpCode]}\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `x-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Methods the routes of a path serve, for 405 answers: every route registered, wildcards aside. */
export interface RouteTable {
  allowed(path: string): string[];
  /**
   * What a rendered site serves at `path` (its wildcard page routes included), and whether a route
   * there answers JSON (`config.siteJson`: the read API, `/mcp`, `/_site/event`) rather than pages.
   */
  siteAllowed(path: string): { allow: string[]; json: boolean };
  /**
   * Set by the site surface: answers a request no route matched (a method the router does not know,
   * such as PROPFIND) when its Host names a rendered site, in the site's own error shape.
   */
  siteFallback?: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
}

/** Route config of a route that only refuses (404/405) and so says nothing about what a path serves. */
export interface RefusingRouteConfig {
  refusesOnly?: boolean;
}

/**
 * Collects every route as it is registered (call before registering any). Routes constrained to
 * another surface (the rendered sites' `site` constraint, set by a later onRoute hook) say nothing
 * about what a platform path serves, so the table is built on first use, once every hook has run.
 */
// why (the cast): Fastify types a route's method as a string; every method it registers is one find-my-way knows.
const asMethod = (method: string) => method as HTTPMethod;

export function trackRoutes(app: FastifyInstance, opts: { maxParamLength: number }): RouteTable {
  const registered: Array<{ url: string; method: string | string[]; constraints?: Record<string, unknown>; config?: unknown }> = [];
  let table: { router: ReturnType<typeof FindMyWay>; methods: string[] } | undefined;
  let verbTable: { router: ReturnType<typeof FindMyWay>; methods: string[] } | undefined;
  let siteTable: { router: ReturnType<typeof FindMyWay>; methods: string[] } | undefined;
  app.addHook('onRoute', (route) => {
    registered.push(route);
  });
  // Custom methods (`{name}:{verb}`, routed as `::verb`) have a table of their own: an item route's
  // unbounded id would otherwise match `x:verb` and lend it the item's methods.
  function build(verbs = false) {
    const router = FindMyWay({ maxParamLength: opts.maxParamLength });
    const methods = new Set<string>();
    for (const route of registered) {
      // The CORS preflight's `OPTIONS *` matches every path; it says nothing about what a path serves.
      if (route.url.includes('*') || route.constraints?.site) continue;
      if (route.url.includes('::') !== verbs) continue;
      for (const method of ([] as string[]).concat(route.method)) {
        if (router.hasRoute(asMethod(method), route.url)) continue;
        router.on(asMethod(method), route.url, () => undefined);
        methods.add(method);
      }
    }
    return { router, methods: [...methods].sort() };
  }
  function buildSite() {
    const router = FindMyWay({ maxParamLength: opts.maxParamLength });
    const methods = new Set<string>();
    for (const route of registered) {
      const config = route.config as (RefusingRouteConfig & { siteJson?: boolean }) | undefined;
      if (!route.constraints?.site) continue;
      for (const method of ([] as string[]).concat(route.method)) {
        if (router.hasRoute(asMethod(method), route.url)) continue;
        // A refusing route is kept: it shadows the pages' wildcard for its method and says whether the path is JSON.
        router.on(asMethod(method), route.url, () => undefined, { json: config?.siteJson === true, refuses: config?.refusesOnly === true });
        methods.add(method);
      }
    }
    return { router, methods: [...methods].sort() };
  }
  return {
    siteAllowed(path) {
      siteTable ??= buildSite();
      const allow: string[] = [];
      let json = false;
      for (const method of siteTable.methods) {
        try {
          const found = siteTable.router.find(asMethod(method), path);
          if (!found) continue;
          const store = found.store as { json?: boolean; refuses?: boolean } | undefined;
          if (!store?.refuses) allow.push(method);
          // A specific JSON route decides over the pages' wildcard.
          if (store?.json) json = true;
        } catch {
          // A path the router cannot read serves nothing.
        }
      }
      return { allow, json };
    },
    allowed(path) {
      const verb = /:[a-z_]+$/.test(path.slice(path.lastIndexOf('/') + 1));
      const routes = verb ? (verbTable ??= build(true)) : (table ??= build());
      const allow: string[] = [];
      for (const method of routes.methods) {
        try {
          if (routes.router.find(asMethod(method), path)) allow.push(method);
        } catch {
          // A path the router cannot read (bad percent-encoding) serves nothing.
        }
      }
      return allow;
    },
  };
}

/**
 * The canonical error body everywhere: validation, parsing, unknown routes, wrong methods, thrown
 * ApiErrors. A 500 is logged with the same request id the body carries; its text never leaks.
 */
export function installErrorHandling(app: FastifyInstance, routes: RouteTable): void {
  // JSON only: Fastify's built-in text/plain parser would hand a string to the body schema.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    // An empty body is no body: custom methods take an optional empty body.
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(InvalidArgument.field('body', 'is not valid JSON'), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err);
    if (apiError.httpCode >= 500) request.log.error({ err, request_id: request.id }, 'request failed');
    return sendError(apiError, request, reply);
  });

  // Before routing decides anything: `/accounts/` would otherwise match `/accounts/:account_id` with an empty id.
  app.addHook('onRequest', async (request, reply) => {
    if (redirectTrailingSlash(request, reply)) return reply;
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (redirectTrailingSlash(request, reply)) return reply;
    // A rendered site's host gets the site's answer, never the platform's routes (their Allow is not the site's).
    const site = await routes.siteFallback?.(request, reply);
    if (site) return site;
    const path = splitUrl(request.url)[0];
    const allow = routes.allowed(path);
    if (allow.length > 0) return sendError(new MethodNotAllowed(request.method, path, allow), request, reply);
    return sendError(new NotFound(`no route ${request.method} ${path}`), request, reply);
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
