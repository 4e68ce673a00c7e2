import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/errors.js';
import type { SiteContext, SiteVisitor } from '../../platform/area.js';
import { CUSTOMER_SESSION_LIFETIME_MS, type CustomerSessions } from '../customer-sessions.service.js';
import { membershipsOf } from '../customers.repo.js';

/**
 * The visitor's session cookie on a rendered website: who is signed in (a read-only check per
 * request, renewed past half its lifetime), and the cookie a sign-in, sign-out or reset sets.
 */

/** The session cookie: the bearer secret of a `customer_sessions` row (only its hash is stored). */
export const SESSION_COOKIE = 'customer_session';
/** What a session cookie may look like (base64url of 32 bytes); anything else is not even looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,100}$/;
/** Answers that depend on who is signed in: never kept by a shared cache, nor by the browser. */
export const NO_STORE = 'private, no-store';

/** The signed-in visitor of a site request, and the session cookie of its answer. */
export interface VisitorSession {
  /**
   * The signed-in visitor: a read-only check of the session (renewed only once less than half its
   * lifetime is left); anything that is not a live session of this website is an anonymous visitor
   * whose cookie is cleared.
   */
  visitor(request: FastifyRequest, ctx: SiteContext): Promise<SiteVisitor | undefined>;
  /** Signs the customer in on this device: a new session, its cookie on the answer. */
  start(request: FastifyRequest, reply: FastifyReply, websiteId: string, customerId: string): Promise<void>;
  /** Signs out on this device: the cookie's session ends, the cookie is cleared. */
  end(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Clears the cookie (its session already ended). */
  clear(request: FastifyRequest, reply: FastifyReply): void;
  /** Sends what the visitor check decided (a renewed session, a cleared bad one) with any site answer. */
  flush(request: FastifyRequest, reply: FastifyReply): void;
}

export function createVisitorSession(deps: { db: Db; sessions: CustomerSessions }): VisitorSession {
  const { db, sessions } = deps;
  /** Set-Cookie values the visitor check decided (renewed or cleared session), sent with the answer. */
  const visitorCookies = new WeakMap<FastifyRequest, string>();

  const sessionCookie = (request: FastifyRequest, value: string, maxAgeSeconds: number) =>
    fastifyCookie.serialize(SESSION_COOKIE, value, { httpOnly: true, secure: request.protocol === 'https', sameSite: 'lax', path: '/', maxAge: maxAgeSeconds });
  const clearedSession = (request: FastifyRequest) => sessionCookie(request, '', 0);

  function addCookie(reply: FastifyReply, cookie: string): void {
    const current = reply.getHeader('set-cookie');
    reply.header('set-cookie', [...(current === undefined ? [] : Array.isArray(current) ? current : [String(current)]), cookie]);
  }

  function sessionTokenOf(request: FastifyRequest): string | undefined {
    const header = request.headers.cookie;
    if (!header) return undefined;
    const value = fastifyCookie.parse(header)[SESSION_COOKIE];
    return value || undefined;
  }

  return {
    async visitor(request, ctx) {
      const token = sessionTokenOf(request);
      if (token === undefined) return undefined;
      if (!TOKEN_SHAPE.test(token)) {
        visitorCookies.set(request, clearedSession(request));
        return undefined;
      }
      let session;
      try {
        session = await sessions.check(token, ctx.now);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        visitorCookies.set(request, clearedSession(request));
        return undefined;
      }
      // Another website's session (a cookie carried over by hand) is no session here.
      if (session.websiteId !== ctx.website.id) {
        visitorCookies.set(request, clearedSession(request));
        return undefined;
      }
      if (session.renewDue) {
        const renewed = await sessions.renew(token, ctx.now).catch(() => undefined);
        if (renewed) visitorCookies.set(request, sessionCookie(request, token, Math.floor((renewed.expireTime - ctx.now) / 1000)));
      }
      const groups = (await membershipsOf(db, [session.customerId])).get(session.customerId)!;
      return { customerId: session.customerId, displayName: session.displayName, email: session.email, groupIds: groups.all };
    },

    async start(request, reply, websiteId, customerId) {
      const session = await sessions.create(websiteId, customerId, Date.now());
      visitorCookies.delete(request);
      addCookie(reply, sessionCookie(request, session.token, Math.floor(CUSTOMER_SESSION_LIFETIME_MS / 1000)));
    },

    async end(request, reply) {
      const token = sessionTokenOf(request);
      if (token && TOKEN_SHAPE.test(token)) await sessions.revoke(token);
      visitorCookies.delete(request);
      addCookie(reply, clearedSession(request));
    },

    clear(request, reply) {
      visitorCookies.delete(request);
      addCookie(reply, clearedSession(request));
    },

    flush(request, reply) {
      const cookie = visitorCookies.get(request);
      if (cookie) {
        visitorCookies.delete(request);
        addCookie(reply, cookie);
        reply.header('cache-control', NO_STORE);
      }
    },
  };
}
