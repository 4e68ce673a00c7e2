import type { Insertable } from 'kysely';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/** SQL of sign-up: the one-time handoff from the sign-up site to the tenant API. */

export async function insertSignupHandoff(db: Db | Trx, handoff: Insertable<DB['signup_handoffs']>): Promise<void> {
  await db.insertInto('signup_handoffs').values(handoff).execute();
}

/** Marks the unexchanged, unexpired handoff of a token hash exchanged (once, even under concurrent calls); its user, or undefined. */
export async function exchangeSignupHandoff(db: Db | Trx, tokenHash: string, now: number): Promise<{ user_id: string } | undefined> {
  return db
    .updateTable('signup_handoffs')
    .set({ exchange_time: now })
    .where('token_hash', '=', tokenHash)
    .where('exchange_time', 'is', null)
    .where('expire_time', '>', now)
    .returning('user_id')
    .executeTakeFirst();
}

/** The provisioning Operation id and expiry of the handoff of a token hash (exchanged or not), if any. */
export async function signupHandoffByTokenHash(db: Db | Trx, tokenHash: string): Promise<{ operation_id: string; expire_time: number } | undefined> {
  return db.selectFrom('signup_handoffs').select(['operation_id', 'expire_time']).where('token_hash', '=', tokenHash).executeTakeFirst();
}
