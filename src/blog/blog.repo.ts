import { expressionBuilder, sql, type Expression, type ExpressionBuilder, type RawBuilder, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { SemiJoinPlan, SqlDialect } from '../platform/db/database.js';
import type { Db, DB, Trx } from '../platform/db/schema.js';
import type { FilterScope } from '../platform/query/filter.js';

/**
 * SQL of the blog that the resource engine does not write itself: the side tables linking posts to
 * categories, tags and authors, detaching a deleted one from every post, a category's manual order,
 * revisions, and the scheduled publish. Every function takes the website id first.
 */

/** A post list field, the side table that indexes it and that table's column. */
export type LinkSpec =
  // The category side keeps each post's place in the category's manual order.
  | { field: 'category_ids'; table: 'blog_post_categories'; column: 'category_id'; positioned: true }
  | { field: 'tag_ids'; table: 'blog_post_tags'; column: 'tag_id'; positioned: false }
  | { field: 'author_ids'; table: 'blog_post_authors'; column: 'author_id'; positioned: false };

/** Categories, tags and authors: the rows posts link to, each with `id`, `url_key`, `display_name`. */
export type TaxonomyTable = 'blog_categories' | 'blog_tags' | 'blog_authors';
/** The columns categories, tags and authors share: what a read of one of them, chosen at run time, is typed as. */
export type TaxonomyRow = Selectable<Pick<DB['blog_tags'], keyof DB['blog_tags'] & keyof DB['blog_categories'] & keyof DB['blog_authors']>>;
/** A media reference in a plain column of the blog. */
export type MediaColumn = { table: 'blog_posts'; column: 'feature_image_media_id' | 'og_image_media_id' } | { table: 'blog_authors'; column: 'avatar_media_id' };

export const CATEGORY_LINKS = { field: 'category_ids', table: 'blog_post_categories', column: 'category_id', positioned: true } as const satisfies LinkSpec;
export const TAG_LINKS = { field: 'tag_ids', table: 'blog_post_tags', column: 'tag_id', positioned: false } as const satisfies LinkSpec;
export const AUTHOR_LINKS = { field: 'author_ids', table: 'blog_post_authors', column: 'author_id', positioned: false } as const satisfies LinkSpec;
export const LINKS: readonly LinkSpec[] = [CATEGORY_LINKS, TAG_LINKS, AUTHOR_LINKS];

/**
 * `category_ids:"c"` (and tags, authors) answered from the side table, scoped to the website, as the
 * dialect's semi-join (like customers' `tags`); for one post it is a primary-key probe.
 */
export function linkHas(dialect: SqlDialect, link: LinkSpec): (value: string, scope: FilterScope, plan?: SemiJoinPlan) => RawBuilder<boolean> {
  return (value, scope, plan) => {
    const where = sql<boolean>`${sql.ref(`${link.table}.website_id`)} = ${scope.website_id} and ${sql.ref(`${link.table}.${link.column}`)} = ${value}`;
    return dialect.semiJoin('blog_posts.id', { table: link.table, column: 'post_id', where, tenant: 'website_id' }, plan);
  };
}

/**
 * Makes the side table hold exactly `ids` for the post: rows of ids no longer listed go, new ones
 * come (a category's newcomers last in its manual order); rows that stay keep their place.
 */
export async function writeLinks(db: Db | Trx, websiteId: string, postId: string, link: LinkSpec, ids: readonly string[]): Promise<void> {
  let removal = db.deleteFrom(link.table).where('website_id', '=', websiteId).where('post_id', '=', postId);
  if (ids.length) removal = removal.where(link.column, 'not in', ids);
  await removal.execute();
  if (!ids.length) return;
  const present = new Set(
    (await db.selectFrom(link.table).select(link.column).where('website_id', '=', websiteId).where('post_id', '=', postId).execute()).map((r) => r[link.column] as string),
  );
  const added = ids.filter((id) => !present.has(id));
  for (const id of added) {
    const row = { website_id: websiteId, post_id: postId };
    if (link.table === 'blog_post_categories') {
      const last = await db
        .selectFrom(link.table)
        .select((eb) => eb.fn.max('position').as('last'))
        .where('website_id', '=', websiteId)
        .where(link.column, '=', id)
        .executeTakeFirst();
      const position = last?.last === null || last?.last === undefined ? 0 : Number(last.last) + 1;
      await db.insertInto(link.table).values({ ...row, category_id: id, position }).execute();
    } else if (link.table === 'blog_post_tags') await db.insertInto(link.table).values({ ...row, tag_id: id }).execute();
    else await db.insertInto(link.table).values({ ...row, author_id: id }).execute();
  }
}

/**
 * Removes category / tag / author `targetIds` from every post that lists one (the JSON list and its
 * etag; the side rows go by foreign-key cascade with the target, or are deleted here when `dropRows`).
 * Reaches the posts through the side table's index, never a JSON scan.
 */
export async function detachFromPosts(db: Db | Trx, dialect: SqlDialect, websiteId: string, link: LinkSpec, targetIds: readonly string[], now: number, dropRows = false): Promise<void> {
  for (const id of targetIds) {
    const linked = db.selectFrom(link.table).select('post_id').where('website_id', '=', websiteId).where(link.column, '=', id);
    await db
      .updateTable('blog_posts')
      .set((eb) => ({ [link.field]: dialect.arrayWithout(link.field, id), revision: eb('revision', '+', 1), update_time: now }))
      .where('website_id', '=', websiteId)
      .where('id', 'in', linked)
      .execute();
    if (dropRows) await db.deleteFrom(link.table).where('website_id', '=', websiteId).where(link.column, '=', id).execute();
  }
}

/** How many posts list a category / tag / author. */
export async function countLinkedPosts(db: Db | Trx, websiteId: string, link: LinkSpec, targetId: string): Promise<number> {
  const row = await db
    .selectFrom(link.table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where(link.column, '=', targetId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Ids among `ids` that are posts of the website. */
export async function existingPostIds(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom('blog_posts').select('id').where('website_id', '=', websiteId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id as string));
}

/**
 * `:set_posts`: the category holds exactly `postIds`, in that order. Posts leaving lose the category
 * from `category_ids`, posts joining gain it (last); the side rows are rewritten with their positions.
 */
export async function replaceCategoryPosts(db: Db | Trx, dialect: SqlDialect, websiteId: string, categoryId: string, postIds: readonly string[], now: number): Promise<void> {
  const link = CATEGORY_LINKS;
  const current = (await db.selectFrom(link.table).select('post_id').where('website_id', '=', websiteId).where('category_id', '=', categoryId).execute()).map(
    (r) => r.post_id as string,
  );
  const wanted = new Set(postIds);
  const leaving = current.filter((id) => !wanted.has(id));
  const had = new Set(current);
  const joining = postIds.filter((id) => !had.has(id));
  const bump = (eb: ExpressionBuilder<DB, 'blog_posts'>) => ({ revision: eb('revision', '+', 1), update_time: now });
  for (const chunk of chunks(leaving, 500)) {
    await db
      .updateTable('blog_posts')
      .set((eb) => ({ category_ids: dialect.arrayWithout('category_ids', categoryId), ...bump(eb) }))
      .where('website_id', '=', websiteId)
      .where('id', 'in', chunk)
      .execute();
  }
  for (const chunk of chunks(joining, 500)) {
    await db
      .updateTable('blog_posts')
      .set((eb) => ({ category_ids: dialect.arrayWith('category_ids', categoryId), ...bump(eb) }))
      .where('website_id', '=', websiteId)
      .where('id', 'in', chunk)
      .execute();
  }
  await db.deleteFrom(link.table).where('website_id', '=', websiteId).where('category_id', '=', categoryId).execute();
  const rows = postIds.map((postId, position) => ({ website_id: websiteId, category_id: categoryId, post_id: postId, position }));
  for (const chunk of chunks(rows, 200)) await db.insertInto(link.table).values(chunk).execute();
}

/** Post ids of a category in its manual order (at most `limit`). */
export async function categoryPostIds(db: Db | Trx, websiteId: string, categoryId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('blog_post_categories')
    .select('post_id')
    .where('website_id', '=', websiteId)
    .where('category_id', '=', categoryId)
    .orderBy('position')
    .orderBy('post_id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.post_id as string);
}

/** Whether the category is one of the website's. */
export async function categoryExists(db: Db | Trx, websiteId: string, categoryId: string): Promise<boolean> {
  const category = await db.selectFrom('blog_categories').select('id').where('website_id', '=', websiteId).where('id', '=', categoryId).executeTakeFirst();
  return category !== undefined;
}

/** A page of a category's manual order after the keyset `[position, post_id]` (exclusive), at most `limit` rows. */
export async function categoryOrderPage(db: Db | Trx, websiteId: string, categoryId: string, after: [number, string] | undefined, limit: number): Promise<Array<{ post_id: string; position: number }>> {
  let q = db.selectFrom('blog_post_categories').select(['post_id', 'position']).where('website_id', '=', websiteId).where('category_id', '=', categoryId);
  if (after) {
    const [position, postId] = after;
    // A row-value comparison: both databases bound the index range with it, so a deep page reads
    // its own rows only (the equivalent OR was a filter after the category's start on PostgreSQL:
    // 90 001 rows read for a page at position 90 000; docs/performance.md).
    q = q.where((eb) => eb(eb.refTuple('position', 'post_id'), '>', eb.tuple(position, postId)));
  }
  return q.orderBy('position').orderBy('post_id').limit(limit).execute();
}

/** Ids of a category and every category below it. */
export async function subtreeIds(db: Db | Trx, websiteId: string, path: string): Promise<string[]> {
  const rows = await db
    .selectFrom('blog_categories')
    .select('id')
    .where('website_id', '=', websiteId)
    .where((eb) => eb.or([eb('path', '=', path), eb.and([eb('path', '>=', `${path}/`), eb('path', '<', `${path}0`)])]))
    .execute();
  return rows.map((r) => r.id as string);
}

/** Whether a category has sub-categories. */
export async function hasChildCategory(db: Db | Trx, websiteId: string, categoryId: string): Promise<boolean> {
  const row = await db.selectFrom('blog_categories').select('id').where('website_id', '=', websiteId).where('parent_id', '=', categoryId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Keeps a revision of a post and drops the ones beyond the newest `keep`. */
export async function insertRevision(
  db: Db | Trx,
  dialect: SqlDialect,
  websiteId: string,
  rev: { accountId: string; postId: string; postRevision: number; snapshot: Record<string, unknown>; createdBy: string; now: number },
  keep: number,
): Promise<void> {
  await db
    .insertInto('blog_post_revisions')
    .values({
      website_id: websiteId,
      blog_post_id: rev.postId,
      id: String(rev.postRevision),
      account_id: rev.accountId,
      post_revision: rev.postRevision,
      snapshot: dialect.json(rev.snapshot),
      created_by: rev.createdBy,
      revision: 1,
      create_time: rev.now,
      update_time: rev.now,
    })
    // A write of the same post revision twice (a retried restore) keeps the first.
    .onConflict((oc) => oc.columns(['website_id', 'blog_post_id', 'id']).doNothing())
    .execute();
  const oldestKept = await db
    .selectFrom('blog_post_revisions')
    .select('post_revision')
    .where('website_id', '=', websiteId)
    .where('blog_post_id', '=', rev.postId)
    .orderBy('post_revision', 'desc')
    .offset(keep - 1)
    .limit(1)
    .executeTakeFirst();
  if (oldestKept) {
    await db
      .deleteFrom('blog_post_revisions')
      .where('website_id', '=', websiteId)
      .where('blog_post_id', '=', rev.postId)
      .where('post_revision', '<', Number(oldestKept.post_revision))
      .execute();
  }
}

/** The post's state and time, for the scheduled publish to decide whether it is due. */
export async function scheduleOf(db: Db | Trx, websiteId: string, postId: string): Promise<{ state: string; publish_time: number | null } | undefined> {
  const row = await db.selectFrom('blog_posts').select(['state', 'publish_time']).where('website_id', '=', websiteId).where('id', '=', postId).executeTakeFirst();
  return row ? { state: row.state, publish_time: row.publish_time === null ? null : Number(row.publish_time) } : undefined;
}

/** A media reference in a plain column (a post's feature image, an author's avatar): cleared when the media goes. */
export async function clearMediaColumn(db: Db | Trx, websiteId: string, ref: MediaColumn, mediaId: string, now: number): Promise<void> {
  const column = db.dynamic.ref<MediaColumn['column']>(ref.column);
  await db
    .updateTable(ref.table)
    .set(column, null)
    .set((eb) => ({ revision: eb('revision', '+', 1), update_time: now }))
    .where('website_id', '=', websiteId)
    .where(column, '=', mediaId)
    .execute();
}

export async function countMediaColumn(db: Db | Trx, websiteId: string, ref: MediaColumn, mediaId: string): Promise<number> {
  const row = await db
    .selectFrom(ref.table)
    .select((eb) => eb.fn.countAll().as('n'))
    .where('website_id', '=', websiteId)
    .where(db.dynamic.ref<MediaColumn['column']>(ref.column), '=', mediaId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Whether another row of the website's `table` (categories, tags, authors) uses `urlKey`. */
export async function urlKeyTaken(db: Db | Trx, websiteId: string, table: TaxonomyTable, id: string, urlKey: string): Promise<boolean> {
  const row = await db.selectFrom(table).select('id').where('website_id', '=', websiteId).where('url_key', '=', urlKey).where('id', '!=', id).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Tables a post's revision refers to by id. Views and media belong to other areas: reading them here
 * is left to move behind those areas' surfaces (issue 30).
 */
export type IdTable = TaxonomyTable | 'views' | 'media';

/** Ids among `ids` that are rows of `table` in the website. */
export async function existingIds(db: Db | Trx, websiteId: string, table: IdTable, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db.selectFrom(table).select('id').where('website_id', '=', websiteId).where('id', 'in', ids).execute();
  return new Set(rows.map((r) => r.id as string));
}

/** Posts visible in `viewId` alone become DRAFT (before the view is removed from their lists). */
export async function draftPostsOnlyIn(db: Db | Trx, dialect: SqlDialect, websiteId: string, viewId: string): Promise<void> {
  await db
    .updateTable('blog_posts')
    .set({ state: 'DRAFT' })
    .where('website_id', '=', websiteId)
    .where(dialect.arrayHas('visible_view_ids', viewId))
    .where(dialect.arrayLength('visible_view_ids'), '=', 1)
    .execute();
}

/**
 * What the rendered site may show of the blog in one view (src/blog/blog.site.ts): posts PUBLISHED
 * with `publish_time <= now`, of the website, visible in the view (`visible_view_ids` empty, or
 * naming the view itself: never decided by its fallbacks).
 */
export interface LiveScope {
  websiteId: string;
  viewId: string;
  now: number;
}

/** Builds the live-post conditions, typed against `blog_posts`, for queries that read it under any other tables. */
const onPosts = expressionBuilder<DB, 'blog_posts'>();

/** The live-post conditions on `blog_posts` (unaliased, as `linkHas` refers to it). */
function whereLive<D extends DB, TB extends keyof D, O>(query: SelectQueryBuilder<D, TB, O>, dialect: SqlDialect, scope: LiveScope, byKey = false): SelectQueryBuilder<D, TB, O> {
  // `byKey`: the rows are reached by another index (url_key, a side table); SQLite without
  // statistics would otherwise prefer walking (website_id, state, publish_time) for these terms.
  const col = <C extends 'state' | 'publish_time'>(c: C) => (byKey ? dialect.notIndexed(`blog_posts.${c}`) : (`blog_posts.${c}` as const));
  return query
    .where(onPosts('blog_posts.website_id', '=', scope.websiteId))
    .where(onPosts(col('state'), '=', 'PUBLISHED'))
    .where(onPosts(col('publish_time'), '<=', scope.now))
    // `= '[]'` rather than a length of 0: PostgreSQL estimates it from the column's statistics (the
    // empty list is its most common value), where a function's result gets a guess so small that
    // the planner sorts the whole website instead of walking the publish_time index.
    .where(onPosts.or([onPosts('blog_posts.visible_view_ids', '=', dialect.json([])), dialect.arrayHas('blog_posts.visible_view_ids', scope.viewId)]));
}

/** Columns of a post a site listing reads (`content` only where an excerpt is derived from it). */
export const SITE_POST_LIST_COLUMNS = [
  'id', 'url_key', 'title', 'custom_excerpt', 'meta_description', 'publish_time', 'update_time', 'visible_view_ids', 'author_ids', 'tag_ids', 'category_ids',
  'feature_image_media_id', 'feature_image_alt',
] as const;

type PostRow = Selectable<DB['blog_posts']>;
/** A post as a site listing reads it (`content` only when asked for). */
export type LivePostRow = Pick<PostRow, (typeof SITE_POST_LIST_COLUMNS)[number]> & { content?: string | null };
const listColumns = (withContent?: boolean) => (withContent ? [...SITE_POST_LIST_COLUMNS, 'content' as const] : [...SITE_POST_LIST_COLUMNS]);

/**
 * One page of live posts newest first (`publish_time desc, id desc`: the index
 * `(website_id, state, publish_time, id)` walked backwards), optionally only those of a tag or author
 * (the side table as a semi-join, like the List's `tag_ids:"t"`). Offset paging: callers bound it.
 */
export async function livePostsPage(
  db: Db | Trx,
  dialect: SqlDialect,
  scope: LiveScope,
  page: { offset: number; limit: number; link?: { spec: LinkSpec; id: string }; withContent?: boolean },
): Promise<LivePostRow[]> {
  // A rare tag or author is read from its side table and sorted (`drive`), a common one by walking
  // the published index and probing its set (`probe`): the List's choice (SemiJoinPlan), same rows.
  const plan = page.link ? dialect.pageSemiJoinPlan?.(await countLinkedPosts(db, scope.websiteId, page.link.spec, page.link.id), page.limit) : undefined;
  const drive = plan === 'drive';
  let query = whereLive(db.selectFrom('blog_posts').select(listColumns(page.withContent)), dialect, scope, drive);
  if (page.link) query = query.where(linkHas(dialect, page.link.spec)(page.link.id, { website_id: scope.websiteId }, plan));
  const order = <C extends 'publish_time' | 'id'>(c: C) => (drive ? dialect.notIndexed(`blog_posts.${c}`) : (`blog_posts.${c}` as const));
  return query.orderBy(order('publish_time'), 'desc').orderBy(order('id'), 'desc').offset(page.offset).limit(page.limit).execute();
}

/**
 * One page of a category's live posts in the category's manual order (`:set_posts`; the index
 * `(website_id, category_id, position, post_id)`), each post fetched by primary key.
 */
export async function liveCategoryPostsPage(
  db: Db | Trx,
  dialect: SqlDialect,
  scope: LiveScope,
  page: { categoryId: string; offset: number; limit: number; withContent?: boolean },
): Promise<LivePostRow[]> {
  const columns = listColumns(page.withContent).map((c) => `blog_posts.${c}` as const);
  // CROSS JOIN: SQLite keeps the side table as the outer loop (its position index gives the order);
  // PostgreSQL plans it as the inner join it is.
  const query = db
    .selectFrom('blog_post_categories as pc')
    .crossJoin('blog_posts')
    .select(columns)
    .where('pc.website_id', '=', scope.websiteId)
    .where('pc.category_id', '=', page.categoryId)
    .whereRef('blog_posts.website_id', '=', 'pc.website_id')
    .whereRef('blog_posts.id', '=', 'pc.post_id');
  return whereLive(query, dialect, scope, true).orderBy('pc.position').orderBy('pc.post_id').offset(page.offset).limit(page.limit).execute();
}

/**
 * Live posts newest first after a keyset cursor `(publish_time, id)` (exclusive): feeds and the
 * site's inventory read every post in bounded pages this way, never by offset.
 */
export async function livePostsAfter(
  db: Db | Trx,
  dialect: SqlDialect,
  scope: LiveScope,
  after: { publishTime: number; id: string } | undefined,
  limit: number,
  withContent = false,
): Promise<LivePostRow[]> {
  let query = whereLive(db.selectFrom('blog_posts').select(listColumns(withContent)), dialect, scope);
  if (after) query = query.where((eb) => eb(eb.refTuple('blog_posts.publish_time', 'blog_posts.id'), '<', eb.tuple(after.publishTime, after.id)));
  return query.orderBy('blog_posts.publish_time', 'desc').orderBy('blog_posts.id', 'desc').limit(limit).execute();
}

/**
 * The live post just newer than `(publishTime, id)` (a post page's "next"): the same index walked
 * forwards from the cursor, one row.
 */
export async function liveNewerPost(db: Db | Trx, dialect: SqlDialect, scope: LiveScope, at: { publishTime: number; id: string }): Promise<LivePostRow | undefined> {
  return whereLive(db.selectFrom('blog_posts').select([...SITE_POST_LIST_COLUMNS]), dialect, scope)
    .where((eb) => eb(eb.refTuple('blog_posts.publish_time', 'blog_posts.id'), '>', eb.tuple(at.publishTime, at.id)))
    .orderBy('blog_posts.publish_time', 'asc')
    .orderBy('blog_posts.id', 'asc')
    .limit(1)
    .executeTakeFirst();
}

/** The live post with `urlKey` in the view (url_keys are unique per website and view scope), every column. */
export async function livePostByUrlKey(db: Db | Trx, dialect: SqlDialect, scope: LiveScope, urlKey: string): Promise<PostRow | undefined> {
  return whereLive(db.selectFrom('blog_posts').selectAll(), dialect, scope, true).where('blog_posts.url_key', '=', urlKey).limit(1).executeTakeFirst();
}

/** A category, tag or author of the website by url_key (unique per website). */
export async function taxonomyByUrlKey(db: Db | Trx, websiteId: string, table: TaxonomyTable, urlKey: string): Promise<TaxonomyRow | undefined> {
  return db.selectFrom(table).selectAll().where('website_id', '=', websiteId).where('url_key', '=', urlKey).executeTakeFirst();
}

/** Rows of `table` in the website by id (a post's categories, tags, authors), in the order of `ids`. */
export async function rowsByIds(db: Db | Trx, websiteId: string, table: TaxonomyTable, ids: readonly string[]): Promise<TaxonomyRow[]> {
  if (!ids.length) return [];
  const rows: TaxonomyRow[] = await db.selectFrom(table).selectAll().where('website_id', '=', websiteId).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Direct sub-categories (sibling order) of a category, at most `limit`, holding a live post of their own. */
export async function liveChildCategories(db: Db | Trx, dialect: SqlDialect, scope: LiveScope, parentId: string, limit: number): Promise<Selectable<DB['blog_categories']>[]> {
  return db
    .selectFrom('blog_categories as c')
    .selectAll('c')
    .where('c.website_id', '=', scope.websiteId)
    .where('c.parent_id', '=', parentId)
    .where((eb) => eb.exists(liveLinked(db, dialect, scope, CATEGORY_LINKS, { websiteId: eb.ref('c.website_id'), id: eb.ref('c.id') })))
    .orderBy('c.sort_order')
    .orderBy('c.id')
    .limit(limit)
    .execute();
}

/** A live post linked to the category / tag / author `outer.id` (a correlated EXISTS through the side table's primary key). */
function liveLinked(db: Db | Trx, dialect: SqlDialect, scope: LiveScope, link: LinkSpec, outer: { websiteId: Expression<string>; id: Expression<string> }) {
  // From the side table's key to each post's primary key (CROSS JOIN keeps that order on SQLite).
  const query = db
    .selectFrom(db.dynamic.table(link.table).as('l'))
    .crossJoin('blog_posts')
    .select(sql.lit(1).as('one'))
    .where('l.website_id', '=', outer.websiteId)
    .where(db.dynamic.ref<'l.post_id'>(`l.${link.column}`), '=', outer.id)
    .whereRef('blog_posts.website_id', '=', 'l.website_id')
    .whereRef('blog_posts.id', '=', 'l.post_id');
  return whereLive(query, dialect, scope, true);
}

/**
 * Categories, tags or authors with at least one live post in the view, by id after `afterId`
 * (keyset on the primary key), at most `limit`: the archives the site's inventory lists.
 */
export async function liveTaxonomyAfter(
  db: Db | Trx,
  dialect: SqlDialect,
  scope: LiveScope,
  link: LinkSpec,
  table: TaxonomyTable,
  afterId: string | undefined,
  limit: number,
): Promise<TaxonomyRow[]> {
  let query = db
    .selectFrom(db.dynamic.table(table).as('t'))
    .selectAll('t')
    .where('t.website_id', '=', scope.websiteId)
    .where((eb) => eb.exists(liveLinked(db, dialect, scope, link, { websiteId: eb.ref('t.website_id'), id: eb.ref('t.id') })));
  if (afterId !== undefined) query = query.where('t.id', '>', afterId);
  return query.orderBy('t.id').limit(limit).execute();
}

// Posts as the search index reads them (src/search: its reindex batches and its pending queue).

/** Ids of the website's posts after `afterId`, by id (keyset batches of a reindex). */
export async function postIdsAfter(db: Db | Trx, websiteId: string, afterId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('blog_posts').select('id').where('website_id', '=', websiteId).where('id', '>', afterId).orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function countPosts(db: Db | Trx, websiteId: string): Promise<number> {
  const row = await db.selectFrom('blog_posts').select((eb) => eb.fn.countAll().as('n')).where('website_id', '=', websiteId).executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** `url_key` of each post among `ids` that exists. */
export async function postUrlKeys(db: Db | Trx, websiteId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('blog_posts').select(['id', 'url_key']).where('website_id', '=', websiteId).where('id', 'in', [...ids]).execute();
  return new Map(rows.map((r) => [r.id, r.url_key]));
}

/** The website's post ids as a subquery (`select id from blog_posts where website_id = ?`, with `idEquals` also `and id = …`), for set-based statements of other areas. */
export function postIdsQuery(db: Db | Trx, websiteId: string, idEquals?: Expression<string>) {
  const query = db.selectFrom('blog_posts').select('id').where('website_id', '=', websiteId);
  return idEquals ? query.where('id', '=', idEquals) : query;
}

// --- read by other areas (editorial) ---

/** A post of the website, every column, optionally locked; undefined without an id. */
export async function findPostRow(db: Db | Trx, dialect: SqlDialect, websiteId: string, id: string | null | undefined, forUpdate = false) {
  if (!id) return undefined;
  let query = db.selectFrom('blog_posts').selectAll().where('website_id', '=', websiteId).where('id', '=', id);
  if (forUpdate) query = dialect.forUpdate(query);
  return query.executeTakeFirst();
}

/** A post's revision, if the post exists. */
export function postRevisionOf(db: Db | Trx, websiteId: string, id: string) {
  return db.selectFrom('blog_posts').select('revision').where('website_id', '=', websiteId).where('id', '=', id).executeTakeFirst();
}
