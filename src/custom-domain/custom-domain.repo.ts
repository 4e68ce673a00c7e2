import type { Selectable, Updateable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/**
 * SQL of the custom domain projection (`custom_domains`, one row per website, id = website id).
 * No rules here: statuses and what `:verify` decides are the resource's.
 */

/** A stored custom domain row. */
export type CustomDomainRow = Selectable<DB['custom_domains']>;

/** The website's row, if it was ever written. */
export function customDomainOf(db: Db | Trx, accountId: string, websiteId: string): Promise<CustomDomainRow | undefined> {
  return db.selectFrom('custom_domains').selectAll().where('id', '=', websiteId).where('account_id', '=', accountId).executeTakeFirst();
}

/** The website's row locked until the transaction ends, created first (revision 0) when missing. */
export async function lockCustomDomain(trx: Db | Trx, dialect: SqlDialect, accountId: string, websiteId: string, now: number): Promise<CustomDomainRow> {
  await trx
    .insertInto('custom_domains')
    .values({ id: websiteId, account_id: accountId, domain: null, status: 'NOT_CONFIGURED', revision: 0, create_time: now, update_time: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return dialect.forUpdate(trx.selectFrom('custom_domains').selectAll().where('id', '=', websiteId).where('account_id', '=', accountId)).executeTakeFirstOrThrow();
}

/** Writes the row's columns (all but its id). */
export async function writeCustomDomain(trx: Db | Trx, id: string, set: Updateable<DB['custom_domains']>): Promise<void> {
  await trx.updateTable('custom_domains').set(set).where('id', '=', id).execute();
}

/** Another website CONNECTED to `domain` goes back to PENDING_DNS (a new revision each). */
export async function releaseDomainElsewhere(trx: Db | Trx, domain: string, exceptId: string, now: number): Promise<void> {
  await trx
    .updateTable('custom_domains')
    .set((eb) => ({ status: 'PENDING_DNS', status_detail: `${domain} now points at another website`, revision: eb('revision', '+', 1), update_time: now }))
    .where('domain', '=', domain)
    .where('status', '=', 'CONNECTED')
    .where('id', '!=', exceptId)
    .execute();
}

// Added by A1 (site): the rendered site's host lookup, moved here from site/hosts.ts.
/** The website a CONNECTED custom domain names (a custom domain's id is its website's id). */
export async function connectedDomainWebsiteId(db: Db | Trx, domain: string): Promise<string | undefined> {
  const row = await db.selectFrom('custom_domains').select('id').where('domain', '=', domain).where('status', '=', 'CONNECTED').executeTakeFirst();
  return row?.id;
}
