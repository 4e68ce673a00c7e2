import type { Db, Trx } from '../platform/db/schema.js';

/** The website's content version (`site_versions`, bumped by triggers in every writing transaction); 0 before the first write. */
export async function siteVersionOf(db: Db | Trx, websiteId: string): Promise<number> {
  const row = await db.selectFrom('site_versions').select('version').where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.version ?? 0);
}
