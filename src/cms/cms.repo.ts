import type { Insertable, Selectable } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';
import { MAX_VIEWS_PER_WEBSITE } from '../views/index.js';

/** Statements over the CMS's own tables (`cms_pages`, `cms_blocks`, `cms_page_group_members`). */

/** Inserts the provisioned home page; a re-run after a crash finds it there and does nothing. */
export async function insertHomePageOnce(db: Db | Trx, values: Insertable<DB['cms_pages']>): Promise<void> {
  await db
    .insertInto('cms_pages')
    .values(values)
    .onConflict((oc) => oc.columns(['website_id', 'id']).doNothing())
    .execute();
}

/** Membership rows `:resolve` reads for one customer-group version. */
export async function deletePageGroupMembers(db: Db | Trx, websiteId: string, pageGroupId: string): Promise<void> {
  await db.deleteFrom('cms_page_group_members').where('website_id', '=', websiteId).where('cms_page_group_id', '=', pageGroupId).execute();
}

export async function insertPageGroupMembers(db: Db | Trx, values: Insertable<DB['cms_page_group_members']>[]): Promise<void> {
  await db.insertInto('cms_page_group_members').values(values).execute();
}

/** A view deleted with `force` leaves the membership rows of every version. */
export async function deletePageGroupMembersOfView(db: Db | Trx, websiteId: string, viewId: string): Promise<void> {
  await db.deleteFrom('cms_page_group_members').where('website_id', '=', websiteId).where('view_id', '=', viewId).execute();
}

/** A page row's facts the site decides paths and visibility by (not overlaid fields). */
export type PageKeyRow = Pick<Selectable<DB['cms_pages']>, (typeof PAGE_KEY_COLUMNS)[number]>;
export const PAGE_KEY_COLUMNS = ['id', 'url_key', 'is_active', 'visible_view_ids', 'update_time'] as const;

type Slot = (name: string) => string;

/** Pages of the website with one url_key (compiled once, `slot` placeholders). */
export function pageKeysByUrlKeyQuery(db: Db | Trx, slot: Slot) {
  return (
    db
      .selectFrom('cms_pages')
      .select([...PAGE_KEY_COLUMNS])
      .where('website_id', '=', slot('website'))
      .where('account_id', '=', slot('account'))
      .where('url_key', '=', slot('url_key'))
      .orderBy('id')
      // url_key is unique per view scope: at most one page per view shares a key.
      .limit(MAX_VIEWS_PER_WEBSITE + 1)
  );
}

export function pageKeyByIdQuery(db: Db | Trx, slot: Slot) {
  return db.selectFrom('cms_pages').select([...PAGE_KEY_COLUMNS]).where('website_id', '=', slot('website')).where('account_id', '=', slot('account')).where('id', '=', slot('id'));
}

export function blockIdByIdentifierQuery(db: Db | Trx, slot: Slot) {
  return db.selectFrom('cms_blocks').select('id').where('website_id', '=', slot('website')).where('account_id', '=', slot('account')).where('identifier', '=', slot('identifier'));
}

/** Key facts of the pages among `ids`. */
export function pageKeysByIds(db: Db | Trx, websiteId: string, accountId: string, ids: string[]): Promise<PageKeyRow[]> {
  return db
    .selectFrom('cms_pages')
    .select([...PAGE_KEY_COLUMNS])
    .where('website_id', '=', websiteId)
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

/** One keyset page (by primary key order) of the active pages after id `after`. */
export function activePageKeysAfter(db: Db | Trx, dialect: SqlDialect, websiteId: string, accountId: string, after: string, limit: number): Promise<PageKeyRow[]> {
  return db
    .selectFrom('cms_pages')
    .select([...PAGE_KEY_COLUMNS])
    .where('website_id', '=', websiteId)
    .where('account_id', '=', accountId)
    .where('is_active', '=', dialect.bool(true))
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Active pages visible in the view (`visible_view_ids` naming it or empty), from the `(website_id, url_key, id)` index. */
function publishedPageCandidates(db: Db | Trx, dialect: SqlDialect, websiteId: string, accountId: string, viewId: string) {
  return db
    .selectFrom('cms_pages')
    .select(['id', 'url_key'])
    .where('website_id', '=', websiteId)
    .where('account_id', '=', accountId)
    .where('is_active', '=', dialect.bool(true))
    .where((eb) => eb.or([dialect.arrayHas('visible_view_ids', viewId), eb(dialect.arrayLength('visible_view_ids'), '=', 0)]));
}

/** Candidates with one url_key, by id (at most `limit`). */
export function publishedPageCandidatesByUrlKey(db: Db | Trx, dialect: SqlDialect, websiteId: string, accountId: string, viewId: string, urlKey: string, limit: number): Promise<{ id: string; url_key: string }[]> {
  return publishedPageCandidates(db, dialect, websiteId, accountId, viewId).where('url_key', '=', urlKey).orderBy('id').limit(limit).execute();
}

/** Candidates by `url_key` then id, after the cursor `[url_key, id]`; at most `limit`. */
export function publishedPageCandidatesAfter(
  db: Db | Trx,
  dialect: SqlDialect,
  websiteId: string,
  accountId: string,
  viewId: string,
  after: [string, string] | undefined,
  limit: number,
): Promise<{ id: string; url_key: string }[]> {
  let query = publishedPageCandidates(db, dialect, websiteId, accountId, viewId);
  if (after) query = query.where((eb) => eb.or([eb('url_key', '>', after[0]), eb.and([eb('url_key', '=', after[0]), eb('id', '>', after[1])])]));
  return query.orderBy('url_key').orderBy('id').limit(limit).execute();
}

/** The page's id when `id` is a page of the website (navigation's provisioning links the home page). */
export async function findPageId(db: Db | Trx, websiteId: string, id: string): Promise<string | undefined> {
  const page = await db.selectFrom('cms_pages').select('id').where('website_id', '=', websiteId).where('id', '=', id).executeTakeFirst();
  return page?.id;
}
