import type { FastifyReply, FastifyRequest, onRequestHookHandler, RouteOptions } from 'fastify';
import type { AccessRoot, AccessService } from '../auth/access.js';
import type { AccessScope, Caller, RequestContext } from '../auth/context.js';
import type { Right } from '../auth/rights.js';
import type { TokenService } from '../auth/tokens.js';
import { ApiError, NotFound } from '../errors.js';
import { sendError } from './errors.js';
import { refuseUnstorableText } from './input-guard.js';
import { PATH_ID_PATTERN } from '../ids.js';
import { templateParams } from '../paths.js';

/**
 * Turns a request into the transport-free context services take: authenticates the bearer token,
 * then resolves the path's root (`accounts/{account_id}`, `projects/{project_id}`,
 * `websites/{website_id}`) to the account it belongs to and checks the caller's right there.
 */
export interface RouteContextFactory {
  (request: FastifyRequest, template: string, right: Right): Checked<RequestContext>;
  /** Authentication only, for routes outside any account (`accounts` collection, `users:*`). */
  authenticated(request: FastifyRequest): Checked<RequestContext>;
  /**
   * The caller's own resources (`users/{user_id}/…`): `me` in the path's first parameter becomes the
   * caller's id (rewritten in `request.params`, so everything after sees the real id); any other
   * user's id is NOT_FOUND, exactly like an id that does not exist.
   */
  own(request: FastifyRequest, template: string): Checked<RequestContext>;
}

/**
 * A check's answer: in hand when everything it needed was in memory (a caller's usual request: token,
 * session, owner and membership cached), else on its way. A refusal known at once is thrown at once.
 */
export type Checked<T> = T | Promise<T>;

/** Stands for the signed-in user's id in `users/{user_id}` paths. */
export const ME = 'me';

const CHECKED = Symbol('checked');
type CheckedRequest = FastifyRequest & { [CHECKED]?: Checked<RequestContext> };

export function createRouteContextFactory(deps: {
  tokens: TokenService;
  access: AccessService;
  roots: Record<string, AccessRoot>;
}): RouteContextFactory {
  // A request is checked once: the route's onRequest hook (checkedFirst) runs the check before the
  // body is parsed or validated, and the handler's own call gets that same answer.
  // Kept on the request itself: a WeakMap's entry per request cost more than the rest of a cached check.
  const once = <A extends unknown[]>(check: (request: FastifyRequest, ...args: A) => Checked<RequestContext>) =>
    (request: FastifyRequest, ...args: A): Checked<RequestContext> => {
      const held = request as CheckedRequest;
      return (held[CHECKED] ??= check(request, ...args));
    };
  const contextOf = (request: FastifyRequest, caller: Caller, now: number, access?: AccessScope): RequestContext =>
    access ? { requestId: request.id, caller, now, access } : { requestId: request.id, caller, now };
  const caller = (request: FastifyRequest): Checked<RequestContext> => {
    const now = Date.now();
    const known = deps.tokens.known(request.headers.authorization, now);
    if (known) return contextOf(request, known, now);
    return deps.tokens.authenticate(request.headers.authorization, now).then((who) => contextOf(request, who, now));
  };
  /** The access root a path starts from and its id (none: a path outside any account); NOT_FOUND for an id no row can have. */
  const targetOf = (template: string, params: Record<string, string>): { root: AccessRoot; id: string } | undefined => {
    const names = templateParams(template);
    for (const p of names) {
      if (!PATH_ID_PATTERN.test(params[p] ?? '')) throw new NotFound(`${p.replace(/_id$/, '')} ${params[p]}`);
    }
    if (!names.length) return undefined;
    const root = deps.roots[names[0]];
    if (!root) throw new Error(`path ${template} starts at ${names[0]}, which is not a declared access root`);
    return { root, id: params[names[0]] };
  };
  const factory = (request: FastifyRequest, template: string, right: Right): Checked<RequestContext> => {
    const now = Date.now();
    const params = request.params as Record<string, string>;
    // Token first (401 before any 404/403), then the path: answered without a promise when all is cached.
    const known = deps.tokens.known(request.headers.authorization, now);
    if (known) {
      const target = targetOf(template, params);
      if (!target) return contextOf(request, known, now);
      const access = deps.access.known(known, target.root, target.id, right);
      if (access) return contextOf(request, known, now, access);
    }
    // The access check runs while the session is read (one round trip on PostgreSQL); an ended
    // session still answers UNAUTHENTICATED before any NOT_FOUND or PERMISSION_DENIED.
    return deps.tokens.authenticateWith(request.headers.authorization, now, async (who) => {
      const target = targetOf(template, params);
      return target && deps.access.authorize(who, target.root, target.id, right, now);
    }).then(({ caller: who, value: access }) => contextOf(request, who, now, access));
  };
  const own = async (request: FastifyRequest, template: string): Promise<RequestContext> => {
    const ctx = await caller(request);
    const params = request.params as Record<string, string>;
    const [userParam, ...rest] = templateParams(template);
    if (!userParam) throw new Error(`path ${template} names no user`);
    if (params[userParam] === ME) params[userParam] = ctx.caller.userId;
    if (params[userParam] !== ctx.caller.userId) throw new NotFound(`user ${params[userParam]}`);
    for (const p of rest) {
      if (!PATH_ID_PATTERN.test(params[p] ?? '')) throw new NotFound(`${p.replace(/_id$/, '')} ${params[p]}`);
    }
    return ctx;
  };
  return Object.assign(once(factory), { authenticated: once(caller), own: once(own) });
}

/**
 * Route options that run a route's credentials and path check as the request arrives, before its
 * body is read, parsed or validated (SPEC 5.3): 401, then 404/403 for the path, then 400 for the
 * body, whatever the body holds. `check` is the route's own context call (memoised per request).
 */
// The hook is added to routes of every shape, hence its open type parameters.
export function checkedFirst(check: (request: FastifyRequest) => Checked<unknown>): { onRequest: onRequestHookHandler<any, any, any, any, any, any, any, any> } {
  // A refusal (401, 403, 404, 400) is answered from here, and the hook chain stops (no `done`):
  // throwing it would take Fastify's error path (onError hooks, the error handler, the unread body's
  // teardown), which cost a refused request more than a served Get (docs/performance.md, issue 24).
  // Failures still go there, to be logged.
  const refuse = (err: unknown, request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (err instanceof ApiError && err.httpCode < 500) void sendError(err, request, reply);
    else done(err as Error);
  };
  return {
    // Callback style: a check answered from memory passes without a promise.
    onRequest(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) {
      let answer: Checked<unknown>;
      try {
        // Path ids no database can store (a NUL) are a malformed request, answered 400 before any lookup (input-guard.ts).
        refuseUnstorableText(request.params, '');
        answer = check(request);
      } catch (err) {
        return refuse(err, request, reply, done);
      }
      if (answer instanceof Promise) answer.then(() => done(), (err: unknown) => refuse(err, request, reply, done));
      else done();
    },
  };
}

/**
 * An `onRoute` hook for a surface whose routes need credentials: a documented route that does not
 * say `security: []` (public) must check them first (checkedFirst); one that forgets fails at start.
 */
export function requireCheckedFirst(route: RouteOptions): void {
  const schema = route.schema as { hide?: boolean; security?: unknown[]; operationId?: string } | undefined;
  if (!schema?.operationId || schema.hide) return;
  if (Array.isArray(schema.security) && schema.security.length === 0) return;
  if (!route.onRequest || (Array.isArray(route.onRequest) && route.onRequest.length === 0)) {
    throw new Error(`${[route.method].flat().join(',')} ${route.url} needs credentials but checks them after its body: give it checkedFirst(...)`);
  }
}
