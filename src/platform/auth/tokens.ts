import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import type { Kysely } from 'kysely';
import { TtlCache } from '../cache.js';
import { Unauthenticated } from '../errors.js';
import type { Caller } from './context.js';

const ISSUER = 'siteplatform';
// jose's verify costs more than a SQLite read: a verified token is trusted again for this long.
const VERIFIED_TOKEN_TTL_MS = 30_000;
// Sign-out-everywhere reaches other processes within this long (immediately in this one).
const TOKEN_VERSION_TTL_MS = 5_000;

export interface TokenService {
  /**
   * A signed bearer token for the user at its current token version, issued at `now`, and the instant
   * it stops working (its `exp` claim, whole seconds, so the announced expiry is exactly the real one).
   */
  issue(user: { id: string; token_version: number }, now: number): Promise<{ token: string; expireMs: number }>;
  /** The caller behind an `Authorization` header; throws Unauthenticated otherwise. */
  authenticate(authorization: string | undefined, now: number): Promise<Caller>;
  /** Forget what this process cached about a user's tokens (after sign-out-everywhere). */
  forgetUser(userId: string): void;
  readonly lifetimeSeconds: number;
}

/** HS256 JWTs carrying `sub` (user id) and `ver` (the user's token version at issue). */
export function createTokenService(opts: { secret: Uint8Array; lifetimeSeconds: number; db: Kysely<any> }): TokenService {
  const verified = new TtlCache<string, { userId: string; version: number; expMs: number }>(50_000, VERIFIED_TOKEN_TTL_MS);
  const versions = new TtlCache<string, number | null>(50_000, TOKEN_VERSION_TTL_MS);

  async function currentVersion(userId: string, now: number): Promise<number | null> {
    const cached = versions.get(userId, now);
    if (cached !== undefined) return cached;
    const row = await opts.db.selectFrom('users').select('token_version').where('id', '=', userId).executeTakeFirst();
    const version = row ? Number(row.token_version) : null;
    versions.set(userId, version, now);
    return version;
  }

  async function verify(token: string, now: number) {
    const hit = verified.get(token, now);
    if (hit && hit.expMs > now) return hit;
    try {
      const { payload } = await jwtVerify(token, opts.secret, { issuer: ISSUER, algorithms: ['HS256'], currentDate: new Date(now) });
      if (typeof payload.sub !== 'string' || typeof payload.ver !== 'number' || typeof payload.exp !== 'number') {
        throw new Unauthenticated('token is missing required claims');
      }
      const entry = { userId: payload.sub, version: payload.ver, expMs: payload.exp * 1000 };
      verified.set(token, entry, now, Math.min(VERIFIED_TOKEN_TTL_MS, entry.expMs - now));
      return entry;
    } catch (err) {
      if (err instanceof Unauthenticated) throw err;
      if (err instanceof joseErrors.JWTExpired) throw new Unauthenticated('token expired');
      throw new Unauthenticated('token is malformed or not signed by this platform');
    }
  }

  return {
    lifetimeSeconds: opts.lifetimeSeconds,
    async issue(user, now) {
      const issuedAt = Math.floor(now / 1000);
      const expiresAt = issuedAt + opts.lifetimeSeconds;
      const token = await new SignJWT({ ver: user.token_version })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(user.id)
        .setIssuer(ISSUER)
        .setIssuedAt(issuedAt)
        .setExpirationTime(expiresAt)
        .sign(opts.secret);
      return { token, expireMs: expiresAt * 1000 };
    },
    async authenticate(authorization, now) {
      if (!authorization) throw new Unauthenticated('missing Authorization: Bearer token');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
      if (!match) throw new Unauthenticated('Authorization header must be "Bearer <token>"');
      const claims = await verify(match[1], now);
      const version = await currentVersion(claims.userId, now);
      if (version === null) throw new Unauthenticated('the user of this token no longer exists');
      if (version !== claims.version) throw new Unauthenticated('token was revoked');
      return { userId: claims.userId };
    },
    forgetUser(userId) {
      // Verified tokens stay cached, but each use re-checks the version, which is re-read now.
      versions.delete(userId);
    },
  };
}
