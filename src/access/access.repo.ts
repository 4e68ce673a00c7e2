import type { Kysely } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { Grant } from '../platform/auth/rights.js';

/**
 * SQL of the access area. Every function takes the account id first. Guards that count rows
 * (administrators left, members of a role) take a key lock first (`SqlDialect.lockKey`), so two
 * concurrent requests cannot both see the row they are about to remove as "not the last one".
 */

/** Serialises every change that may remove an administrator of the account until the transaction ends. */
export async function lockAdministrators(trx: Kysely<any>, dialect: SqlDialect, accountId: string): Promise<void> {
  await dialect.lockKey(trx, `administrators/${accountId}`);
}

/** Serialises assigning and deleting one account role until the transaction ends. */
export async function lockAccountRole(trx: Kysely<any>, dialect: SqlDialect, accountId: string, roleId: string): Promise<void> {
  await dialect.lockKey(trx, `account_roles/${accountId}/${roleId}`);
}

/** How many administrators the account has (read after `lockAdministrators`). */
export async function countAdministrators(trx: Kysely<any>, accountId: string): Promise<number> {
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'administrator')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The grants of an account role, or undefined when the account has no such role. */
export async function accountRoleGrants(trx: Kysely<any>, dialect: SqlDialect, accountId: string, roleId: string): Promise<Grant[] | undefined> {
  const row = await trx.selectFrom('account_roles').select('grants').where('account_id', '=', accountId).where('id', '=', roleId).executeTakeFirst();
  return row ? (dialect.readJson<Grant[]>(row.grants) ?? []) : undefined;
}

/** How many members hold the account role. */
export async function countRoleMembers(trx: Kysely<any>, accountId: string, roleId: string): Promise<number> {
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('account_role_id', '=', roleId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Members of a deleted account role fall back to `roles/restricted` (keeping their own grants). */
export async function dropRoleFromMembers(trx: Kysely<any>, accountId: string, roleId: string, now: number): Promise<void> {
  await trx
    .updateTable('memberships')
    .set((eb) => ({ role: 'restricted', account_role_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('account_id', '=', accountId)
    .where('account_role_id', '=', roleId)
    .execute();
}

/** Email and display name of users, by id (one query per page of members). */
export async function usersById(db: Kysely<any>, userIds: readonly string[]): Promise<Map<string, { email: string; display_name: string | null }>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(['id', 'email', 'display_name']).where('id', 'in', [...new Set(userIds)]).execute();
  return new Map(rows.map((r) => [r.id as string, { email: r.email as string, display_name: (r.display_name as string | null) ?? null }]));
}

/** The membership of a user in the account, if any. */
export async function membershipOf(trx: Kysely<any>, accountId: string, userId: string) {
  return trx.selectFrom('memberships').selectAll().where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
}

/** The user holding an email address (stored lowercase), if any. */
export async function userByEmail(trx: Kysely<any>, email: string) {
  return trx.selectFrom('users').select(['id', 'email', 'display_name']).where('email', '=', email).executeTakeFirst();
}

/** Serialises invitations of one address to the account until the transaction ends. */
export async function lockInvitationAddress(trx: Kysely<any>, dialect: SqlDialect, accountId: string, email: string): Promise<void> {
  await dialect.lockKey(trx, `invitations/${accountId}/${email}`);
}

/** The membership of the user holding `email` in the account, if any. */
export async function membershipOfEmail(trx: Kysely<any>, accountId: string, email: string) {
  return trx
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('memberships.user_id')
    .where('memberships.account_id', '=', accountId)
    .where('users.email', '=', email)
    .executeTakeFirst();
}

/** A pending, unexpired invitation of the address to the account, if any. */
export async function pendingInvitationOf(trx: Kysely<any>, accountId: string, email: string, now: number) {
  return trx
    .selectFrom('invitations')
    .select('id')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .where('state', '=', 'PENDING')
    .where('expire_time', '>', now)
    .executeTakeFirst();
}

/** The invitation a token's hash names, locked for the rest of the transaction. */
export async function invitationByTokenHash(trx: Kysely<any>, dialect: SqlDialect, hash: string) {
  return dialect.forUpdate(trx.selectFrom('invitations').selectAll().where('token_hash', '=', hash)).executeTakeFirst();
}
