import type { AreaDeps, SiteContext, SiteContribution, SiteDeps, SiteEntry, SitePage, SitePageContext, SiteView } from '../platform/area.js';
import { TtlCache } from '../platform/cache.js';
import type { Database } from '../platform/db/database.js';
import { InvalidArgument, NotFound } from '../platform/errors.js';
import type { Row } from '../platform/resource/declaration.js';
import { responsiveContentImages } from '../media/index.js';
import { siteHref } from '../platform/site-context.js';
import { BLOCK_CONTENT_FIELDS } from './cms-block.resource.js';
import { PAGE_CONTENT_FIELDS, URL_KEY_PATTERN } from './cms-page.resource.js';
import { activePageKeysAfter, blockIdByIdentifierQuery, pageKeyByIdQuery, pageKeysByIds, pageKeysByUrlKeyQuery } from './cms.repo.js';
import { createResolver, isVisibleIn, type PageResolver, type ResolverSpec } from './resolve.js';
import { preparedQuery, querySlot as slot } from './view-overlays.js';

/** `url_key` of the page a view answers at `/` (see docs/decisions.md, "Rendered websites: pages and chrome"). */
export const HOME_URL_KEY = 'home';
/** Id of the page provisioning creates; the home page of a view where no page has url_key `home`. */
const HOME_PAGE_ID = 'home';
/** Rows per keyset page of the inventory read. */
const INVENTORY_PAGE = 200;

export const PAGE_RESOLVER_SPEC: ResolverSpec = {
  table: 'cms_pages',
  overlayTable: 'cms_page_views',
  overlayParent: 'cms_page_id',
  param: 'cms_page_id',
  collection: 'cms_pages',
  contentFields: Object.keys(PAGE_CONTENT_FIELDS),
  plainFields: ['url_key', 'is_active', 'meta_robots', 'visible_view_ids'],
  groups: { table: 'cms_page_groups', membersTable: 'cms_page_group_members' },
};

export const BLOCK_RESOLVER_SPEC: ResolverSpec = {
  table: 'cms_blocks',
  overlayTable: 'cms_block_views',
  overlayParent: 'cms_block_id',
  param: 'cms_block_id',
  collection: 'cms_blocks',
  contentFields: Object.keys(BLOCK_CONTENT_FIELDS),
  plainFields: ['identifier', 'is_active', 'visible_view_ids'],
};

/** The page and block resolvers of one database: the one resolution `:resolve` and the site share. */
export interface CmsResolvers {
  pages: PageResolver;
  blocks: PageResolver;
}

const resolversByDatabase = new WeakMap<Database, CmsResolvers>();
export function cmsResolvers(database: Database): CmsResolvers {
  let found = resolversByDatabase.get(database);
  if (!found) {
    found = { pages: createResolver(database, PAGE_RESOLVER_SPEC), blocks: createResolver(database, BLOCK_RESOLVER_SPEC) };
    resolversByDatabase.set(database, found);
  }
  return found;
}

/** A block as the site shows it in a view: sanitised content (stored sanitised) and its title. */
export interface SiteBlock {
  identifier: string;
  title: string;
  contentHtml: string;
}

/** A page row's facts the site decides paths and visibility by (not overlaid fields). */
interface PageKey {
  id: string;
  url_key: string;
  is_active: boolean;
  visible_view_ids: string[];
  update_time: number;
}

/**
 * `<div data-block="identifier"></div>` in page content: where the block `identifier` goes (the
 * sanitiser keeps `div` and `data-*`; its output quotes attributes with `"` and escapes `"` and
 * `>` inside them, so this matches exactly the placeholders it let through).
 */
const BLOCK_PLACEHOLDER = /<div\b[^>]*?\sdata-block="([a-z0-9][a-z0-9_.-]{0,127})"[^>]*>\s*<\/div>/g;
/** Placeholders expanded per page: enough for any layout, bounded for a hostile one. */
const MAX_PLACEHOLDERS = 50;

/**
 * The CMS as the rendered site reads it, without a request context (the website's own account):
 * pages by url_key, the home page, blocks by identifier or id, menu targets and the inventory.
 * Every page and block goes through `cmsResolvers` (the `:resolve` path: the view's fallback chain
 * field by field, `is_visible` by the view read as). Reads of one content version are cached.
 */
export interface CmsSiteReader {
  page(ctx: SitePageContext, urlKey: string | null): Promise<SitePage | undefined>;
  blockByIdentifier(ctx: SiteContext, view: SiteView, identifier: string): Promise<SiteBlock | undefined>;
  blockById(ctx: SiteContext, view: SiteView, id: string): Promise<SiteBlock | undefined>;
  /** Site paths (prefix included) of the pages among `ids` that are visible in the view. */
  pagePaths(ctx: SiteContext, view: SiteView, ids: readonly string[]): Promise<Map<string, string>>;
  inventory(ctx: SiteContext, view: SiteView): AsyncIterable<SiteEntry>;
  /** `content` with its block placeholders replaced by the blocks (invisible or unknown: nothing). */
  expandBlocks(ctx: SiteContext, view: SiteView, html: string): Promise<string>;
}

const readers = new WeakMap<Database, CmsSiteReader>();
export function cmsSiteReader(database: Database): CmsSiteReader {
  let reader = readers.get(database);
  if (!reader) readers.set(database, (reader = createCmsSiteReader(database)));
  return reader;
}

function createCmsSiteReader(database: Database): CmsSiteReader {
  const { dialect, db } = database;
  const { pages, blocks } = cmsResolvers(database);
  // Keyed by content version: a write makes new keys, old ones age out.
  const blockCache = new TtlCache<string, Promise<SiteBlock | undefined>>(20_000, 10 * 60_000);

  const byUrlKey = preparedQuery(database, pageKeysByUrlKeyQuery(db, slot));
  const byId = preparedQuery(database, pageKeyByIdQuery(db, slot));
  const blockId = preparedQuery(database, blockIdByIdentifierQuery(db, slot));

  const keyOf = (row: Row): PageKey => ({
    id: row.id,
    url_key: row.url_key,
    is_active: row.is_active === true || row.is_active === 1,
    visible_view_ids: dialect.readJson<string[]>(row.visible_view_ids) ?? [],
    update_time: Number(row.update_time),
  });
  const visible = (page: PageKey, view: SiteView) => isVisibleIn(page.is_active, page.visible_view_ids, view.id);
  const who = (ctx: SiteContext) => ({ website: ctx.website.id, account: ctx.website.accountId });

  /** The page a view answers at `/`: url_key `home` visible in the view, else the provisioned `cms_pages/home`. */
  async function homeOf(ctx: SiteContext, view: SiteView): Promise<PageKey | undefined> {
    const keyed = (await byUrlKey({ ...who(ctx), url_key: HOME_URL_KEY })).map(keyOf).find((p) => visible(p, view));
    if (keyed) return keyed;
    const [row] = await byId({ ...who(ctx), id: HOME_PAGE_ID });
    const page = row ? keyOf(row) : undefined;
    return page && visible(page, view) ? page : undefined;
  }

  /** Path of a page within a view (no prefix): `/` for the view's home page, else `/{url_key}`. */
  async function pathIn(ctx: SiteContext, view: SiteView, page: PageKey, homes: Map<string, Promise<PageKey | undefined>>): Promise<string> {
    if (page.url_key === HOME_URL_KEY) return '/';
    if (page.id === HOME_PAGE_ID) {
      if (!homes.has(view.id)) homes.set(view.id, homeOf(ctx, view));
      if ((await homes.get(view.id))?.id === page.id) return '/';
    }
    return `/${page.url_key}`;
  }

  /** The page's site path in every active view it is visible in (hreflang alternates). */
  async function alternatesOf(ctx: SiteContext, page: PageKey, homes: Map<string, Promise<PageKey | undefined>>): Promise<Record<string, string>> {
    const alternates: Record<string, string> = {};
    for (const view of ctx.views) if (visible(page, view)) alternates[view.id] = siteHref(view, await pathIn(ctx, view, page, homes));
    return alternates;
  }

  async function resolvedBlock(ctx: SiteContext, view: SiteView, id: string): Promise<SiteBlock | undefined> {
    const block = await blocks.read({ websiteId: ctx.website.id, accountId: ctx.website.accountId, id, viewId: view.id }).catch(notFoundAsUndefined);
    if (!block || block.is_visible !== true) return undefined;
    return { identifier: String(block.identifier), title: String(block.title ?? ''), contentHtml: String(block.content ?? '') };
  }

  const cachedBlock = (ctx: SiteContext, view: SiteView, key: string, load: () => Promise<SiteBlock | undefined>) => {
    const cacheKey = `${ctx.website.id}|${ctx.version}|${view.id}|${key}`;
    const hit = blockCache.get(cacheKey);
    if (hit) return hit;
    const loading = load();
    blockCache.set(cacheKey, loading);
    loading.catch(() => blockCache.delete(cacheKey));
    return loading;
  };

  const reader: CmsSiteReader = {
    blockById: (ctx, view, id) => cachedBlock(ctx, view, `id:${id}`, () => resolvedBlock(ctx, view, id)),

    blockByIdentifier: (ctx, view, identifier) =>
      cachedBlock(ctx, view, `identifier:${identifier}`, async () => {
        const [row] = await blockId({ ...who(ctx), identifier });
        return row ? resolvedBlock(ctx, view, row.id) : undefined;
      }),

    async expandBlocks(ctx, view, html) {
      const identifiers = [...new Set([...html.matchAll(BLOCK_PLACEHOLDER)].map((m) => m[1]))].slice(0, MAX_PLACEHOLDERS);
      if (identifiers.length === 0) return html;
      const found = new Map<string, SiteBlock | undefined>();
      for (const identifier of identifiers) found.set(identifier, await reader.blockByIdentifier(ctx, view, identifier));
      // One level: a block's own placeholders stay empty divs, so blocks cannot include each other in a loop.
      return html.replace(BLOCK_PLACEHOLDER, (_m, identifier: string) => {
        const block = found.get(identifier);
        return block ? `<div class="cms-block" data-block="${identifier}">${block.contentHtml}</div>` : '';
      });
    },

    async pagePaths(ctx, view, ids) {
      const paths = new Map<string, string>();
      const unique = [...new Set(ids)];
      if (unique.length === 0) return paths;
      const rows = await pageKeysByIds(db, ctx.website.id, ctx.website.accountId, unique);
      const homes = new Map<string, Promise<PageKey | undefined>>();
      for (const page of rows.map(keyOf)) if (visible(page, view)) paths.set(page.id, siteHref(view, await pathIn(ctx, view, page, homes)));
      return paths;
    },

    async page(ctx, urlKey) {
      const { view } = ctx;
      const homes = new Map<string, Promise<PageKey | undefined>>();
      let page: PageKey | undefined;
      if (urlKey === null) {
        page = await homeOf(ctx, view);
        homes.set(view.id, Promise.resolve(page));
      } else {
        if (urlKey.length > 255 || !URL_KEY_RE.test(urlKey)) return undefined;
        page = (await byUrlKey({ ...who(ctx), url_key: urlKey })).map(keyOf).find((p) => visible(p, view));
      }
      if (!page) return undefined;

      const key = { websiteId: ctx.website.id, accountId: ctx.website.accountId, id: page.id, viewId: view.id };
      let resolved: Record<string, unknown> | undefined;
      if (ctx.visitor) {
        // A signed-in customer reads their group's version; a customer deleted meanwhile reads as everybody.
        resolved = await pages.read({ ...key, customerId: ctx.visitor.customerId }).catch((err) => {
          if (err instanceof InvalidArgument) return undefined;
          throw err;
        });
      }
      resolved ??= await pages.read(key).catch(notFoundAsUndefined);
      if (!resolved || resolved.is_visible !== true) return undefined;

      const path = await pathIn(ctx, view, page, homes);
      const title = String(resolved.title ?? '');
      const contentHtml = await reader.expandBlocks(ctx, view, String(resolved.content ?? ''));
      return {
        kind: 'html',
        template: 'cms/page',
        data: { heading: String(resolved.content_heading || title), content_html: contentHtml, is_home: path === '/' },
        contentHtml,
        meta: {
          title: String(resolved.meta_title || title),
          description: resolved.meta_description ? String(resolved.meta_description) : undefined,
          canonicalPath: ctx.href(path, view),
          robots: resolved.meta_robots ? String(resolved.meta_robots) : undefined,
          type: 'website',
          updateTime: String(resolved.update_time),
          alternates: await alternatesOf(ctx, page, homes),
        },
      };
    },

    async *inventory(ctx, view) {
      const homes = new Map<string, Promise<PageKey | undefined>>();
      let after = '';
      for (;;) {
        // Keyset pages by primary key order: each read is bounded and indexed, however many pages there are.
        const rows = await activePageKeysAfter(db, dialect, ctx.website.id, ctx.website.accountId, after, INVENTORY_PAGE);
        for (const page of rows.map(keyOf)) {
          if (!visible(page, view)) continue;
          const resolved = await pages.read({ websiteId: ctx.website.id, accountId: ctx.website.accountId, id: page.id, viewId: view.id }).catch(notFoundAsUndefined);
          if (!resolved || resolved.is_visible !== true) continue;
          yield {
            kind: 'page',
            path: siteHref(view, await pathIn(ctx, view, page, homes)),
            title: String(resolved.meta_title || resolved.title || ''),
            description: resolved.meta_description ? String(resolved.meta_description) : undefined,
            updateTime: String(resolved.update_time),
            viewId: view.id,
            noindex: String(resolved.meta_robots ?? '').startsWith('NOINDEX'),
            alternates: await alternatesOf(ctx, page, homes),
          };
        }
        if (rows.length < INVENTORY_PAGE) return;
        after = rows[rows.length - 1].id;
      }
    },
  };
  return reader;
}

const URL_KEY_RE = new RegExp(URL_KEY_PATTERN);

/** A row deleted between the key read and the resolution reads as absent (the site's 404). */
function notFoundAsUndefined(err: unknown): undefined {
  if (err instanceof NotFound) return undefined;
  throw err;
}

/**
 * The CMS on the rendered site: `/` is the view's home page, `/*` a page by `url_key` (which may
 * hold `/`), both in the view the path's prefix chose; `inventory` lists every visible page.
 */
export function cmsSite(deps: AreaDeps): SiteContribution {
  const reader = cmsSiteReader(deps.database);
  // The site's dependencies arrive with `routes` (registration), before any page is served.
  let site: SiteDeps | undefined;
  /** The page's media-library images made responsive (srcset, sizes, dimensions, lazy); its Markdown twin keeps the stored HTML. */
  const responsive = async (ctx: SitePageContext, page: SitePage | undefined) => {
    if (page?.kind === 'html' && typeof page.data.content_html === 'string') page.data.content_html = await responsiveContentImages(deps, ctx.website.id, page.data.content_html);
    return page;
  };
  return {
    templates: {
      // The view's home page opens with its heading and the site's tagline, then what other areas add (the blog's newest posts).
      'cms/page': `{% layout 'layout' %}{% block content %}{% if is_home %}<section class="hero"><h1>{{ heading }}</h1>{% if site.tagline != "" %}<p class="tagline">{{ site.tagline }}</p>{% endif %}{% if content_html != "" %}<div class="prose cms-content">{{ content_html | raw }}</div>{% endif %}</section>
{% if home.posts.size > 0 %}<section aria-labelledby="home-posts"><div class="section-head"><h2 id="home-posts">{{ home.posts_heading }}</h2><a href="{{ home.blog_href }}">{{ home.all_posts_label }}</a></div>
<ul class="cards cards-lead">{% for post in home.posts %}<li>{% render 'card', post: post, level: 3, lead: forloop.first %}</li>{% endfor %}</ul></section>{% endif %}
{% else %}<article class="cms-page"><div class="prose"><h1>{{ heading }}</h1>
<div class="cms-content">{{ content_html | raw }}</div></div></article>{% endif %}{% endblock %}`,
    },
    pages: [
      {
        pattern: '/',
        async handler(ctx) {
          const page = await responsive(ctx, await reader.page(ctx, null));
          if (page?.kind === 'html' && page.data.is_home && site) page.data.home = await site.home(ctx);
          return page;
        },
      },
      { pattern: '/*', handler: async (ctx) => responsive(ctx, await reader.page(ctx, (ctx.params['*'] ?? '').replace(/\/+$/, ''))) },
    ],
    inventory: (ctx, view) => reader.inventory(ctx, view),
    routes(_app, siteDeps) {
      site = siteDeps;
    },
  };
}
