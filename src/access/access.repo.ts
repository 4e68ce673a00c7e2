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

/** The website limits (`website_ids`) of every member holding the account role; an empty list is no limit. */
export async function websiteLimitsOfRoleMembers(trx: Kysely<any>, dialect: SqlDialect, accountId: string, roleId: string): Promise<string[][]> {
  const rows = await trx.selectFrom('memberships').select('website_ids').where('account_id', '=', accountId).where('account_role_id', '=', roleId).execute();
  return rows.map((r) => dialect.readJson<string[]>(r.website_ids) ?? []);
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

/** A pending, unexpired invitation of the address to the account (other than `exceptId`), if any. */
export async function pendingInvitationOf(trx: Kysely<any>, accountId: string, email: string, now: number, exceptId?: string) {
  let query = trx
    .selectFrom('invitations')
    .select('id')
    .where('account_id', '=', accountId)
    .where('email', '=', email)
    .where('state', '=', 'PENDING')
    .where('expire_time', '>', now);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

/** The invitation a token's hash names, locked for the rest of the transaction. */
export async function invitationByTokenHash(trx: Kysely<any>, dialect: SqlDialect, hash: string) {
  return dialect.forUpdate(trx.selectFrom('invitations').selectAll().where('token_hash', '=', hash)).executeTakeFirst();
}

/** The email of a user (stored lowercase). */
export async function emailOfUser(trx: Kysely<any>, userId: string): Promise<string | undefined> {
  const row = await trx.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row ? String(row.email) : undefined;
}

/** Whether the user is a member of the account. */
export async function isMember(trx: Kysely<any>, accountId: string, userId: string): Promise<boolean> {
  return (await trx.selectFrom('memberships').select('id').where('account_id', '=', accountId).where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Whether the account has the account role. */
export async function accountRoleExists(trx: Kysely<any>, accountId: string, roleId: string): Promise<boolean> {
  return (await trx.selectFrom('account_roles').select('id').where('account_id', '=', accountId).where('id', '=', roleId).executeTakeFirst()) !== undefined;
}

/** Those of `ids` that are websites of the account. */
export async function websitesOf(trx: Kysely<any>, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (await trx.selectFrom('websites').select('id').where('account_id', '=', accountId).where('id', 'in', [...ids]).execute()).map((w) => w.id as string);
}

/** Inserts a membership (the user id is the member id). */
export async function insertMembership(
  trx: Kysely<any>,
  dialect: SqlDialect,
  accountId: string,
  m: { userId: string; role: string; accountRoleId: string | null; grants: unknown; websiteIds: readonly string[] },
  now: number,
): Promise<void> {
  await trx
    .insertInto('memberships')
    .values({
      account_id: accountId,
      id: m.userId,
      user_id: m.userId,
      role: m.role,
      account_role_id: m.accountRoleId,
      grants: dialect.json(m.grants),
      website_ids: dialect.json(m.websiteIds),
      revision: 1,
      create_time: now,
      update_time: now,
    })
    .execute();
}

/** Marks an invitation accepted by `userId` (revision + 1). */
export async function markInvitationAccepted(trx: Kysely<any>, accountId: string, invitation: { id: string; revision: number }, userId: string, now: number): Promise<void> {
  await trx
    .updateTable('invitations')
    .set({ state: 'ACCEPTED', accept_time: now, accepted_user_id: userId, revision: Number(invitation.revision) + 1, update_time: now })
    .where('account_id', '=', accountId)
    .where('id', '=', invitation.id)
    .execute();
}

/** Names an invitation mail shows: the account, the inviter (display name, else email), an account role's display name. */
export async function invitationMailNames(trx: Kysely<any>, accountId: string, inviterId: string, accountRoleId: string | undefined) {
  const account = await trx.selectFrom('accounts').select('display_name').where('id', '=', accountId).executeTakeFirst();
  const inviter = await trx.selectFrom('users').select(['email', 'display_name']).where('id', '=', inviterId).executeTakeFirst();
  const role = accountRoleId
    ? await trx.selectFrom('account_roles').select('display_name').where('account_id', '=', accountId).where('id', '=', accountRoleId).executeTakeFirst()
    : undefined;
  return {
    account: String(account?.display_name ?? ''),
    inviter: String(inviter?.display_name || inviter?.email || ''),
    accountRole: role ? String(role.display_name) : undefined,
  };
}
