import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { TtlCache, VersionedCache } from '../cache.js';
import type { CacheInvalidation } from '../cache-invalidation.js';
import type { Database } from '../db/database.js';
import { Unauthenticated } from '../errors.js';
import type { Caller } from './context.js';

const ISSUER = 'siteplatform';
// jose's verify costs more than a point read: a token whose signature checked out is trusted again
// for this long. Only the signature: whether its session still exists is decided by the session cache.
const VERIFIED_TOKEN_TTL_MS = 30_000;
// Tokens are ~250 bytes: the byte bound, not the count, limits the verified-token cache.
const VERIFIED_TOKEN_CACHE = { max: 50_000, maxBytes: 8 * 2 ** 20 };
const SESSION_CACHE = { max: 100_000, maxBytes: 8 * 2 ** 20 };
// A refused token is refused again without jose (whose failures cost more than a served Get) for as
// long as a verified one is trusted; a bad signature stays bad, an expired token stays expired.
const REFUSED_TOKEN_CACHE = { max: 10_000, maxBytes: 2 * 2 ** 20 };
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

export interface TokenService {
  /**
   * A signed bearer token of one sign-in session, issued at `now`, and the instant it stops working
   * (its `exp` claim, whole seconds, so the announced expiry is exactly the real one).
   */
  issue(session: { userId: string; sessionId: string }, now: number): Promise<{ token: string; expireMs: number }>;
  /** The caller behind an `Authorization` header; throws Unauthenticated otherwise (ended session included). */
  authenticate(authorization: string | undefined, now: number): Promise<Caller>;
  /**
   * `authenticate`, with `alongside(caller)` (the route's access check) run while the session is
   * read: on PostgreSQL the two point reads go out together, one round trip instead of two. The
   * session decides first: an ended one is Unauthenticated whatever `alongside` answered.
   */
  authenticateWith<T>(authorization: string | undefined, now: number, alongside: (caller: Caller) => Promise<T>): Promise<{ caller: Caller; value: T }>;
  /**
   * `authenticate` when the answer is already in memory (the token verified and its session read under
   * the current version): the caller, or the Unauthenticated thrown, without a promise. Undefined
   * when a check must wait (jose, or the session's read): then call `authenticate`.
   */
  known(authorization: string | undefined, now: number): Caller | undefined;
  readonly lifetimeSeconds: number;
}

/**
 * HS256 JWTs carrying `sub` (user id) and `sid` (the session, a row of `user_sessions`); tokens
 * issued before sessions existed carry `ver` (the user's token version) instead. Whether a session
 * exists is cached per process under the `auth` topic's version (src/platform/cache-invalidation.ts):
 * deleting a session row (sign-out everywhere, password change or reset, account deletion) raises it
 * from a trigger, so the session stops working on the next request, in every process.
 */
export function createTokenService(opts: { secret: Uint8Array; lifetimeSeconds: number; database: Database; invalidation: CacheInvalidation }): TokenService {
  const verified = new TtlCache<string, { userId: string; sessionId: string | undefined; version: number | undefined; expMs: number }>(
    VERIFIED_TOKEN_CACHE.max,
    VERIFIED_TOKEN_TTL_MS,
    { maxBytes: VERIFIED_TOKEN_CACHE.maxBytes },
  );
  const refused = new TtlCache<string, Unauthenticated>(REFUSED_TOKEN_CACHE.max, VERIFIED_TOKEN_TTL_MS, {
    maxBytes: REFUSED_TOKEN_CACHE.maxBytes,
    sizeOf: (token, err) => 96 + 2 * (token.length + err.message.length),
  });
  const sessions = new VersionedCache<string, { userId: string } | null>(SESSION_CACHE);
  const authVersion = () => opts.invalidation.version('auth');
  const sessionById = opts.database.pointReader('user_sessions', ['id']);
  const userById = opts.database.pointReader('users', ['id']);

  /** A token's claims as verified before, a refusal made before (thrown), or undefined: jose must check it. */
  function knownClaims(token: string, now: number) {
    const hit = verified.get(token, now);
    if (hit && hit.expMs > now) return hit;
    const known = refused.get(token, now);
    if (known) throw known;
    return undefined;
  }

  async function verify(token: string, now: number) {
    const known = knownClaims(token, now);
    if (known) return known;
    try {
      const { payload } = await jwtVerify(token, opts.secret, { issuer: ISSUER, algorithms: ['HS256'], currentDate: new Date(now) });
      const session = typeof payload.sid === 'string' ? payload.sid : undefined;
      const version = typeof payload.ver === 'number' ? payload.ver : undefined;
      if (typeof payload.sub !== 'string' || (session === undefined && version === undefined) || typeof payload.exp !== 'number') {
        throw new Unauthenticated('token is missing required claims');
      }
      const entry = { userId: payload.sub, sessionId: session, version, expMs: payload.exp * 1000 };
      verified.set(token, entry, now, Math.min(VERIFIED_TOKEN_TTL_MS, entry.expMs - now));
      return entry;
    } catch (err) {
      const answer =
        err instanceof Unauthenticated
          ? err
          : err instanceof joseErrors.JWTExpired
            ? new Unauthenticated('token expired')
            : new Unauthenticated('token is malformed or not signed by this platform');
      refused.set(token, answer, now);
      throw answer;
    }
  }

  return {
    lifetimeSeconds: opts.lifetimeSeconds,
    async issue(session, now) {
      const issuedAt = Math.floor(now / 1000);
      const expiresAt = issuedAt + opts.lifetimeSeconds;
      const token = await new SignJWT({ sid: session.sessionId })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(session.userId)
        .setIssuer(ISSUER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(opts.secret);
      return { token, expireMs: expiresAt * 1000 };
    },
    authenticate: (authorization, now) => checkedCaller(authorization, now),
    known(authorization, now) {
      const claims = knownClaims(bearerToken(authorization), now);
      if (claims?.sessionId === undefined) return undefined;
      const session = sessions.peek(claims.sessionId, authVersion);
      return session === undefined ? undefined : sessionCaller(claims, session);
    },
    async authenticateWith(authorization, now, alongside) {
      const claims = await claimsOf(authorization, now);
      const caller = checkedCaller(authorization, now, claims);
      // Started before the session's answer is in; a synchronous throw becomes a rejection like any other.
      const value = Promise.resolve().then(() => alongside({ userId: claims.userId, sessionId: claims.sessionId }));
      const [session, result] = await Promise.allSettled([caller, value]);
      if (session.status === 'rejected') throw session.reason;
      if (result.status === 'rejected') throw result.reason;
      return { caller: session.value, value: result.value };
    },
  };

  /** The token of an `Authorization: Bearer …` header; Unauthenticated for none or a malformed one. */
  function bearerToken(authorization: string | undefined): string {
    if (!authorization) throw new Unauthenticated('missing Authorization: Bearer token');
    const match = BEARER.exec(authorization);
    if (!match) throw new Unauthenticated('Authorization header must be "Bearer <token>"');
    // Not three base64url parts: refused without jose, whose failures cost more than a served Get.
    if (!JWT_SHAPE.test(match[1])) throw new Unauthenticated('token is malformed or not signed by this platform');
    return match[1];
  }

  async function claimsOf(authorization: string | undefined, now: number) {
    return verify(bearerToken(authorization), now);
  }

  /** The caller of verified claims whose session was read: Unauthenticated when it has ended. */
  function sessionCaller(claims: { userId: string; sessionId?: string }, session: { userId: string } | null): Caller {
    if (!session || session.userId !== claims.userId) throw new Unauthenticated('the session of this token has ended');
    return { userId: claims.userId, sessionId: claims.sessionId };
  }

  /** The caller of a token whose signature checked out, once its session (or token version) is read. */
  async function checkedCaller(authorization: string | undefined, now: number, known?: Awaited<ReturnType<typeof verify>>): Promise<Caller> {
    const claims = known ?? (await claimsOf(authorization, now));
    if (claims.sessionId !== undefined) {
      const sessionId = claims.sessionId;
      const session = await sessions.load(sessionId, authVersion, async () => {
        const row = await sessionById([sessionId]);
        return row ? { userId: String(row.user_id) } : null;
      });
      return sessionCaller(claims, session);
    }
    // Tokens from before sessions carry only the user's token version (`ver`): valid while it is
    // unchanged (every ending of sessions also raises it).
    const user = await userById([claims.userId]);
    if (!user) throw new Unauthenticated('the user of this token no longer exists');
    if (Number(user.token_version) !== claims.version) throw new Unauthenticated('token was revoked');
    return { userId: claims.userId };
  }
}
