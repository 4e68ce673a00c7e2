import type { Db, Trx } from '../platform/db/schema.js';

/** SQL of the projects area beyond the resource engine's own statements over `projects`. */

/** Whether the account has any project (one index probe). */
export async function accountHasProjects(db: Db | Trx, accountId: string): Promise<boolean> {
  const project = await db.selectFrom('projects').select('id').where('account_id', '=', accountId).limit(1).executeTakeFirst();
  return project !== undefined;
}
