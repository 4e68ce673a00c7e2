import type { Expression } from 'kysely';
import type { Db, Trx } from '../platform/db/schema.js';

// Pages as the search index reads them (src/search: its reindex batches, its pending queue and the
// blocks each page embeds).

/** Ids of the website's pages after `afterId`, by id (keyset batches of a reindex). */
export async function pageIdsAfter(db: Db | Trx, websiteId: string, afterId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('cms_pages').select('id').where('website_id', '=', websiteId).where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function countPages(db: Db | Trx, websiteId: string): Promise<number> {
  const row = await db.selectFrom('cms_pages').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** `url_key` of each page among `ids` that exists. */
export async function pageUrlKeys(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('cms_pages').select(['id', 'url_key']).where('website_id', '=', websiteId).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.id, r.url_key]));
}

/** The content of each page among `ids`, its own and every overlay's, where it places a block (`data-block=`). */
export async function pageContentsWithBlocks(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Array<{ page_id: string; content: string | null }>> {
  const own = await db.selectFrom('cms_pages').select(['id as page_id', 'content']).where('website_id', '=', websiteId).where('id', 'in', [...ids]).where('content', 'like', '%data-block=%').execute();
  const overlays = await db
    .selectFrom('cms_page_views')
    .select(['cms_page_id as page_id', 'content'])
    .where('website_id', '=', websiteId)
    .where('cms_page_id', 'in', [...ids])
    .where('content', 'like', '%data-block=%')
    .execute();
  return [...own, ...overlays];
}

/** The website's page ids as a subquery (`select id from cms_pages where website_id = ?`, with `idEquals` also `and id = …`), for set-based statements of other areas. */
export function pageIdsQuery(db: Db | Trx, websiteId: string, idEquals?: Expression<string>) {
  const query = db.selectFrom('cms_pages').select('id').where('website_id', '=', websiteId);
  return idEquals ? query.where('id', '=', idEquals) : query;
}
