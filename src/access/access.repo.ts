import type { SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';
import type { Grant } from '../platform/auth/rights.js';
import { accountDisplayName } from '../accounts/index.js';
import { userIdByEmail, userNames } from '../users/index.js';

/**
 * SQL of the access area. Every function takes the account id first. Guards that count rows
 * (administrators left, members of a role) take a key lock first (`SqlDialect.lockKey`), so two
 * concurrent requests cannot both see the row they are about to remove as "not the last one".
 */

/** Serialises every change that may remove an administrator of the account until the transaction ends. */
export async function lockAdministrators(trx: Db | Trx, dialect: SqlDialect, accountId: string): Promise<void> {
  await dialect.lockKey(trx, `administrators/${accountId}`);
}

/** Serialises assigning and deleting one account role until the transaction ends. */
export async function lockAccountRole(trx: Db | Trx, dialect: SqlDialect, accountId: string, roleId: string): Promise<void> {
  await dialect.lockKey(trx, `account_roles/${accountId}/${roleId}`);
}

/** How many administrators the account has (read after `lockAdministrators`). */
export async function countAdministrators(trx: Db | Trx, accountId: string): Promise<number> {
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('role', '=', 'administrator')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The grants of an account role, or undefined when the account has no such role. */
export async function accountRoleGrants(trx: Db | Trx, dialect: SqlDialect, accountId: string, roleId: string): Promise<Grant[] | undefined> {
  const row = await trx.selectFrom('account_roles').select('grants').where('account_id', '=', accountId).where('id', '=', roleId).executeTakeFirst();
  return row ? (dialect.readJson<Grant[]>(row.grants) ?? []) : undefined;
}

/** How many members hold the account role. */
export async function countRoleMembers(trx: Db | Trx, accountId: string, roleId: string): Promise<number> {
  const row = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('account_id', '=', accountId)
    .where('account_role_id', '=', roleId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The website limits (`website_ids`) of every member holding the account role; an empty list is no limit. */
export async function websiteLimitsOfRoleMembers(trx: Db | Trx, dialect: SqlDialect, accountId: string, roleId: string): Promise<string[][]> {
  const rows = await trx.selectFrom('memberships').select('website_ids').where('account_id', '=', accountId).where('account_role_id', '=', roleId).execute();
  return rows.map((r) => dialect.readJson<string[]>(r.website_ids) ?? []);
}

/** Members of a deleted account role fall back to `roles/restricted` (keeping their own grants). */
export async function dropRoleFromMembers(trx: Db | Trx, accountId: string, roleId: string, now: number): Promise<void> {
  await trx
    .updateTable('memberships')
    .set((eb) => ({ role: 'restricted', account_role_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('account_id', '=', accountId)
    .where('account_role_id', '=', roleId)
    .execute();
}


/** The membership of a user in the account, if any. */
export async function membershipOf(trx: Db | Trx, accountId: string, userId: string) {
  return trx.selectFrom('memberships').selectAll().where('account_id', '=', accountId).where('user_id', '=', userId).executeTakeFirst();
}


/** Serialises invitations of one address to the account until the transaction ends. */
export async function lockInvitationAddress(trx: Db | Trx, dialect: SqlDialect, accountId: string, email: string): Promise<void> {
  await dialect.lockKey(trx, `invitations/${accountId}/${email}`);
}

/** The membership of the user holding `email` in the account, if any. */
export async function membershipOfEmail(trx: Db | Trx, accountId: string, email: string) {
  // The user through the users area, then their membership (the users table is not this area's to join).
  const user = await userIdByEmail(trx, email);
  if (!user) return undefined;
  return trx.selectFrom('memberships').select('user_id').where('account_id', '=', accountId).where('user_id', '=', user.id).executeTakeFirst();
}

/** A pending, unexpired invitation of the address to the account (other than `exceptId`), if any. */
export async function pendingInvitationOf(trx: Db | Trx, accountId: string, email: string, now: number, exceptId?: string) {
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
export async function invitationByTokenHash(trx: Db | Trx, dialect: SqlDialect, hash: string) {
  return dialect.forUpdate(trx.selectFrom('invitations').selectAll().where('token_hash', '=', hash)).executeTakeFirst();
}


/** Whether the user is a member of the account. */
export async function isMember(trx: Db | Trx, accountId: string, userId: string): Promise<boolean> {
  return (await trx.selectFrom('memberships').select('id').where('account_id', '=', accountId).where('id', '=', userId).executeTakeFirst()) !== undefined;
}

/** Whether the account has the account role. */
export async function accountRoleExists(trx: Db | Trx, accountId: string, roleId: string): Promise<boolean> {
  return (await trx.selectFrom('account_roles').select('id').where('account_id', '=', accountId).where('id', '=', roleId).executeTakeFirst()) !== undefined;
}

/** Inserts a membership (the user id is the member id). */
export async function insertMembership(
  trx: Db | Trx,
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
export async function markInvitationAccepted(trx: Db | Trx, accountId: string, invitation: { id: string; revision: number }, userId: string, now: number): Promise<void> {
  await trx
    .updateTable('invitations')
    .set({ state: 'ACCEPTED', accept_time: now, accepted_user_id: userId, revision: Number(invitation.revision) + 1, update_time: now })
    .where('account_id', '=', accountId)
    .where('id', '=', invitation.id)
    .execute();
}

/** Names an invitation mail shows: the account, the inviter (display name, else email), an account role's display name. */
export async function invitationMailNames(trx: Db | Trx, accountId: string, inviterId: string, accountRoleId: string | undefined) {
  const account = await accountDisplayName(trx, accountId);
  const inviter = await userNames(trx, inviterId);
  const role = accountRoleId
    ? await trx.selectFrom('account_roles').select('display_name').where('account_id', '=', accountId).where('id', '=', accountRoleId).executeTakeFirst()
    : undefined;
  return {
    account: String(account ?? ''),
    inviter: String(inviter?.display_name || inviter?.email || ''),
    accountRole: role ? String(role.display_name) : undefined,
  };
}

// --- read and written for the users and accounts areas (wired in app.ts, and the access area's own hook) ---

/** The creator of a new account becomes its administrator. */
export async function insertCreatorMembership(trx: Db | Trx, accountId: string, userId: string, now: number): Promise<void> {
  await trx
    .insertInto('memberships')
    .values({ account_id: accountId, id: userId, user_id: userId, role: 'administrator', create_time: now, update_time: now })
    .execute();
}

/** The user's memberships (account and role), in account order. */
export async function membershipsOfUser(trx: Db | Trx, userId: string): Promise<Array<{ account_id: string; role: string }>> {
  return trx.selectFrom('memberships').select(['account_id', 'role']).where('user_id', '=', userId).orderBy('account_id').execute();
}

/** Every membership of the accounts, locked until the transaction ends (in account, then user order). */
export async function lockMembershipsOfAccounts(
  trx: Db | Trx,
  dialect: SqlDialect,
  accountIds: readonly string[],
): Promise<Array<{ account_id: string; user_id: string; role: string }>> {
  return dialect
    .forUpdate(
      trx
        .selectFrom('memberships')
        .select(['account_id', 'user_id', 'role'])
        .where('account_id', 'in', [...accountIds])
        .orderBy('account_id')
        .orderBy('user_id'),
    )
    .execute();
}

/** An administrator holds the whole account: no account role, no website limit. */
export async function makeAdministrator(trx: Db | Trx, dialect: SqlDialect, accountId: string, userId: string, now: number): Promise<void> {
  await trx
    .updateTable('memberships')
    .set((eb) => ({ role: 'administrator', account_role_id: null, website_ids: dialect.json([]), revision: eb('revision', '+', 1), update_time: now }))
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .execute();
}

// --- read by other areas (webhooks) ---

/** The user ids of the account's administrators. */
export async function administratorUserIds(db: Db | Trx, accountId: string): Promise<string[]> {
  const rows = await db.selectFrom('memberships').select('user_id').where('account_id', '=', accountId).where('role', '=', 'administrator').execute();
  return rows.map((r) => r.user_id);
}
