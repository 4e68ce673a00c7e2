import type { Selectable } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { RequestContext } from '../platform/auth/context.js';
import type { TokenService } from '../platform/auth/tokens.js';
import { hashPassword, passwordProblem, verifyPassword } from '../platform/auth/passwords.js';
import { randomToken, settleNoSoonerThan, tokenHash } from '../platform/crypto.js';
import type { Database, SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';
import { AlreadyExists, FailedPrecondition, InvalidArgument, ResourceExhausted, Unauthenticated } from '../platform/errors.js';
import type { Limits } from '../platform/limits/limits.js';
import type { Mailer } from '../platform/mail/mailer.js';
import type { ResourceService, TransactionScope } from '../platform/resource/engine.js';
import { newId } from '../platform/resource/ids.js';
import * as repo from './users.repo.js';
import type { TokenPurpose } from './users.repo.js';

/** The user resource as the sign-up answer shows it. Passwords and sessions never leave this module. */
export function toUserResource(row: Pick<Selectable<DB['users']>, 'id' | 'email' | 'display_name' | 'create_time' | 'update_time'>) {
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

/**
 * Password guesses allowed per user in a window: failed sign-ins and wrong current passwords
 * (`:change_password`, `:change_email`, `:delete_account`) spend one budget (issue 23, defect 7). An
 * address no user signs in with has a budget of its own, so the answer tells nothing. Failed
 * sign-ins per client address have a larger one.
 */
export const FAILURES_PER_USER = 10;
const FAILURES_PER_ADDRESS = 100;
const FAILURE_WINDOW_MS = 15 * 60_000;

/** Password reset requests: per address asked about, and per client address, in a window. */
export const RESETS_PER_EMAIL = 3;
export const RESETS_PER_ADDRESS = 20;
export const RESET_WINDOW_MS = 15 * 60_000;
/**
 * `users:request_password_reset` answers no earlier than this after the request arrived, whether the
 * address exists or not: the work of a known address (a token row, a sealed mail) then hides inside
 * the same answer time as an unknown one. Far above that work's few milliseconds.
 */
export const RESET_ANSWER_MS = 250;
export const PASSWORD_RESET_LIFETIME_MS = 3600_000;
export const EMAIL_CHANGE_LIFETIME_MS = 24 * 3600_000;
/** Admin UI pages the mailed links open (ADMIN_BASE_URL + path + `#token=`). */
export const RESET_PASSWORD_PATH = '/reset-password';
export const CONFIRM_EMAIL_PATH = '/confirm-email';

export type { TokenPurpose };

/** One error for every token that does not work (unknown, tampered, expired, used): nothing to tell them apart. */
const badToken = () => InvalidArgument.field('token', 'is unknown, expired or already used');

export interface AccountAction {
  account: string;
  action: 'DELETE_ACCOUNT' | 'TRANSFER';
  new_administrator?: string;
}

/** Normalised email: surrounding spaces dropped, lowercase. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What deleting a user reads and writes of the access and accounts areas. Those areas import users,
 * so users cannot import them: app.ts passes their functions (from their index.ts).
 */
export interface UserDeletionPorts {
  /** The user's memberships (account and role), in account order. */
  membershipsOfUser(trx: Trx, userId: string): Promise<Array<{ account_id: string; role: string }>>;
  /** Every membership of the accounts, locked until the transaction ends, in account then user order. */
  lockMembershipsOfAccounts(trx: Trx, dialect: SqlDialect, accountIds: readonly string[]): Promise<Array<{ account_id: string; user_id: string; role: string }>>;
  /** Makes a member administrator of the whole account (no account role, no website limit). */
  makeAdministrator(trx: Trx, dialect: SqlDialect, accountId: string, userId: string, now: number): Promise<void>;
  /** Id and display name of accounts, in id order. */
  accountNames(trx: Trx, accountIds: readonly string[]): Promise<Array<{ id: string; display_name: string }>>;
}

/** Sign-in, sessions, the password lifecycle, email change and account deletion. */
export function createUserService(deps: {
  database: Database;
  tokens: TokenService;
  mail: Mailer;
  /** The platform's limits: shared by every process on PostgreSQL, so N processes never give N budgets. */
  limits: Limits;
  logger: FastifyBaseLogger;
  /** Read when a request runs (filled once every resource is declared). */
  services: Record<string, ResourceService>;
  /** The access and accounts areas' part of deleting a user. */
  deletion: UserDeletionPorts;
  /** `users:exchange_handoff`: marks the sign-up handoff of a token hash exchanged once (signup area, through app.ts), its user, or undefined. */
  exchangeSignupHandoff: (db: Db, tokenHash: string, now: number) => Promise<{ user_id: string } | undefined>;
  /** A membership changed (TRANSFER): caches of this process forget it. */
  onMembershipChanged?: (accountId: string, userId: string) => void;
}) {
  const { db, dialect } = deps.database;
  const guessesByUser = deps.limits.limiter('password_guesses', { limit: FAILURES_PER_USER, windowMs: FAILURE_WINDOW_MS });
  const failuresByAddress = deps.limits.limiter('signin_failures_address', { limit: FAILURES_PER_ADDRESS, windowMs: FAILURE_WINDOW_MS });
  const resetsByEmail = deps.limits.limiter('password_resets_email', { limit: RESETS_PER_EMAIL, windowMs: RESET_WINDOW_MS });
  const resetsByAddress = deps.limits.limiter('password_resets_address', { limit: RESETS_PER_ADDRESS, windowMs: RESET_WINDOW_MS });

  /**
   * Spends one password guess of `key` before the password is verified, so guesses sent in parallel
   * (to one process or several) cannot outrun the budget; a right password gives it back whole.
   */
  async function spendGuess(key: string, now: number, message: string): Promise<void> {
    const guess = await guessesByUser.take(key, now);
    if (guess.limited) throw new ResourceExhausted(message, guess.retryAfterSeconds);
  }

  /** A new session of `userId` and its first token; expired sessions of the user go at the same time. */
  async function startSession(userId: string, now: number): Promise<IssuedToken> {
    const sessionId = newId(now);
    const { token, expireMs } = await deps.tokens.issue({ userId, sessionId }, now);
    await db.transaction().execute(async (trx) => {
      await repo.deleteExpiredSessions(trx, userId, now);
      await repo.insertSession(trx, { id: sessionId, user_id: userId, expire_time: expireMs, create_time: now });
    });
    return { token, expire_time: iso(expireMs) };
  }

  /**
   * Checks the caller's current password. Wrong ones are limited per user like failed sign-ins, so a
   * stolen token cannot be used to guess the password that would take the account over.
   */
  async function checkCurrentPassword(userId: string, password: string, now: number) {
    const key = `user:${userId}`;
    await spendGuess(key, now, 'too many wrong passwords; try again later');
    const user = await repo.credentialsById(db, userId);
    if (!user || !(await verifyPassword(user.password_hash, password))) {
      throw InvalidArgument.field('current_password', 'is not the current password');
    }
    await guessesByUser.reset(key);
    return user;
  }

  function checkNewPassword(password: string): void {
    const problem = passwordProblem(password);
    if (problem) throw InvalidArgument.field('new_password', problem);
  }

  /** Claims a one-time token (single use even under concurrent calls: the UPDATE decides), or throws. */
  async function claimToken(trx: Trx, token: string, purpose: TokenPurpose, now: number) {
    if (!token) throw badToken();
    const claimed = await repo.claimToken(trx, tokenHash(token), purpose, now);
    if (!claimed) throw badToken();
    return claimed;
  }

  /** A new one-time token for `userId`; earlier unused ones of the same purpose stop working. */
  async function mintToken(trx: Trx, userId: string, purpose: TokenPurpose, lifetimeMs: number, now: number, newEmail?: string) {
    await repo.deleteTokens(trx, userId, purpose);
    const token = randomToken();
    await repo.insertToken(trx, { id: newId(now), user_id: userId, purpose, token_hash: tokenHash(token), new_email: newEmail ?? null, expire_time: now + lifetimeMs, use_time: null, create_time: now });
    return { token, expireMs: now + lifetimeMs };
  }

  /** Writes the new password hash; ends the user's sessions but `keepSession`, and outstanding reset tokens. */
  async function setPassword(trx: Trx, user: { id: string; email: string }, passwordHash: string, keepSession: string | undefined, now: number) {
    await repo.setPasswordHash(trx, user.id, passwordHash, now);
    await repo.deleteSessions(trx, user.id, keepSession);
    await repo.deleteTokens(trx, user.id, 'PASSWORD_RESET');
    await deps.mail.enqueue(trx, { to: user.email, template: 'password_changed', data: { change_time: iso(now) } });
  }

  return {
    /** Inserts a user and their profile (inside the caller's transaction); the email must be free. */
    async insertUser(trx: Trx, input: { email: string; password: string; display_name?: string }, now: number) {
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
      await repo.insertUserWithProfile(trx, row, now);
      return row;
    },

    async emailTaken(email: string): Promise<boolean> {
      const row = await repo.userIdByEmail(db, normaliseEmail(email));
      return row !== undefined;
    },

    /** A new sign-in session of a user (after sign-up through an invitation, for instance). */
    startSession,

    /** `users:authenticate`: email + password → bearer token of a new session, with failed attempts limited per user and address. */
    async authenticate(email: string, password: string, address: string, now: number): Promise<IssuedToken> {
      const message = 'too many failed sign-in attempts; try again later';
      const byAddress = await failuresByAddress.check(address, now);
      if (byAddress.limited) throw new ResourceExhausted(message, byAddress.retryAfterSeconds);
      const typed = normaliseEmail(email);
      const user = await repo.credentialsByEmail(db, typed);
      // The user's budget, the one wrong current passwords spend too; an unknown address has its own.
      const key = user ? `user:${user.id}` : `email:${typed}`;
      await spendGuess(key, now, message);
      const ok = await verifyPassword(user?.password_hash, password);
      if (!user || !ok) {
        await failuresByAddress.charge(address, 1, now);
        throw new Unauthenticated('email or password is wrong');
      }
      await guessesByUser.reset(key);
      return startSession(user.id, now);
    },

    /** `users:exchange_handoff`: trades the one-time sign-up token for a bearer token, once. */
    async exchangeHandoff(signupToken: string, now: number): Promise<IssuedToken> {
      if (!signupToken) throw InvalidArgument.field('signup_token', 'is required');
      const hash = tokenHash(signupToken);
      const result = await deps.exchangeSignupHandoff(db, hash, now);
      if (!result) throw new Unauthenticated('signup_token is unknown, expired or already used');
      return startSession(result.user_id, now);
    },

    /** `users:refresh_token`: a still-valid token buys a fresh one with a new lifetime, in the same session. */
    async refresh(ctx: RequestContext): Promise<IssuedToken> {
      const sessionId = ctx.caller.sessionId;
      if (!sessionId) throw new Unauthenticated('the session of this token has ended');
      const { token, expireMs } = await deps.tokens.issue({ userId: ctx.caller.userId, sessionId }, ctx.now);
      const moved = await repo.extendSession(db, sessionId, ctx.caller.userId, expireMs);
      if (!moved) throw new Unauthenticated('the session of this token has ended');
      return { token, expire_time: iso(expireMs) };
    },

    /** `users:sign_out_everywhere`: every session of the user ends, on every process at once. */
    async signOutEverywhere(userId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await repo.deleteSessions(trx, userId);
        // Tokens from before sessions (`ver` only) end too.
        await repo.bumpTokenVersion(trx, userId);
      });
    },

    /** `users/{user}:change_password`: needs the current password; ends every other session and sends a notice. */
    async changePassword(ctx: RequestContext, body: { current_password: string; new_password: string }): Promise<void> {
      checkNewPassword(body.new_password);
      const user = await checkCurrentPassword(ctx.caller.userId, body.current_password, ctx.now);
      const passwordHash = await hashPassword(body.new_password);
      await db.transaction().execute((trx) => setPassword(trx, user, passwordHash, ctx.caller.sessionId, ctx.now));
      deps.mail.wake();
    },

    /**
     * `users:request_password_reset`: the same answer, in the same time, whether the address exists or
     * not. Limited per address asked about and per client address (both counted either way).
     */
    async requestPasswordReset(email: string, address: string, now: number): Promise<void> {
      const key = normaliseEmail(email);
      for (const limiter of [await resetsByEmail.take(key, now), await resetsByAddress.take(address, now)]) {
        if (limiter.limited) throw new ResourceExhausted('too many password reset requests; try again later', limiter.retryAfterSeconds);
      }
      await settleNoSoonerThan(RESET_ANSWER_MS, async () => {
        const user = await repo.userAddressByEmail(db, key);
        if (user) {
          await db.transaction().execute(async (trx) => {
            const { token, expireMs } = await mintToken(trx, user.id, 'PASSWORD_RESET', PASSWORD_RESET_LIFETIME_MS, now);
            // The stored address, never the one typed into the request.
            await deps.mail.enqueue(trx, {
              to: user.email,
              template: 'password_reset',
              data: { reset_url: deps.mail.link(RESET_PASSWORD_PATH, token), expire_time: iso(expireMs) },
            });
          });
          deps.mail.wake();
        } else {
          // The same hashing and sealing work as for a known address, thrown away.
          tokenHash(randomToken());
        }
      }, now);
    },

    /** `users:reset_password`: a mailed token sets a new password, once; every session of the user ends. */
    async resetPassword(token: string, newPassword: string, now: number): Promise<void> {
      checkNewPassword(newPassword);
      const passwordHash = await hashPassword(newPassword);
      await db.transaction().execute(async (trx) => {
        const claimed = await claimToken(trx, token, 'PASSWORD_RESET', now);
        const user = await repo.userAddressById(trx, claimed.user_id);
        if (!user) throw badToken();
        await setPassword(trx, user, passwordHash, undefined, now);
      });
      deps.mail.wake();
    },

    /** `users/{user}:change_email`: mails a confirmation link to the new address and a notice to the current one. */
    async changeEmail(ctx: RequestContext, body: { new_email: string; current_password: string }): Promise<void> {
      const newEmail = normaliseEmail(body.new_email);
      const user = await checkCurrentPassword(ctx.caller.userId, body.current_password, ctx.now);
      if (newEmail === user.email) throw InvalidArgument.field('new_email', 'is already the address of this user');
      const taken = await repo.userIdByEmail(db, newEmail);
      if (taken) throw new AlreadyExists('new_email: another user signs in with this address', 'new_email');
      await db.transaction().execute(async (trx) => {
        const { token, expireMs } = await mintToken(trx, user.id, 'EMAIL_CHANGE', EMAIL_CHANGE_LIFETIME_MS, ctx.now, newEmail);
        await deps.mail.enqueue(trx, {
          to: newEmail,
          template: 'email_change_confirm',
          data: { confirm_url: deps.mail.link(CONFIRM_EMAIL_PATH, token), new_email: newEmail, expire_time: iso(expireMs) },
        });
        await deps.mail.enqueue(trx, { to: user.email, template: 'email_change_notice', data: { new_email: newEmail } });
      });
      deps.mail.wake();
    },

    /** `users:confirm_email`: the mailed token switches the sign-in address, once; refused when it got taken meanwhile. */
    async confirmEmail(token: string, now: number): Promise<void> {
      try {
        await db.transaction().execute(async (trx) => {
          const claimed = await claimToken(trx, token, 'EMAIL_CHANGE', now);
          const newEmail = claimed.new_email!;
          const taken = await repo.userIdByEmail(trx, newEmail);
          if (taken) throw new AlreadyExists('new_email: another user signs in with this address now', 'new_email');
          await repo.setEmail(trx, claimed.user_id, newEmail, now);
          // Reset links went to the old address: they stop working.
          await repo.deleteTokens(trx, claimed.user_id, 'PASSWORD_RESET');
        });
      } catch (err) {
        if (dialect.isUniqueViolation(err)) throw new AlreadyExists('new_email: another user signs in with this address now', 'new_email');
        throw err;
      }
    },

    /**
     * `users/{user}/profile:delete_account`. In one transaction: every account where the caller is the
     * only administrator of other members needs an action (else FAILED_PRECONDITION LAST_ADMINISTRATOR
     * naming them); accounts where the caller is the only member are deleted with the user; the
     * caller's memberships, sessions, tokens and profile go; content they wrote stays.
     */
    async deleteAccount(ctx: RequestContext, body: { current_password: string; account_actions?: AccountAction[] }): Promise<void> {
      const userId = ctx.caller.userId;
      await checkCurrentPassword(userId, body.current_password, ctx.now);
      const actions = body.account_actions ?? [];
      const afterCommit: TransactionScope['afterCommit'] = [];
      await db.transaction().execute(async (trx) => {
        const mine = await deps.deletion.membershipsOfUser(trx, userId);
        const administered = mine.filter((m) => m.role === 'administrator').map((m) => m.account_id);

        // Each action names an account the caller administers, at most once.
        const byAccount = new Map<string, { action: AccountAction; index: number }>();
        actions.forEach((action, index) => {
          const accountId = /^accounts\/([^/]+)$/.exec(action.account)?.[1];
          if (!accountId || !administered.includes(accountId)) {
            throw InvalidArgument.field(`account_actions[${index}].account`, 'is not an account you administer');
          }
          if (byAccount.has(accountId)) throw InvalidArgument.field(`account_actions[${index}].account`, 'is named twice');
          if (action.action === 'TRANSFER' && !action.new_administrator) {
            throw InvalidArgument.field(`account_actions[${index}].new_administrator`, 'is required with TRANSFER');
          }
          if (action.action === 'DELETE_ACCOUNT' && action.new_administrator) {
            throw InvalidArgument.field(`account_actions[${index}].new_administrator`, 'goes with TRANSFER only');
          }
          byAccount.set(accountId, { action, index });
        });

        // Every membership of the administered accounts, locked (in account order): a concurrent
        // demotion, removal or deletion of the other administrator waits, and this sees its outcome.
        const members = administered.length ? await deps.deletion.lockMembershipsOfAccounts(trx, dialect, administered) : [];
        const blocked: string[] = [];
        const deletions: string[] = [];
        const transfers: Array<{ accountId: string; userId: string }> = [];
        for (const accountId of administered) {
          const others = members.filter((m) => m.account_id === accountId && m.user_id !== userId);
          const chosen = byAccount.get(accountId);
          if (chosen?.action.action === 'DELETE_ACCOUNT') deletions.push(accountId);
          else if (chosen?.action.action === 'TRANSFER') {
            const target = /^users\/([^/]+)$/.exec(chosen.action.new_administrator!)?.[1];
            if (!target || !others.some((m) => m.user_id === target)) {
              throw InvalidArgument.field(`account_actions[${chosen.index}].new_administrator`, `is not another member of accounts/${accountId}`);
            }
            transfers.push({ accountId, userId: target });
          } else if (others.length === 0) deletions.push(accountId);
          else if (!others.some((m) => m.role === 'administrator')) blocked.push(accountId);
        }
        if (blocked.length) {
          const names = await deps.deletion.accountNames(trx, blocked);
          const listed = names.map((a) => `accounts/${a.id} (${a.display_name})`).join(', ');
          throw new FailedPrecondition(
            'LAST_ADMINISTRATOR',
            `you are the only administrator of ${listed}, which other members belong to: name each in account_actions (DELETE_ACCOUNT, or TRANSFER to a new_administrator)`,
          );
        }
        for (const t of transfers) {
          // An administrator holds the whole account: no account role, no website limit (access area).
          await deps.deletion.makeAdministrator(trx, dialect, t.accountId, t.userId, ctx.now);
          afterCommit.push(() => deps.onMembershipChanged?.(t.accountId, t.userId));
        }
        const tx: TransactionScope = { trx, afterCommit };
        for (const accountId of deletions) {
          const inAccount: RequestContext = { ...ctx, access: { accountId, role: 'administrator' } };
          await deps.services.accounts.remove(inAccount, tx, { account_id: accountId }, { force: true });
        }
        // Memberships, sessions, one-time tokens and the profile go with the row (foreign keys cascade).
        await repo.deleteUser(trx, userId);
        for (const m of mine) afterCommit.push(() => deps.onMembershipChanged?.(m.account_id, userId));
      });
      for (const fn of afterCommit) await fn();
      deps.logger.info({ user: userId }, 'user deleted their account');
    },
  };
}
export type UserService = ReturnType<typeof createUserService>;
