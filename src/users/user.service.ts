import type { Kysely } from 'kysely';
import type { TokenService } from '../platform/auth/tokens.js';
import { hashPassword, verifyPassword } from '../platform/auth/passwords.js';
import { tokenHash } from '../platform/crypto.js';
import { InvalidArgument, ResourceExhausted, Unauthenticated } from '../platform/errors.js';
import { createRateLimiter } from '../platform/http/rate-limit.js';
import { newId } from '../platform/resource/ids.js';

/** The user resource as the API shows it. Passwords and token versions never leave this module. */
export function toUserResource(row: Record<string, any>) {
  return {
    name: `users/${row.id}`,
    id: row.id,
    email: row.email,
    ...(row.display_name ? { display_name: row.display_name } : {}),
    create_time: new Date(Number(row.create_time)).toISOString(),
    update_time: new Date(Number(row.update_time)).toISOString(),
  };
}

export interface IssuedToken {
  token: string;
  expire_time: string;
}

/** Failed sign-ins allowed per account and per client address in a window. */
const FAILURES_PER_EMAIL = 10;
const FAILURES_PER_ADDRESS = 100;
const FAILURE_WINDOW_MS = 15 * 60_000;

/** Normalised email: surrounding spaces dropped, lowercase. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Sign-in, hand-off exchange, refresh and sign-out-everywhere. */
export function createUserService(deps: { db: Kysely<any>; tokens: TokenService }) {
  const failuresByEmail = createRateLimiter({ limit: FAILURES_PER_EMAIL, windowMs: FAILURE_WINDOW_MS });
  const failuresByAddress = createRateLimiter({ limit: FAILURES_PER_ADDRESS, windowMs: FAILURE_WINDOW_MS });

  async function issue(user: { id: string; token_version: number }, now: number): Promise<IssuedToken> {
    // expire_time is the token's own `exp` claim: a client refreshing just before it never meets a 401.
    const { token, expireMs } = await deps.tokens.issue(user, now);
    return { token, expire_time: new Date(expireMs).toISOString() };
  }

  return {
    /** Inserts a user (inside the caller's transaction); the email must be free. */
    async insertUser(trx: Kysely<any>, input: { email: string; password: string; display_name?: string }, now: number) {
      const row = {
        id: newId(now),
        email: normaliseEmail(input.email),
        password_hash: await hashPassword(input.password),
        display_name: input.display_name ?? null,
        token_version: 0,
        revision: 1,
        create_time: now,
        update_time: now,
      };
      await trx.insertInto('users').values(row).execute();
      return row;
    },

    async emailTaken(email: string): Promise<boolean> {
      const row = await deps.db.selectFrom('users').select('id').where('email', '=', normaliseEmail(email)).executeTakeFirst();
      return row !== undefined;
    },

    /** `users:authenticate`: email + password → bearer token, with failed attempts limited per email and address. */
    async authenticate(email: string, password: string, address: string, now: number): Promise<IssuedToken> {
      const key = normaliseEmail(email);
      for (const limiter of [failuresByEmail.check(key, now), failuresByAddress.check(address, now)]) {
        if (limiter.limited) throw new ResourceExhausted('too many failed sign-in attempts; try again later', limiter.retryAfterSeconds);
      }
      const user = await deps.db.selectFrom('users').select(['id', 'password_hash', 'token_version']).where('email', '=', key).executeTakeFirst();
      const ok = await verifyPassword(user?.password_hash, password);
      if (!user || !ok) {
        failuresByEmail.hit(key, now);
        failuresByAddress.hit(address, now);
        throw new Unauthenticated('email or password is wrong');
      }
      failuresByEmail.reset(key);
      return issue({ id: user.id, token_version: Number(user.token_version) }, now);
    },

    /** `users:exchange_handoff`: trades the one-time sign-up token for a bearer token, once. */
    async exchangeHandoff(signupToken: string, now: number): Promise<IssuedToken> {
      if (!signupToken) throw InvalidArgument.field('signup_token', 'is required');
      const hash = tokenHash(signupToken);
      const result = await deps.db
        .updateTable('signup_handoffs')
        .set({ exchange_time: now })
        .where('token_hash', '=', hash)
        .where('exchange_time', 'is', null)
        .where('expire_time', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      if (!result) throw new Unauthenticated('signup_token is unknown, expired or already used');
      const user = await deps.db.selectFrom('users').select(['id', 'token_version']).where('id', '=', result.user_id).executeTakeFirstOrThrow();
      return issue({ id: user.id, token_version: Number(user.token_version) }, now);
    },

    /** `users:refresh_token`: a still-valid token buys a fresh one with a new lifetime. */
    async refresh(userId: string, now: number): Promise<IssuedToken> {
      const user = await deps.db.selectFrom('users').select(['id', 'token_version']).where('id', '=', userId).executeTakeFirst();
      if (!user) throw new Unauthenticated('the user of this token no longer exists');
      return issue({ id: user.id, token_version: Number(user.token_version) }, now);
    },

    /** `users:sign_out_everywhere`: every token issued so far stops working. */
    async signOutEverywhere(userId: string, now: number): Promise<void> {
      await deps.db
        .updateTable('users')
        .set((eb) => ({ token_version: eb('token_version', '+', 1), update_time: now }))
        .where('id', '=', userId)
        .execute();
      deps.tokens.forgetUser(userId);
    },
  };
}
export type UserService = ReturnType<typeof createUserService>;
