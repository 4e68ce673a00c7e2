import type { Db, Trx } from '../platform/db/schema.js';

/**
 * SQL of the operations area beyond the platform's queue (src/platform/jobs/operations.ts writes and
 * claims the rows; this reads what other areas need to find one).
 */

/** The account and website an Operation belongs to, if it exists (the scope `Operations.get` checks). */
export async function operationScope(db: Db | Trx, operationId: string): Promise<{ account_id: string; website_id: string | null } | undefined> {
  return db.selectFrom('operations').select(['account_id', 'website_id']).where('id', '=', operationId).executeTakeFirst();
}

/** Reads one row of the queue's table: `/readyz` answers ready only when the database answers and is migrated. */
export async function probeOperations(db: Db | Trx): Promise<void> {
  await db.selectFrom('operations').select('id').limit(1).execute();
}
