import type { Insertable } from 'kysely';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/**
 * SQL of the users area: users, their profiles, sign-in sessions and one-time tokens. Every function
 * takes the executor first, so it runs inside the caller's transaction when given one.
 */

export type TokenPurpose = 'PASSWORD_RESET' | 'EMAIL_CHANGE';

// --- users -----------------------------------------------------------------------------------------

/** Inserts a user row and its profile row (same id, same display name). */
export async function insertUserWithProfile(db: Db | Trx, row: Insertable<DB['users']> & { display_name: string | null }, now: number): Promise<void> {
  await db.insertInto('users').values(row).execute();
  await db
    .insertInto('user_profiles')
    .values({ id: row.id, display_name: row.display_name, revision: 1, create_time: now, update_time: now })
    .execute();
}

/** The id of the user signing in with `email` (already normalised), if any. */
export async function userIdByEmail(db: Db | Trx, email: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
}

/** Id and stored address of the user signing in with `email` (already normalised), if any. */
export async function userAddressByEmail(db: Db | Trx, email: string): Promise<{ id: string; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'email']).where('email', '=', email).executeTakeFirst();
}

/** Id and stored address of a user, if any. */
export async function userAddressById(db: Db | Trx, userId: string): Promise<{ id: string; email: string } | undefined> {
  return db.selectFrom('users').select(['id', 'email']).where('id', '=', userId).executeTakeFirst();
}

/** What signing in with `email` (already normalised) checks: the user's id and password hash. */
export async function credentialsByEmail(db: Db | Trx, email: string): Promise<{ id: string; password_hash: string } | undefined> {
  return db.selectFrom('users').select(['id', 'password_hash']).where('email', '=', email).executeTakeFirst();
}

/** What checking a user's current password needs: id, address and password hash. */
export async function credentialsById(db: Db | Trx, userId: string): Promise<{ id: string; email: string; password_hash: string } | undefined> {
  return db.selectFrom('users').select(['id', 'email', 'password_hash']).where('id', '=', userId).executeTakeFirst();
}

/** Writes a new password hash; tokens from before sessions (`ver` only) stop working. */
export async function setPasswordHash(db: Db | Trx, userId: string, passwordHash: string, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ password_hash: passwordHash, token_version: eb('token_version', '+', 1), revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', userId)
    .execute();
}

/** Tokens from before sessions (`ver` only) stop working. */
export async function bumpTokenVersion(db: Db | Trx, userId: string): Promise<void> {
  await db.updateTable('users').set((eb) => ({ token_version: eb('token_version', '+', 1) })).where('id', '=', userId).execute();
}

/** Switches the user's sign-in address. */
export async function setEmail(db: Db | Trx, userId: string, email: string, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ email, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', userId)
    .execute();
}

/** The user's display name follows their profile's. */
export async function setDisplayName(db: Db | Trx, userId: string, displayName: string | null, now: number): Promise<void> {
  await db
    .updateTable('users')
    .set((eb) => ({ display_name: displayName, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', userId)
    .execute();
}

/** Deletes the user; memberships, sessions, one-time tokens and the profile go with the row (foreign keys cascade). */
export async function deleteUser(db: Db | Trx, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

// --- sessions --------------------------------------------------------------------------------------

/** Expired sessions of the user go. */
export async function deleteExpiredSessions(db: Db | Trx, userId: string, now: number): Promise<void> {
  await db.deleteFrom('user_sessions').where('user_id', '=', userId).where('expire_time', '<', now).execute();
}

export async function insertSession(db: Db | Trx, session: Insertable<DB['user_sessions']>): Promise<void> {
  await db.insertInto('user_sessions').values(session).execute();
}

/** Moves the end of a session of the user; false when the session has ended. */
export async function extendSession(db: Db | Trx, sessionId: string, userId: string, expireMs: number): Promise<boolean> {
  const moved = await db.updateTable('user_sessions').set({ expire_time: expireMs }).where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
  return Number(moved.numUpdatedRows) !== 0;
}

/** Every session of the user ends, but `keepSession` when given. */
export async function deleteSessions(db: Db | Trx, userId: string, keepSession?: string): Promise<void> {
  let ending = db.deleteFrom('user_sessions').where('user_id', '=', userId);
  if (keepSession) ending = ending.where('id', '!=', keepSession);
  await ending.execute();
}

// --- one-time tokens -------------------------------------------------------------------------------

/** Marks an unused, unexpired token used (single use even under concurrent calls: the UPDATE decides); undefined when none. */
export async function claimToken(db: Db | Trx, hash: string, purpose: TokenPurpose, now: number): Promise<{ id: string; user_id: string; new_email: string | null } | undefined> {
  return db
    .updateTable('user_tokens')
    .set({ use_time: now })
    .where('token_hash', '=', hash)
    .where('purpose', '=', purpose)
    .where('use_time', 'is', null)
    .where('expire_time', '>', now)
    .returning(['id', 'user_id', 'new_email'])
    .executeTakeFirst();
}

/** Every token of the user for `purpose` stops working. */
export async function deleteTokens(db: Db | Trx, userId: string, purpose: TokenPurpose): Promise<void> {
  await db.deleteFrom('user_tokens').where('user_id', '=', userId).where('purpose', '=', purpose).execute();
}

export async function insertToken(db: Db | Trx, token: Insertable<DB['user_tokens']> & { purpose: TokenPurpose }): Promise<void> {
  await db.insertInto('user_tokens').values(token).execute();
}

// --- read by other areas (through src/users/index.ts) ---------------------------------------------

/** Email and display name of users, by id (one query per page of members). */
export async function usersById(db: Db | Trx, userIds: readonly string[]): Promise<Map<string, { email: string; display_name: string | null }>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', 'in', [...new Set(userIds)]).execute();
  return new Map(rows.map((r) => [r.id, { email: r.email, display_name: r.display_name ?? null }]));
}

/** The user holding an email address (stored lowercase), if any. */
export async function userByEmail(db: Db | Trx, email: string): Promise<{ id: string; email: string; display_name: string | null } | undefined> {
  return db.selectFrom('users').select(['id', 'email', 'display_name']).where('email', '=', email).executeTakeFirst();
}

/** The email of a user (stored lowercase). */
export async function emailOfUser(db: Db | Trx, userId: string): Promise<string | undefined> {
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row ? String(row.email) : undefined;
}

/** Email and display name of one user, if any (how an invitation mail names its inviter). */
export async function userNames(db: Db | Trx, userId: string): Promise<{ email: string; display_name: string | null } | undefined> {
  return db.selectFrom('users').select(['email', 'display_name']).where('id', '=', userId).executeTakeFirst();
}
