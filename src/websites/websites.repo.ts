import type { SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';

/** Statements over `websites` outside the engine's own (provisioning's status, the code check). */

export function websiteById(db: Db | Trx, id: string) {
  return db.selectFrom('websites').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets `provisioning_status` (ACTIVE or FAILED) with a new revision. */
export async function setProvisioningStatus(db: Db | Trx, id: string, status: 'ACTIVE' | 'FAILED', now: number): Promise<void> {
  await db
    .updateTable('websites')
    .set((eb) => ({ provisioning_status: status, revision: eb('revision', '+', 1), update_time: now }))
    .where('id', '=', id)
    .execute();
}

/** Whether a website (of any account) holds the code: codes name platform hosts. */
export async function isCodeTaken(db: Db | Trx, code: string): Promise<boolean> {
  const taken = await db.selectFrom('websites').select('id').where('code', '=', code).executeTakeFirst();
  return taken !== undefined;
}

/** The `websites` columns a rendered site's `SiteWebsite` is read from. */
export const SITE_WEBSITE_COLUMNS = ['id', 'account_id', 'code', 'display_name', 'default_language', 'time_zone', 'provisioning_status'] as const;

/** A website as the rendered site reads it, by its code (platform host) or its id (custom domain). */
export function siteWebsiteRow(db: Db | Trx, key: { code: string } | { id: string }) {
  const query = db.selectFrom('websites').select([...SITE_WEBSITE_COLUMNS]);
  return ('code' in key ? query.where('code', '=', key.code) : query.where('id', '=', key.id)).executeTakeFirst();
}

// --- read by the composition root (src/app.ts: blobs of deleted websites) ---

/** Ids of the websites an account or a project holds, or of the website itself: whose blobs go when it is deleted. */
export async function websiteIdsOwnedBy(db: Db | Trx, owner: 'account' | 'project' | 'website', id: string): Promise<string[]> {
  const column = owner === 'account' ? 'account_id' : owner === 'project' ? 'project_id' : 'id';
  return (await db.selectFrom('websites').select('id').where(column, '=', id).execute()).map((w) => w.id);
}

// --- read by other areas (customers, custom-domain) ---

/** Locks the website row until the transaction ends: serialises an area's per-website limits and sort orders. */
export async function lockWebsite(db: Db | Trx, dialect: SqlDialect, websiteId: string): Promise<void> {
  await dialect.forUpdate(db.selectFrom('websites').select('id').where('id', '=', websiteId)).execute();
}

/** A website of the account with its code (undefined: no such website in the account). */
export function websiteCodeInAccount(db: Db | Trx, accountId: string, websiteId: string) {
  return db.selectFrom('websites').select(['id', 'code']).where('id', '=', websiteId).where('account_id', '=', accountId).executeTakeFirst();
}

// --- read by other areas (projects, access) ---

/** Whether the project has any website (one index probe). */
export async function projectHasWebsites(db: Db | Trx, projectId: string): Promise<boolean> {
  const website = await db.selectFrom('websites').select('id').where('project_id', '=', projectId).limit(1).executeTakeFirst();
  return website !== undefined;
}

/** Those of `ids` that are websites of the account. */
export async function websiteIdsOfAccount(db: Db | Trx, accountId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  return (await db.selectFrom('websites').select('id').where('account_id', '=', accountId).where('id', 'in', [...ids]).execute()).map((w) => w.id);
}

// --- read by other areas (editorial, webhooks) ---

/** A website's account and time zone, if it exists. */
export function websiteAccountAndZone(db: Db | Trx, websiteId: string) {
  return db.selectFrom('websites').select(['id', 'account_id', 'time_zone']).where('id', '=', websiteId).executeTakeFirst();
}

/** A website's display name, if it exists. */
export function websiteDisplayName(db: Db | Trx, websiteId: string) {
  return db.selectFrom('websites').select('display_name').where('id', '=', websiteId).executeTakeFirst();
}
