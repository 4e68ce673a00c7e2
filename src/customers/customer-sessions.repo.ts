import type { Db, Trx } from '../platform/db/schema.js';

/**
 * SQL of the customers' site sessions (`customer_sessions`, keyed by the hash of the bearer
 * secret). No rules here: lifetimes, renewal and who may sign in are the session service's.
 */

/** Ends the customer's sessions that expired by `now` (housekeeping when a new one starts). */
export async function deleteExpiredSessions(db: Db | Trx, customerId: string, now: number): Promise<void> {
  await db.deleteFrom('customer_sessions').where('customer_id', '=', customerId).where('expire_time', '<=', now).execute();
}

/** Stores a new session. */
export async function insertSession(
  db: Db | Trx,
  session: { token_hash: string; website_id: string; customer_id: string; expire_time: number; create_time: number },
): Promise<void> {
  await db.insertInto('customer_sessions').values(session).execute();
}

/** A session with the customer's own fields the site shows (undefined: unknown hash). */
export function sessionWithCustomer(db: Db | Trx, tokenHash: string) {
  return db
    .selectFrom('customer_sessions as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .select(['s.customer_id', 's.website_id', 's.expire_time', 'c.is_active', 'c.email', 'c.display_name'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A session with whether its customer is active, as a renewal checks it (undefined: unknown hash). */
export function sessionForRenewal(db: Db | Trx, tokenHash: string) {
  return db
    .selectFrom('customer_sessions as s')
    .innerJoin('customers as c', 'c.id', 's.customer_id')
    .select(['s.customer_id', 's.website_id', 's.expire_time', 'c.is_active'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Moves a session's expiry. */
export async function extendSession(db: Db | Trx, tokenHash: string, expireTime: number): Promise<void> {
  await db.updateTable('customer_sessions').set({ expire_time: expireTime }).where('token_hash', '=', tokenHash).execute();
}

/** Ends one session; nothing when it is already gone. */
export async function deleteSession(db: Db | Trx, tokenHash: string): Promise<void> {
  await db.deleteFrom('customer_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Ends every session of the customer; answers how many there were. */
export async function deleteSessionsOf(db: Db | Trx, customerId: string): Promise<number> {
  const result = await db.deleteFrom('customer_sessions').where('customer_id', '=', customerId).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
