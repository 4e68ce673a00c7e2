import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IDENTIFIER_PATTERN, URL_KEY_PATTERN } from '../../cms/index.js';
import { InvalidArgument, MethodNotAllowed, NotFound } from '../../platform/errors.js';
import { errorResponses } from '../../platform/http/openapi-shapes.js';
import { registerOpenApi } from '../../platform/http/openapi.js';
import { Reply, routeSchema } from '../../platform/http/components.js';
import type { JsonSchema } from '../../platform/resource/schemas.js';
import type { SiteContext, SiteDeps, SiteView } from '../../platform/area.js';
import { sitePath, type SiteContent } from './content.js';
import { markdownPathOf } from './markdown.js';
import { enabled } from './signals.js';

/** Where a site's read API answers (and `{prefix}/openapi.json` describes it). */
export const READ_API_PREFIX = '/api/v1';

const text = (description: string, maxLength = 2048): JsonSchema => ({ type: 'string', maxLength, description });
const time = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', maxLength: 40, description });

const common: Record<string, JsonSchema> = {
  url_key: text('URL key of the page or post.', 255),
  path: text('Path inside its view (no view prefix).'),
  url: { type: 'string', format: 'uri', maxLength: 4096, description: 'Absolute URL of the rendered page on this site.' },
  markdown_url: { type: 'string', format: 'uri', maxLength: 4096, description: 'Absolute URL of its Markdown twin (absent when the view has twins switched off).' },
  view_id: text('The view read in.', 64),
  title: text('Title, as the view shows it.', 255),
  meta_description: text('SEO description.', 1024),
  update_time: time('Latest change of the content shown.'),
};

const PageSummary: JsonSchema = {
  $id: 'SitePageSummary',
  type: 'object',
  description: 'A published page, as listed.',
  required: ['url_key', 'path', 'url', 'view_id', 'title', 'update_time'],
  properties: common,
};
const Page: JsonSchema = {
  $id: 'SitePage',
  type: 'object',
  description: 'A published page as one view shows it (its view overlays applied; customer-group versions are never shown here).',
  required: ['url_key', 'path', 'url', 'view_id', 'title', 'update_time'],
  properties: {
    ...common,
    content_heading: text('Heading shown above the content.', 255),
    content: text('Sanitised rich text (HTML).', 500_000),
    meta_title: text('SEO title.', 255),
    meta_robots: text('Robots directive of the page.', 32),
  },
};
const postCommon: Record<string, JsonSchema> = {
  ...common,
  excerpt: text('Excerpt: the hand-written one, else the start of the content as plain text.', 4000),
  publish_time: time('When the post went live.'),
};
const PostSummary: JsonSchema = {
  $id: 'SitePostSummary',
  type: 'object',
  description: 'A published blog post, as listed (newest first).',
  required: ['url_key', 'path', 'url', 'view_id', 'title', 'publish_time', 'update_time'],
  properties: postCommon,
};
const Post: JsonSchema = {
  $id: 'SitePost',
  type: 'object',
  description: 'A published blog post as one view shows it.',
  required: ['url_key', 'path', 'url', 'view_id', 'title', 'publish_time', 'update_time'],
  properties: { ...postCommon, content: text('Sanitised rich text (HTML).', 500_000), meta_title: text('SEO title.', 255) },
};
const MenuItem: JsonSchema = {
  $id: 'SiteMenuItem',
  type: 'object',
  description: 'An entry of a menu; `children` nest up to five levels.',
  required: ['label', 'href', 'open_in_new_tab', 'children'],
  properties: {
    label: text('Text of the entry.', 255),
    href: text('Site path of the linked page, or the link target.'),
    open_in_new_tab: { type: 'boolean', description: 'Whether the site opens it in a new tab.' },
    children: { type: 'array', maxItems: 1000, items: { $ref: 'SiteMenuItem#' }, description: 'Sub-entries in menu order.' },
  },
};
const Menu: JsonSchema = {
  $id: 'SiteMenu',
  type: 'object',
  description: 'A navigation menu as one view shows it: inactive and invisible entries, and entries linking to pages the view does not serve, are left out.',
  required: ['identifier', 'display_name', 'view_id', 'items'],
  properties: {
    identifier: text('Handle of the menu (`main`, `footer`).', 128),
    display_name: text('Name of the menu.', 255),
    view_id: common.view_id,
    items: { type: 'array', maxItems: 1000, items: { $ref: 'SiteMenuItem#' }, description: 'Top-level entries in menu order.' },
  },
};
const View: JsonSchema = {
  $id: 'SiteView',
  type: 'object',
  description: 'An active view (language or market) of the site.',
  required: ['id', 'display_name', 'locale', 'url_prefix', 'is_default'],
  properties: {
    id: text('Id to pass as `view`.', 64),
    display_name: text('Name of the view.', 255),
    locale: text('BCP 47 locale.', 35),
    url_prefix: text('First path segment of its pages; empty for the default view.', 64),
    is_default: { type: 'boolean', description: 'The view served without a prefix.' },
  },
};

const listOf = (id: string, items: JsonSchema, what: string): JsonSchema => ({
  $id: id,
  type: 'object',
  description: `A page of ${what}.`,
  required: [what],
  properties: {
    [what]: { type: 'array', maxItems: 100, items, description: `The ${what}.` },
    next_page_token: text('Pass as `page_token` for the next page; absent on the last page.', 4096),
  },
});

const viewQuery: JsonSchema = { type: 'string', maxLength: 64, description: 'Id of an active view (`GET /views`); default: the default view. Anything else is INVALID_ARGUMENT.' };
const listQuery: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  properties: {
    view: viewQuery,
    page_size: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Items per page, 1 to 100; 0 or absent means 50; larger is clamped to 100.' },
    page_token: text('From a previous `next_page_token` (bound to the collection and view).', 4096),
  },
};
const itemQuery: JsonSchema = { type: 'object', additionalProperties: true, properties: { view: viewQuery } };
const urlKeyParams: JsonSchema = {
  type: 'object',
  required: ['url_key'],
  properties: { url_key: { type: 'string', minLength: 1, maxLength: 255, description: 'URL key; a key with `/` (`company/team`) may also be written unencoded.' } },
};
const tags = ['site content'];
const SearchHit: JsonSchema = {
  $id: 'SiteSearchHit',
  type: 'object',
  description: 'A page or post matching the search.',
  required: ['kind', 'title', 'title_html', 'snippet_html', 'path', 'url', 'view_id', 'update_time'],
  properties: {
    kind: { type: 'string', enum: ['page', 'post'], description: 'What was found.' },
    title: common.title,
    title_html: text('The title, HTML-escaped, with `<mark>` around the matched words.', 8192),
    snippet_html: text('An extract of the content around the matches, HTML-escaped, with `<mark>` around the matched words.', 8192),
    path: text('Site path of the page or post (view prefix included).'),
    url: common.url,
    view_id: common.view_id,
    update_time: common.update_time,
  },
};
const SearchResults: JsonSchema = {
  $id: 'SiteSearchResults',
  type: 'object',
  description: 'A page of search hits, best first.',
  required: ['results'],
  properties: {
    results: { type: 'array', maxItems: 50, items: SearchHit, description: 'The hits.' },
    next_page_token: text('Pass as `page_token` (with the same `q` and `view`) for the next hits; absent on the last page.', 4096),
  },
};
const searchQuery: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  required: ['q'],
  properties: {
    q: { type: 'string', maxLength: 200, description: 'The words to search for (1 to 200 characters; plain words, no query syntax).' },
    view: viewQuery,
    page_size: { type: 'integer', format: 'int64', minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'Hits per page, 1 to 50; 0 or absent means 10; larger is clamped to 50.' },
    page_token: text('From a previous `next_page_token` (bound to the same `q` and view).', 4096),
  },
};

/**
 * The public read API of a rendered site (`/api/v1/…` on the site's own host): published pages,
 * posts and menus of the website, per view, JSON, CORS open, no credentials. Its OpenAPI 3.1
 * document is generated from these route schemas by the platform's generator (registerOpenApi), with
 * the site's origin as server. Errors are the platform's canonical body (`config.siteJson`).
 */
export async function registerReadApi(site: FastifyInstance, deps: SiteDeps, content: SiteContent): Promise<void> {
  await site.register(async (api) => {
    // JSON errors from the platform's handler instead of the site's HTML page (site.surface.ts).
    api.addHook('onRoute', (route) => {
      // `siteJson` is the site's own route flag, unknown to Fastify's config type.
      route.config = { ...(route.config as object), siteJson: true } as typeof route.config;
    });
    api.addHook('onRequest', async (request) => {
      const ctx = deps.siteOf(request);
      if (!enabled(await deps.settings(ctx, ctx.defaultView), 'api')) throw new NotFound(`no route ${request.method} ${request.url.split('?')[0]}`);
    });
    api.addHook('onSend', async (_request, reply, payload) => {
      // Answers follow the content version (SITE_VERSION_TTL_MS); caches revalidate every time.
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'public, no-cache');
      return payload;
    });

    await registerOpenApi(api, {
      prefix: READ_API_PREFIX,
      title: 'Site read API',
      description: "Public, read-only JSON of this website's published pages, blog posts and navigation menus, per view.",
      serverUrl: (request) => `${deps.siteOf(request).origin}${READ_API_PREFIX}`,
      bearer: false,
      docs: false,
    });

    const twinsIn = async (ctx: SiteContext, view: SiteView) => enabled(await deps.settings(ctx, view), 'markdown');
    const withTwin = async <T extends { path: string; view_id: string }>(ctx: SiteContext, items: T[]) => {
      if (!items.length) return items;
      const view = content.viewOf(ctx, items[0].view_id);
      if (!(await twinsIn(ctx, view))) return items;
      return items.map((item) => ({ ...item, markdown_url: `${ctx.origin}${markdownPathOf(sitePath(view, item.path))}` }));
    };
    const urlKeyOf = (request: FastifyRequest) => {
      const params = request.params as Record<string, string>;
      const key = params.url_key ?? params['*'];
      if (!new RegExp(URL_KEY_PATTERN).test(key) || key.length > 255) throw InvalidArgument.field('url_key', 'is not a URL key (lowercase letters, digits, `.`, `_`, `-`, segments joined by `/`)');
      return key;
    };
    const q = (request: FastifyRequest) => request.query as { view?: string; page_size?: number; page_token?: string };

    api.get(`${READ_API_PREFIX}/views`, {
      schema: routeSchema(api, {
        operationId: 'ListSiteViews',
        summary: 'List the views of the site',
        description: 'Active views, the default first: pass a view `id` as `view` to read content as that view shows it.',
        tags,
        security: [],
        response: { 200: new Reply('The views.', { $id: 'SiteViewList', type: 'object', required: ['views'], properties: { views: { type: 'array', maxItems: 100, items: View } } }), ...errorResponses() },
      }),
      handler: async (request) => ({
        views: deps.siteOf(request).views.map((v) => ({ id: v.id, display_name: v.displayName, locale: v.locale, url_prefix: v.urlPrefix, is_default: v.isDefault })),
      }),
    });

    api.get(`${READ_API_PREFIX}/pages`, {
      schema: routeSchema(api, {
        operationId: 'ListSitePages',
        summary: 'List published pages',
        description: 'Pages the site serves in the view (active, visible there), ordered by `url_key`.',
        tags,
        security: [],
        querystring: listQuery,
        response: { 200: new Reply('A page of pages.', listOf('SitePageList', PageSummary, 'pages')), ...errorResponses() },
      }),
      handler: async (request) => {
        const ctx = deps.siteOf(request);
        const { items, next_page_token } = await content.listPages(ctx, q(request));
        return { pages: await withTwin(ctx, items), next_page_token };
      },
    });

    const getPage = async (request: FastifyRequest) => {
      const ctx = deps.siteOf(request);
      const url_key = urlKeyOf(request);
      const page = await content.getPage(ctx, { view: q(request).view, url_key });
      if (!page) throw new NotFound(`page ${url_key}`);
      return (await withTwin(ctx, [page]))[0];
    };
    api.get(`${READ_API_PREFIX}/pages/:url_key`, {
      schema: routeSchema(api, {
        operationId: 'GetSitePage',
        summary: 'Read a published page',
        description: 'The page the site serves at `url_key` in the view; NOT_FOUND when none does (unknown, inactive or invisible in the view).',
        tags,
        security: [],
        params: urlKeyParams,
        querystring: itemQuery,
        response: { 200: new Reply('The page.', Page), ...errorResponses({ notFound: true }) },
      }),
      handler: getPage,
    });
    // Keys with `/` written unencoded (`/pages/company/team`).
    api.get(`${READ_API_PREFIX}/pages/*`, { schema: routeSchema(api, { hide: true, querystring: itemQuery, response: { 200: new Reply('The page.', Page) } }), handler: getPage });

    api.get(`${READ_API_PREFIX}/posts`, {
      schema: routeSchema(api, {
        operationId: 'ListSitePosts',
        summary: 'List published blog posts',
        description: 'PUBLISHED posts visible in the view, newest first (`publish_time` desc).',
        tags,
        security: [],
        querystring: listQuery,
        response: { 200: new Reply('A page of posts.', listOf('SitePostList', PostSummary, 'posts')), ...errorResponses() },
      }),
      handler: async (request) => {
        const ctx = deps.siteOf(request);
        const { items, next_page_token } = await content.listPosts(ctx, q(request));
        return { posts: await withTwin(ctx, items), next_page_token };
      },
    });

    const getPost = async (request: FastifyRequest) => {
      const ctx = deps.siteOf(request);
      const url_key = urlKeyOf(request);
      const post = await content.getPost(ctx, { view: q(request).view, url_key });
      if (!post) throw new NotFound(`post ${url_key}`);
      return (await withTwin(ctx, [post]))[0];
    };
    api.get(`${READ_API_PREFIX}/posts/:url_key`, {
      schema: routeSchema(api, {
        operationId: 'GetSitePost',
        summary: 'Read a published blog post',
        description: 'The PUBLISHED post at `url_key` in the view; NOT_FOUND when none is.',
        tags,
        security: [],
        params: urlKeyParams,
        querystring: itemQuery,
        response: { 200: new Reply('The post.', Post), ...errorResponses({ notFound: true }) },
      }),
      handler: getPost,
    });
    api.get(`${READ_API_PREFIX}/posts/*`, { schema: routeSchema(api, { hide: true, querystring: itemQuery, response: { 200: new Reply('The post.', Post) } }), handler: getPost });

    api.get(`${READ_API_PREFIX}/navigation/:identifier`, {
      schema: routeSchema(api, {
        operationId: 'GetSiteNavigation',
        summary: 'Read a navigation menu',
        description: 'The menu with this identifier (`main` exists on every site) as the view shows it.',
        tags,
        security: [],
        params: { type: 'object', required: ['identifier'], properties: { identifier: { type: 'string', minLength: 1, maxLength: 128, description: 'Handle of the menu.' } } },
        querystring: itemQuery,
        response: { 200: new Reply('The menu.', { ...Menu, properties: { ...(Menu.properties as object), items: { type: 'array', maxItems: 1000, items: MenuItem } } }), ...errorResponses({ notFound: true }) },
      }),
      handler: async (request) => {
        const { identifier } = request.params as { identifier: string };
        if (!new RegExp(IDENTIFIER_PATTERN).test(identifier)) throw InvalidArgument.field('identifier', 'is not a menu identifier');
        const menu = await content.getNavigation(deps.siteOf(request), { view: q(request).view, identifier });
        if (!menu) throw new NotFound(`menu ${identifier}`);
        return menu;
      },
    });

    if (deps.search) {
      const search = deps.search;
      api.get(`${READ_API_PREFIX}/search`, {
        schema: routeSchema(api, {
          operationId: 'SearchSite',
          summary: 'Search published pages and posts',
          description:
            'Ranked full-text search over what the site shows in the view (published pages and live posts, in the view\'s language), best first: a title match ranks above a body match. ' +
            '`q` is plain words (every word must match; quotes and operators are ordinary characters). `title_html` and `snippet_html` are HTML-escaped text with `<mark>` around the matched words. ' +
            'NOT_FOUND while the site has search switched off.',
          tags,
          security: [],
          querystring: searchQuery,
          response: { 200: new Reply('A page of hits.', SearchResults), ...errorResponses({ notFound: true }) },
        }),
        handler: async (request) => {
          const ctx = deps.siteOf(request);
          if (!(await search.enabled(ctx))) throw new NotFound(`no route GET ${READ_API_PREFIX}/search`);
          const query = request.query as { q?: string; view?: string; page_size?: number; page_token?: string };
          return search.run(ctx, content.viewOf(ctx, query.view), query);
        },
      });
    }

    // Anything else under the API answers in JSON too, never with the site's HTML pages.
    api.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      url: `${READ_API_PREFIX}/*`,
      schema: { hide: true },
      // Answers JSON 404/405 only: a JSON path of the site, serving nothing itself.
      config: { siteJson: true, refusesOnly: true },
      handler: async (request) => {
        const path = request.url.split('?')[0];
        if (request.method === 'GET' || request.method === 'HEAD') throw new NotFound(`no route GET ${path}`);
        throw new MethodNotAllowed(request.method, path, ['GET', 'HEAD']);
      },
    });
  });
}
