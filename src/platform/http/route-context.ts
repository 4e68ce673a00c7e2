import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify';
import type { AccessRoot, AccessService } from '../auth/access.js';
import type { RequestContext } from '../auth/context.js';
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
  (request: FastifyRequest, template: string, right: Right): Promise<RequestContext>;
  /** Authentication only, for routes outside any account (`accounts` collection, `users:*`). */
  authenticated(request: FastifyRequest): Promise<RequestContext>;
  /**
   * The caller's own resources (`users/{user_id}/…`): `me` in the path's first parameter becomes the
   * caller's id (rewritten in `request.params`, so everything after sees the real id); any other
   * user's id is NOT_FOUND, exactly like an id that does not exist.
   */
  own(request: FastifyRequest, template: string): Promise<RequestContext>;
}

/** Stands for the signed-in user's id in `users/{user_id}` paths. */
export const ME = 'me';

export function createRouteContextFactory(deps: {
  tokens: TokenService;
  access: AccessService;
  roots: Record<string, AccessRoot>;
}): RouteContextFactory {
  // A request is checked once: the route's onRequest hook (checkedFirst) runs the check before the
  // body is parsed or validated, and the handler's own call gets that same answer.
  const checked = new WeakMap<FastifyRequest, Promise<RequestContext>>();
  const once = <A extends unknown[]>(check: (request: FastifyRequest, ...args: A) => Promise<RequestContext>) =>
    (request: FastifyRequest, ...args: A): Promise<RequestContext> => {
      let answer = checked.get(request);
      if (!answer) checked.set(request, (answer = check(request, ...args)));
      return answer;
    };
  const caller = async (request: FastifyRequest): Promise<RequestContext> => {
    const now = Date.now();
    const who = await deps.tokens.authenticate(request.headers.authorization, now);
    return { requestId: request.id, caller: who, now };
  };
  const factory = async (request: FastifyRequest, template: string, right: Right): Promise<RequestContext> => {
    const now = Date.now();
    const params = request.params as Record<string, string>;
    // The access check runs while the session is read (one round trip on PostgreSQL); an ended
    // session still answers UNAUTHENTICATED before any NOT_FOUND or PERMISSION_DENIED.
    const { caller: who, value: access } = await deps.tokens.authenticateWith(request.headers.authorization, now, async (who) => {
      for (const p of templateParams(template)) {
        if (!PATH_ID_PATTERN.test(params[p] ?? '')) throw new NotFound(`${p.replace(/_id$/, '')} ${params[p]}`);
      }
      const rootParam = templateParams(template)[0];
      if (!rootParam) return undefined;
      const root = deps.roots[rootParam];
      if (!root) throw new Error(`path ${template} starts at ${rootParam}, which is not a declared access root`);
      return deps.access.authorize(who, root, params[rootParam], right, now);
    });
    return access ? { requestId: request.id, caller: who, now, access } : { requestId: request.id, caller: who, now };
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
export function checkedFirst(check: (request: FastifyRequest) => Promise<unknown>): { onRequest: onRequestAsyncHookHandler<any, any, any, any, any, any, any, any> } {
  return {
    onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        // Path ids no database can store (a NUL) are a malformed request, answered 400 before any lookup (input-guard.ts).
        refuseUnstorableText(request.params, '');
        await check(request);
      } catch (err) {
        // A refusal (401, 403, 404, 400) is answered from here: throwing it would take Fastify's error
        // path (onError hooks, the error handler, the unread body's teardown), which cost a refused
        // request more than a served Get (docs/performance.md, issue 24). Failures still go there, to be logged.
        if (err instanceof ApiError && err.httpCode < 500) return sendError(err, request, reply);
        throw err;
      }
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
