import type { Db, Trx } from '../platform/db/schema.js';

/**
 * SQL of the customers' single-use tokens (`customer_tokens`: only the hash of the mailed secret is
 * stored). The one purpose so far is the site's password reset.
 */

const PASSWORD_RESET = 'PASSWORD_RESET';

/** Stores a new reset token of the customer; its earlier ones (used or not) go. */
export async function replaceResetToken(
  db: Db | Trx,
  token: { token_hash: string; website_id: string; customer_id: string; expire_time: number; create_time: number },
): Promise<void> {
  await db.deleteFrom('customer_tokens').where('customer_id', '=', token.customer_id).where('purpose', '=', PASSWORD_RESET).execute();
  await db
    .insertInto('customer_tokens')
    .values({ token_hash: token.token_hash, website_id: token.website_id, customer_id: token.customer_id, purpose: PASSWORD_RESET, expire_time: token.expire_time, use_time: null, create_time: token.create_time })
    .execute();
}

/** The customer a reset token of this website is for, while it is unused and unexpired (read only). */
export async function liveResetTokenCustomer(db: Db | Trx, websiteId: string, tokenHash: string, now: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('customer_tokens')
    .select('customer_id')
    .where('token_hash', '=', tokenHash)
    .where('website_id', '=', websiteId)
    .where('purpose', '=', PASSWORD_RESET)
    .where('use_time', 'is', null)
    .where('expire_time', '>', now)
    .executeTakeFirst();
  return row?.customer_id;
}

/**
 * Marks the customer's reset token used at `now` if it is still unused and unexpired; answers
 * whether this call claimed it (the UPDATE decides between concurrent claims).
 */
export async function claimResetToken(db: Db | Trx, tokenHash: string, customerId: string, now: number): Promise<boolean> {
  const claimed = await db
    .updateTable('customer_tokens')
    .set({ use_time: now })
    .where('token_hash', '=', tokenHash)
    .where('customer_id', '=', customerId)
    .where('purpose', '=', PASSWORD_RESET)
    .where('use_time', 'is', null)
    .where('expire_time', '>', now)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
