import { createPublishedPosts, type PublishedPost } from '../../blog/index.js';
import { createPublishedPages, type PublishedPage } from '../../cms/index.js';
import { readPublishedMenu, type PublishedMenu } from '../../navigation/index.js';
import type { AreaDeps, SiteContext, SiteView } from '../../platform/area.js';
import { InvalidArgument } from '../../platform/errors.js';
import { createPageTokenCodec, queryBinding } from '../../platform/query/page-token.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../platform/query/list-params.js';

/** Site path of `path` (inside a view) with the view's prefix. */
export const sitePath = (view: SiteView, path: string) => (view.urlPrefix ? `/${view.urlPrefix}${path === '/' ? '' : path}` : path);

/** One page of a list the agent surface answers (read API and MCP tools alike). */
export interface ListAnswer<T> {
  items: T[];
  next_page_token?: string;
}

export type ApiPage = PublishedPage & { url: string; view_id: string };
export type ApiPost = PublishedPost & { url: string; view_id: string };

/**
 * What the read API and the MCP server read, for one site: published pages, posts and menus of the
 * site's website in one of its active views, through the areas' own readers (published-pages.ts,
 * published-posts.ts, published-navigation.ts). Lists page with the platform's signed page tokens
 * (bound to the website, view and collection) and its page_size rules (default 50, at most 100).
 */
export function createSiteContent(deps: AreaDeps) {
  const pages = createPublishedPages(deps.database);
  const posts = createPublishedPosts(deps.database);
  const tokens = createPageTokenCodec(deps.config.jwtSecret);

  /** `view` names an active view by id; absent or empty: the default view. Anything else is INVALID_ARGUMENT on `view`. */
  function viewOf(ctx: SiteContext, id: string | undefined): SiteView {
    if (id === undefined || id === '') return ctx.defaultView;
    const view = ctx.views.find((v) => v.id === id);
    if (!view) throw InvalidArgument.field('view', 'is not an active view of this website');
    return view;
  }

  function pageSizeOf(value: unknown): number {
    if (value === undefined || value === '') return DEFAULT_PAGE_SIZE;
    const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 0) throw InvalidArgument.field('page_size', 'must be a non-negative integer');
    return n === 0 ? DEFAULT_PAGE_SIZE : Math.min(n, MAX_PAGE_SIZE);
  }

  const bindingOf = (ctx: SiteContext, view: SiteView, collection: string) => queryBinding(`site:${ctx.website.id}:${collection}`, view.id, '');

  function cursorOf<T extends unknown[]>(ctx: SiteContext, view: SiteView, collection: string, token: string | undefined): T | undefined {
    if (token === undefined || token === '') return undefined;
    return tokens.decode(token, bindingOf(ctx, view, collection)).after as T;
  }

  const mint = (ctx: SiteContext, view: SiteView, collection: string, after: unknown[] | undefined) =>
    after ? tokens.encode({ binding: bindingOf(ctx, view, collection), after, total: 0 }) : undefined;

  const absolute = (ctx: SiteContext, view: SiteView, path: string) => `${ctx.origin}${sitePath(view, path)}`;

  return {
    viewOf,

    async listPages(ctx: SiteContext, q: { view?: string; page_size?: unknown; page_token?: string }): Promise<ListAnswer<ApiPage>> {
      const view = viewOf(ctx, q.view);
      const limit = pageSizeOf(q.page_size);
      const after = cursorOf<[string, string]>(ctx, view, 'pages', q.page_token);
      const { pages: found, next } = await pages.list(ctx.website.id, ctx.website.accountId, view.id, { after, limit });
      return { items: found.map((p) => ({ ...p, url: absolute(ctx, view, p.path), view_id: view.id })), next_page_token: mint(ctx, view, 'pages', next) };
    },

    async getPage(ctx: SiteContext, q: { view?: string; url_key: string }): Promise<ApiPage | undefined> {
      const view = viewOf(ctx, q.view);
      const page = await pages.get(ctx.website.id, ctx.website.accountId, view.id, q.url_key);
      return page && { ...page, url: absolute(ctx, view, page.path), view_id: view.id };
    },

    async listPosts(ctx: SiteContext, q: { view?: string; page_size?: unknown; page_token?: string }): Promise<ListAnswer<ApiPost>> {
      const view = viewOf(ctx, q.view);
      const limit = pageSizeOf(q.page_size);
      const after = cursorOf<[number, string]>(ctx, view, 'posts', q.page_token);
      const { posts: found, next } = await posts.list(ctx.website.id, ctx.website.accountId, view.id, { after, limit });
      return { items: found.map((p) => ({ ...p, url: absolute(ctx, view, p.path), view_id: view.id })), next_page_token: mint(ctx, view, 'posts', next) };
    },

    async getPost(ctx: SiteContext, q: { view?: string; url_key: string }): Promise<ApiPost | undefined> {
      const view = viewOf(ctx, q.view);
      const post = await posts.get(ctx.website.id, ctx.website.accountId, view.id, q.url_key);
      return post && { ...post, url: absolute(ctx, view, post.path), view_id: view.id };
    },

    async getNavigation(ctx: SiteContext, q: { view?: string; identifier: string }): Promise<(PublishedMenu & { view_id: string }) | undefined> {
      const view = viewOf(ctx, q.view);
      const menu = await readPublishedMenu(
        deps.database,
        { websiteId: ctx.website.id, accountId: ctx.website.accountId, viewId: view.id, identifier: q.identifier },
        async (pageId) => {
          const page = await pages.getById(ctx.website.id, ctx.website.accountId, view.id, pageId);
          return page && sitePath(view, page.path);
        },
      );
      return menu && { ...menu, view_id: view.id };
    },
  };
}

export type SiteContent = ReturnType<typeof createSiteContent>;
