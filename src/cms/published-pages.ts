import type { Database } from '../platform/db/database.js';
import { NotFound } from '../platform/errors.js';
import { HOME_PAGE_ID } from './cms.area.js';
import { publishedPageCandidatesAfter, publishedPageCandidatesByUrlKey } from './cms.repo.js';
import { cmsResolvers, HOME_URL_KEY } from './cms.site.js';

/** A page as the rendered site serves it to everybody in one view (no customer group). */
export interface PublishedPage {
  id: string;
  url_key: string;
  /** Path of the page inside its view: `/` for the home page, else `/{url_key}`. */
  path: string;
  title: string;
  content_heading?: string;
  /** Sanitised rich text (HTML), as stored. */
  content?: string;
  meta_title?: string;
  meta_description?: string;
  meta_robots?: string;
  update_time: string;
}

export interface PublishedPages {
  /** The page the site serves at `url_key` in the view; undefined when none does (unknown, inactive, invisible there). */
  get(websiteId: string, accountId: string, viewId: string, urlKey: string): Promise<PublishedPage | undefined>;
  /** The page by id when the site serves it in the view. */
  getById(websiteId: string, accountId: string, viewId: string, id: string): Promise<PublishedPage | undefined>;
  /**
   * Pages the site serves in the view, by `url_key` then id, after the cursor `[url_key, id]` of the
   * previous page; at most `limit`, and `next`, the cursor after them, when more may follow.
   */
  list(websiteId: string, accountId: string, viewId: string, opts: { after?: [string, string]; limit: number }): Promise<{ pages: PublishedPage[]; next?: [string, string] }>;
}

/**
 * Path of a page inside its view: the home page (url_key `home`, or the provisioned `cms_pages/home`)
 * answers at the view's root, as the site's dispatcher serves it (cms.site.ts decides the one case
 * this cannot see: a view with both, where the url_key wins).
 */
export const pagePathOf = (page: { id: string; url_key: string }) => (page.url_key === HOME_URL_KEY || page.id === HOME_PAGE_ID ? '/' : `/${page.url_key}`);

/**
 * Published pages for callers without a request context (the rendered site's agent surface): the
 * candidates come from the `(website_id, url_key, id)` index filtered by `is_active` and
 * `visible_view_ids`, and each is read through `:resolve`'s resolution (view overlays along the
 * fallback chain), which also decides `is_visible`.
 */
export function createPublishedPages(database: Database): PublishedPages {
  const { dialect, db } = database;
  const resolver = cmsResolvers(database).pages;

  async function read(websiteId: string, accountId: string, viewId: string, id: string): Promise<PublishedPage | undefined> {
    const r = await resolver.read({ websiteId, accountId, id, viewId }).catch((err: unknown) => {
      // Deleted between the candidate query and this read: not served.
      if (err instanceof NotFound) return undefined;
      throw err;
    });
    if (!r || r.is_visible !== true) return undefined;
    const text = (f: string) => (typeof r[f] === 'string' && r[f] !== '' ? (r[f] as string) : undefined);
    return {
      id,
      url_key: String(r.url_key),
      path: pagePathOf({ id, url_key: String(r.url_key) }),
      title: String(r.title ?? ''),
      content_heading: text('content_heading'),
      content: text('content'),
      meta_title: text('meta_title'),
      meta_description: text('meta_description'),
      meta_robots: text('meta_robots'),
      update_time: String(r.update_time),
    };
  }

  return {
    async get(websiteId, accountId, viewId, urlKey) {
      const rows = await publishedPageCandidatesByUrlKey(db, dialect, websiteId, accountId, viewId, urlKey, 5);
      for (const row of rows) {
        const page = await read(websiteId, accountId, viewId, row.id);
        if (page) return page;
      }
      return undefined;
    },
    getById: read,
    async list(websiteId, accountId, viewId, { after, limit }) {
      const rows = await publishedPageCandidatesAfter(db, dialect, websiteId, accountId, viewId, after, limit + 1);
      const more = rows.length > limit;
      const pages: PublishedPage[] = [];
      for (const row of rows.slice(0, limit)) {
        const page = await read(websiteId, accountId, viewId, row.id);
        if (page) pages.push(page);
      }
      const last = rows[limit - 1];
      return { pages, next: more ? [last.url_key, last.id] : undefined };
    },
  };
}
