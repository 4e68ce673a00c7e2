import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/database.js';
import { NotFound } from '../platform/errors.js';
import { createResolver } from '../cms/resolve.js';
import { BLOG_RESOLVER_SPECS } from './blog.area.js';
import { deriveExcerpt } from './blog.shared.js';

/** Path of a post inside its view on the rendered site. */
export const postPathOf = (urlKey: string) => `/blog/${urlKey}`;

/** A PUBLISHED post as one view shows it. */
export interface PublishedPost {
  id: string;
  url_key: string;
  path: string;
  title: string;
  /** The hand-written excerpt, else one derived from the content (plain text, entities kept). */
  excerpt?: string;
  /** Sanitised rich text (HTML), as stored. */
  content?: string;
  meta_title?: string;
  meta_description?: string;
  publish_time: string;
  update_time: string;
}

export interface PublishedPosts {
  /** The post the site serves at `url_key` in the view; undefined when none does (unknown, not PUBLISHED, invisible there). */
  get(websiteId: string, accountId: string, viewId: string, urlKey: string): Promise<PublishedPost | undefined>;
  /** Newest first (`publish_time` desc, then id desc), after the cursor `[publish_time, id]`; `next` when more may follow. */
  list(websiteId: string, accountId: string, viewId: string, opts: { after?: [number, string]; limit: number }): Promise<{ posts: PublishedPost[]; next?: [number, string] }>;
}

/**
 * PUBLISHED posts for callers without a request context (the rendered site's agent surface):
 * candidates from the `(website_id, publish_time, id)` / `(website_id, url_key, id)` indexes,
 * filtered by state and `visible_view_ids`, each read through `:resolve`'s resolution (view overlays
 * along the fallback chain).
 */
export function createPublishedPosts(database: Database): PublishedPosts {
  const { dialect } = database;
  const db: Kysely<any> = database.db;
  const resolver = createResolver(database, BLOG_RESOLVER_SPECS.blog_posts);

  const candidates = (websiteId: string, accountId: string, viewId: string) =>
    db
      .selectFrom('blog_posts')
      .select(['id', 'url_key', 'publish_time'])
      .where('website_id', '=', websiteId)
      .where('account_id', '=', accountId)
      .where('state', '=', 'PUBLISHED')
      .where((eb) => eb.or([dialect.arrayHas('visible_view_ids', viewId) as never, eb(dialect.arrayLength('visible_view_ids') as never, '=', 0 as never)]));

  async function read(websiteId: string, accountId: string, viewId: string, id: string): Promise<PublishedPost | undefined> {
    const r = await resolver.resolveAs(accountId, { website_id: websiteId, blog_post_id: id }, { view_id: viewId }).catch((err) => {
      // Deleted between the candidate query and this read: not served.
      if (err instanceof NotFound) return undefined;
      throw err;
    });
    const views = (r?.visible_view_ids as string[] | undefined) ?? [];
    if (!r || r.state !== 'PUBLISHED' || (views.length > 0 && !views.includes(viewId))) return undefined;
    const text = (f: string) => (typeof r[f] === 'string' && r[f] !== '' ? (r[f] as string) : undefined);
    return {
      id,
      url_key: String(r.url_key),
      path: postPathOf(String(r.url_key)),
      title: String(r.title ?? ''),
      excerpt: deriveExcerpt(text('custom_excerpt') ?? text('content')),
      content: text('content'),
      meta_title: text('meta_title'),
      meta_description: text('meta_description'),
      publish_time: new Date(Number(r.publish_time)).toISOString(),
      update_time: String(r.update_time),
    };
  }

  return {
    async get(websiteId, accountId, viewId, urlKey) {
      const rows = await candidates(websiteId, accountId, viewId).where('url_key', '=', urlKey).orderBy('id').limit(5).execute();
      for (const row of rows) {
        const post = await read(websiteId, accountId, viewId, row.id);
        if (post) return post;
      }
      return undefined;
    },
    async list(websiteId, accountId, viewId, { after, limit }) {
      let query = candidates(websiteId, accountId, viewId);
      if (after) query = query.where((eb) => eb.or([eb('publish_time', '<', after[0]), eb.and([eb('publish_time', '=', after[0]), eb('id', '<', after[1])])]));
      const rows = await query.orderBy('publish_time', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
      const more = rows.length > limit;
      const posts: PublishedPost[] = [];
      for (const row of rows.slice(0, limit)) {
        const post = await read(websiteId, accountId, viewId, row.id);
        if (post) posts.push(post);
      }
      const last = rows[limit - 1];
      return { posts, next: more ? [Number(last.publish_time), last.id] : undefined };
    },
  };
}
