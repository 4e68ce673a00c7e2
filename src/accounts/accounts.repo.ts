import type { Db, Trx } from '../platform/db/schema.js';

/** SQL of the accounts area beyond the resource engine's own statements over `accounts`. */

/** The display name of an account, if it exists (how an invitation mail names it). */
export async function accountDisplayName(db: Db | Trx, accountId: string): Promise<string | undefined> {
  const account = await db.selectFrom('accounts').select('display_name').where('id', '=', accountId).executeTakeFirst();
  return account?.display_name;
}

/** Id and display name of accounts, in id order. */
export async function accountNames(db: Db | Trx, accountIds: readonly string[]): Promise<Array<{ id: string; display_name: string }>> {
  return db.selectFrom('accounts').select(['id', 'display_name']).where('id', 'in', [...accountIds]).orderBy('id').execute();
}
