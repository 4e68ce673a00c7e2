/**
 * What a request of the rendered site knows and answers, as every area's site contribution sees it
 * (`Area.site`, platform/area.ts; src/site/site.surface.ts serves them). Here, below the areas, so an
 * area renders its pages without importing the site surface that imports it.
 */

/** What the site surface knows about the website a request's `Host` names. */
export interface SiteWebsite {
  id: string;
  accountId: string;
  code: string;
  displayName: string;
  defaultLanguage: string;
  timeZone: string;
  /** Provisioned and not failed: its default view and home page exist. */
  ready: boolean;
}

/** The host a site request came in on, decided before routing (`siteConstraint`, src/site/hosts.ts). */
export interface SiteHost {
  /** Lower-case host name without port and trailing dot. */
  hostname: string;
  /** `{code}.{PLATFORM_DOMAIN}` or a verified custom domain. */
  kind: 'platform' | 'custom';
  /** Set for `platform` hosts; the website is looked up by it. */
  code?: string;
  /** Set for `custom` hosts (the lookup that chose the site surface found it). */
  websiteId?: string;
}

/** A view of the website as the site serves it (active views only). */
export interface SiteView {
  id: string;
  displayName: string;
  locale: string;
  /** '' for the default view; else the first path segment the view answers under. */
  urlPrefix: string;
  isDefault: boolean;
  fallbackViewId: string | null;
}

/** The signed-in visitor, when there is one (set by the customers area's site routes). */
export interface SiteVisitor {
  customerId: string;
  displayName: string | null;
  email: string;
  /** Every group the customer is in (manual and dynamic), for `:resolve`'s customer-group versions. */
  groupIds: string[];
}

/**
 * What every site request knows once its website is resolved (`request.site`). Site page handlers
 * get it with the view chosen by the path's first segment.
 */
export interface SiteContext {
  website: SiteWebsite;
  host: SiteHost;
  /** `http(s)://{host}` as the visitor reached it; absolute URLs on the site start with it. */
  origin: string;
  /** The website's content version this request reads under (every cache key carries it). */
  version: number;
  /** Active views, the default first. */
  views: SiteView[];
  defaultView: SiteView;
  visitor?: SiteVisitor;
  now: number;
}

/** A site request inside one view: `/{url_prefix}/rest` → `view` and `path` = `/rest`. */
export interface SitePageContext extends SiteContext {
  view: SiteView;
  /** The path within the view, starting with `/` (no prefix, no `.md` suffix, no query). */
  path: string;
  /** Path parameters of the matched site page pattern. */
  params: Record<string, string>;
  /** Parsed query string (values are strings; a repeated key keeps its last value). */
  query: Record<string, string>;
  /** Site path of `path` in this view (prefix included), e.g. for canonical links. */
  href(path: string, view?: SiteView): string;
}

/** What a site page handler answers: a template rendered inside the site layout, or a raw body (feeds). */
export type SitePage = SiteHtmlPage | SiteRawAnswer;

export interface SiteHtmlPage {
  kind: 'html';
  status?: number;
  /** Name of a template some contribution registered (e.g. `cms/page`). */
  template: string;
  /** Variables of the template (escaped on output unless a template marks them `| raw`). */
  data: Record<string, unknown>;
  meta: SitePageMeta;
  /** The page's main content as sanitised HTML: what its Markdown twin is converted from. */
  contentHtml?: string;
  /**
   * Whether the rendering may be cached and shared between visitors of one customer group
   * (default true). Forms that carry a CSRF token or a visitor's own data say false.
   */
  shared?: boolean;
}

export interface SiteRawAnswer {
  kind: 'raw';
  status?: number;
  contentType: string;
  body: string;
  shared?: boolean;
}

export interface SitePageMeta {
  title: string;
  description?: string;
  /** Site path (prefix included) of the canonical URL; absolute URLs are built from the origin. */
  canonicalPath: string;
  /** `INDEX_FOLLOW`, `NOINDEX_FOLLOW`, … as pages store it. */
  robots?: string;
  /** Open Graph title and description when they differ from `title` / `description`. */
  ogTitle?: string;
  ogDescription?: string;
  /** An absolute canonical URL elsewhere (a post that first appeared on another site); else `canonicalPath` on this site. */
  canonicalUrl?: string;
  /** Absolute or site-relative URL of the social image, and its alt text. */
  image?: string;
  imageAlt?: string;
  /** The trail to the page for `BreadcrumbList` (site paths); default: the home page, then the page. */
  breadcrumbs?: Array<{ name: string; path: string }>;
  /** schema.org objects of the page itself (a post's `BlogPosting`), written as JSON-LD beside the site's own. */
  jsonLd?: Array<Record<string, unknown>>;
  /** `website` or `article`. */
  type?: 'website' | 'article';
  publishTime?: string;
  updateTime?: string;
  /** The same content in other views (for `hreflang`): view id → site path. */
  alternates?: Record<string, string>;
  /** Set by the dispatcher: site path of the page's Markdown twin when twins are on. */
  markdownPath?: string;
}

export type SitePageHandler = (ctx: SitePageContext) => Promise<SitePage | undefined>;

/** One published thing the site serves, for sitemap.xml, llms.txt and the read API. */
export interface SiteEntry {
  /** `page`, `post`, `category`, … */
  kind: string;
  /** Site path in its view (prefix included). */
  path: string;
  title: string;
  description?: string;
  updateTime: string;
  viewId: string;
  /** The entry asks search engines not to index it (`NOINDEX_*`): served and listed for agents, left out of sitemap.xml. */
  noindex?: boolean;
  /** The same entry in other views: view id → site path (hreflang alternates). */
  alternates?: Record<string, string>;
}

/** The site's ranked search, as the read API (`/api/v1/search`) and `/mcp` (`search` tool) call it. */
export interface SiteSearch {
  /** Whether the website serves search (`search.enabled`); when not, the endpoint answers 404 and the tool is absent. */
  enabled(ctx: SiteContext): Promise<boolean>;
  /**
   * One page of hits in the view, best first. INVALID_ARGUMENT naming `q` (empty, longer than 200
   * characters), `page_size` or `page_token`.
   */
  run(ctx: SiteContext, view: SiteView, query: { q?: unknown; page_size?: unknown; page_token?: unknown }): Promise<SiteSearchAnswer>;
}

export interface SiteSearchAnswer {
  results: SiteSearchHit[];
  next_page_token?: string;
}

/** A search hit; `title_html` and `snippet_html` are escaped text with `<mark>` around the matched words. */
export interface SiteSearchHit {
  kind: string;
  title: string;
  title_html: string;
  snippet_html: string;
  /** Site path in the view (prefix included). */
  path: string;
  url: string;
  view_id: string;
  update_time: string;
}

/** A script of the layout: a site path, and `data-{name}` attributes the script reads. */
export interface SiteScript {
  src: string;
  data?: Record<string, string>;
}

/** Every setting of a website as one view reads it: the view's override, else the website's value, else the default. */
export type SiteSettings = ReadonlyMap<string, unknown>;

/** Site path of `path` (within a view) in `view`: `/about` → `/de/about`; the home `/` → `/de`. */
export function siteHref(view: SiteView, path: string): string {
  return view.urlPrefix ? `/${view.urlPrefix}${path === '/' ? '' : path}` : path;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on every request of the site surface once its website is resolved. */
    site: SiteContext | null;
  }
}
