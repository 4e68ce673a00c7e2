import type { Insertable, Kysely } from 'kysely';
import type { SqlDialect } from '../platform/db/database.js';
import type { DB, Db, Trx } from '../platform/db/schema.js';

/** Views per website: a locale switcher with more entries is not a use case we know of. */
export const MAX_VIEWS_PER_WEBSITE = 50;

/** Every view of the website with its fallback (the fallback-cycle check reads them all). */
export function viewFallbacks(db: Db | Trx, websiteId: string): Promise<{ id: string; fallback_view_id: string | null }[]> {
  return db.selectFrom('views').select(['id', 'fallback_view_id']).where('website_id', '=', websiteId).execute();
}

/** How many views fall back to `viewId`. */
export async function countViewsFallingBackTo(db: Db | Trx, websiteId: string, viewId: string): Promise<number> {
  const row = await db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where('fallback_view_id', '=', viewId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Clears the fallback of every view falling back to `viewId` (a new revision each). */
export async function clearFallbacksTo(db: Db | Trx, websiteId: string, viewId: string, now: number): Promise<void> {
  await db
    .updateTable('views')
    .set((eb) => ({ fallback_view_id: null, revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('fallback_view_id', '=', viewId)
    .execute();
}

export async function countViews(db: Db | Trx, websiteId: string): Promise<number> {
  const count = await db
    .selectFrom('views')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .executeTakeFirst();
  return Number(count?.n ?? 0);
}

/** The previous default view of the website (other than `exceptId`) stops being the default. */
export async function unsetOtherDefaults(db: Db | Trx, dialect: SqlDialect, websiteId: string, exceptId: string, now: number): Promise<void> {
  await db
    .updateTable('views')
    .set((eb) => ({ is_default: dialect.bool(false), revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where('is_default', '=', dialect.bool(true))
    .where('id', '!=', exceptId)
    .execute();
}

/** Whether the website has any view (provisioning creates the default view once). */
export async function hasAnyView(db: Db | Trx, websiteId: string): Promise<boolean> {
  const existing = await db.selectFrom('views').select('id').where('website_id', '=', websiteId).executeTakeFirst();
  return existing !== undefined;
}

export async function insertView(db: Db | Trx, values: Insertable<DB['views']>): Promise<void> {
  await db.insertInto('views').values(values).execute();
}

/** Whether `viewId` is a view of the website. */
export async function isViewOf(db: Db | Trx, websiteId: string, viewId: string): Promise<boolean> {
  const view = await db.selectFrom('views').select('id').where('website_id', '=', websiteId).where('id', '=', viewId).executeTakeFirst();
  return view !== undefined;
}

/**
 * The view read as (named by `slot('view')`, or the website's default) and its fallbacks, nearest
 * first, as the CTE `chain(view_id, fallback_view_id, depth)` for a query compiled once with slot
 * placeholders: a recursive CTE over `views` by primary key along `fallback_view_id`, at most
 * `MAX_VIEWS_PER_WEBSITE` steps, so a loop written behind the views area's back cannot hang a read.
 */
export function withViewChain<T>(db: Kysely<T>, dialect: SqlDialect, namedView: boolean, slot: (name: string) => string) {
  // Untyped builder: Kysely cannot type a recursive CTE whose column list renames the columns it selects.
  return db.withRecursive('chain(view_id, fallback_view_id, depth)', (qb: any) =>
    qb
      .selectFrom('views')
      .select(['id', 'fallback_view_id', (eb: any) => eb.lit(0).as('depth')])
      .where('website_id', '=', slot('website'))
      .where(namedView ? 'id' : 'is_default', '=', namedView ? slot('view') : dialect.bool(true))
      .unionAll(
        qb
          .selectFrom('chain as c')
          .innerJoin('views as v', (join: any) => join.on('v.website_id', '=', slot('website')).onRef('v.id', '=', 'c.fallback_view_id'))
          .select(['v.id', 'v.fallback_view_id', (eb: any) => eb('c.depth', '+', eb.lit(1)).as('depth')])
          .where('c.depth', '<', MAX_VIEWS_PER_WEBSITE - 1),
      ),
  );
}

/** Every view of the website in creation order, with what the rendered site needs of it. */
export function viewsInCreationOrder(db: Db | Trx, websiteId: string) {
  return db
    .selectFrom('views')
    .select(['id', 'display_name', 'locale', 'url_prefix', 'is_default', 'fallback_view_id', 'is_active'])
    .where('website_id', '=', websiteId)
    .orderBy('create_time')
    .orderBy('id')
    .execute();
}
