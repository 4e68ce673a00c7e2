import type { Database } from '../platform/db/database.js';
import { NotFound } from '../platform/errors.js';
import { createResolver } from '../cms/index.js';
import { BLOG_RESOLVER_SPECS } from './blog-overlaid.js';
import { deriveExcerpt } from './blog.shared.js';
import { livePostByUrlKey, livePostsAfter, type LiveScope } from './blog.repo.js';

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
 * Live posts for callers without a request context (the rendered site's agent surface): the
 * blog's live-post readers (blog.repo.ts: PUBLISHED, `publish_time <= now`, visible in the view
 * itself) pick them, each is read through `:resolve`'s resolution (view overlays along the
 * fallback chain).
 */
export function createPublishedPosts(database: Database): PublishedPosts {
  const { dialect } = database;
  const db = database.db;
  const resolver = createResolver(database, BLOG_RESOLVER_SPECS.blog_posts);
  // Which posts are live is the blog's one rule (blog.repo.ts, as the rendered blog reads them).
  const scopeOf = (websiteId: string, viewId: string): LiveScope => ({ websiteId, viewId, now: Date.now() });

  async function read(websiteId: string, accountId: string, viewId: string, id: string): Promise<PublishedPost | undefined> {
    const r = await resolver.read({ websiteId, accountId, id, viewId }).catch((err: unknown) => {
      // Deleted between the candidate query and this read: not served.
      if (err instanceof NotFound) return undefined;
      throw err;
    });
    if (!r) return undefined;
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
      const row = await livePostByUrlKey(db, dialect, scopeOf(websiteId, viewId), urlKey);
      return row ? read(websiteId, accountId, viewId, row.id) : undefined;
    },
    async list(websiteId, accountId, viewId, { after, limit }) {
      const rows = await livePostsAfter(db, dialect, scopeOf(websiteId, viewId), after ? { publishTime: after[0], id: after[1] } : undefined, limit + 1);
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
