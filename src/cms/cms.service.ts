import { transliterate } from 'transliteration';
import type { Reference } from '../platform/area.js';
import type { SqlDialect } from '../platform/db/database.js';
import { AlreadyExists, NotFound } from '../platform/errors.js';
import type { FieldDecl, Row, WriteContext } from '../platform/resource/declaration.js';
import { isViewOf } from '../views/index.js';
import { countOverlaysOfView, countRowsListing, deleteOverlaysOfView, removeFromLists, rowsWithUrlKey, switchOffRowsListingOnly } from './content.repo.js';

/** Most views a `visible_view_ids` list can name (a website has at most 50 views). */
export const MAX_VISIBLE_VIEWS = 50;

/** The `visible_view_ids` field every view-scoped content resource carries. */
export const visibleViewIdsField = (what: string): FieldDecl => ({
  type: 'string_list',
  description:
    `Views the ${what} is visible in; empty (the default) means every view, present and future. Each id must be a view of the same website ` +
    '(else INVALID_ARGUMENT); duplicates are kept once. Deleting a view with `force` removes it here, and a list that would become empty ' +
    `switches the ${what} off instead (it must not turn visible everywhere).`,
  maxItems: MAX_VISIBLE_VIEWS,
  itemMinLength: 1,
  itemMaxLength: 64,
  default: [],
  refersTo: { table: 'views', what: 'a view' },
});

/** The view an overlay (id = view id) overlays must be a view of the overlaid resource's website. */
export async function checkOverlaidView(ctx: WriteContext, websiteId: string, viewId: string): Promise<void> {
  if (!(await isViewOf(ctx.trx, websiteId, viewId))) throw new NotFound(`view ${viewId}`);
}

/**
 * `url_key` is unique per website and view scope: two pages may share a key only when the views
 * they are visible in do not overlap (an empty list overlaps every view). Writers of one key are
 * serialised (`lockKey`), so two concurrent creates cannot both pass the check.
 */
export async function checkUrlKeyFree(ctx: WriteContext, dialect: SqlDialect, row: Row, table = 'cms_pages', noun = 'page'): Promise<void> {
  await dialect.lockKey(ctx.trx, `${table}.url_key|${row.website_id}|${row.url_key}`);
  const mine = new Set(dialect.readJson<string[]>(row.visible_view_ids) ?? []);
  const others = await rowsWithUrlKey(ctx.trx, table, row.website_id, row.url_key, row.id);
  for (const other of others) {
    const theirs = dialect.readJson<string[]>(other.visible_view_ids) ?? [];
    if (mine.size === 0 || theirs.length === 0 || theirs.some((id) => mine.has(id))) {
      throw new AlreadyExists(`url_key "${row.url_key}" is used by ${noun} ${other.id} in an overlapping set of views`, 'url_key');
    }
  }
}

/**
 * `About us & more!` → `about-us-more`: the url_key a page (or blog post, category, ...) gets from its
 * title when none is sent. Other scripts are transliterated first (`Привет мир` → `privet-mir`,
 * `你好世界` → `ni-hao-shi-jie`, `Straße` → `strasse`), so a title in any language yields a readable key.
 */
export function slugOf(title: string): string {
  const slug = transliterate(title)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
    .replace(/-+$/, '');
  return slug || 'page';
}

/** A view reference held in a JSON list column (`cms_pages.visible_view_ids`, ...). */
export function visibleViewsReference(table: string, dialect: SqlDialect, activeColumn: string | undefined): Reference {
  return idListReference({ table, column: 'visible_view_ids', target: 'views', activeColumn }, dialect);
}

/**
 * A reference held in a JSON list of ids (`visible_view_ids`, a page version's
 * `customer_group_ids`). Detaching removes the id from every list; a row whose list named only that
 * id is switched off first (`activeColumn`), since an empty list would change what it means.
 */
export function idListReference(spec: { table: string; column: string; target: string; activeColumn: string | undefined }, dialect: SqlDialect): Reference {
  const { table, column, activeColumn } = spec;
  return {
    target: spec.target,
    describe: `${table}.${column}`,
    count: (db, websiteId, id) => countRowsListing(db, dialect, table, column, websiteId, id),
    async detach(db, websiteId, id, now) {
      if (activeColumn) await switchOffRowsListingOnly(db, dialect, table, column, activeColumn, websiteId, id);
      await removeFromLists(db, dialect, table, column, websiteId, id, now);
    },
  };
}

/** A view reference held by an overlay table (its rows' id is the view id); detaching deletes the overlays. */
export function overlayReference(table: string): Reference {
  return {
    target: 'views',
    describe: table,
    count: (db, websiteId, viewId) => countOverlaysOfView(db, table, websiteId, viewId),
    detach: (db, websiteId, viewId) => deleteOverlaysOfView(db, table, websiteId, viewId),
  };
}
