import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip as gzipCallback } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { Liquid } from 'liquidjs';
import type { AreaDeps, SiteContext, SiteContribution, SiteDeps, SiteEntry, SiteHtmlPage, SitePage, SitePageContext, SitePageHandler, SiteScript, SiteSettings, SiteView } from '../platform/area.js';
import { TtlCache } from '../platform/cache.js';
import type { Db } from '../platform/db/schema.js';
import { viewsInCreationOrder } from '../views/index.js';
import { MethodNotAllowed, NotFound } from '../platform/errors.js';
import { sendError, toApiError, type RouteTable } from '../platform/http/errors.js';
import type { SiteChrome } from './chrome.js';
import { readSiteChrome } from './chrome.js';
import { agentsContribution } from './agents/agents.site.js';
import { derivedDescription, designContribution, structuredData } from './design.js';
import { approximateTokens, MARKDOWN_TWINS_SETTING, markdownPathOf, markdownTwin, wantsMarkdown } from './agents/markdown.js';
import { contentSignal } from './agents/signals.js';
import type { SiteHosts } from './hosts.js';
import { registerSiteTags, siteRenderGlobals } from './liquid-tags.js';
import { readSiteSettings } from '../settings/index.js';
import { sitemapContribution } from './sitemap.js';
import { CORE_TEMPLATES, errorHtml, maintenanceHtml, UNKNOWN_HOST_HTML } from './templates.js';
import type { SiteVersions } from './versions.js';
import { themePreviewContribution, themePreviewScript, wantsThemePreview } from '../theme/index.js';

/** Website setting that opens or closes the whole site (`LIVE`, `MAINTENANCE`, `PASSWORD_PROTECTED`). */
export const SITE_STATUS_SETTING = 'general.site.status';
/** `Retry-After` of a site in maintenance: crawlers come back in ten minutes. */
export const MAINTENANCE_RETRY_AFTER_S = 600;
const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);
/** Longest request path a site answers (longer: 414). */
export const MAX_SITE_PATH_LENGTH = 2048;
/** Bytes of renderings kept per process (all websites together), oldest evicted first. */
export const PAGE_CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** A rendering larger than this is served but not kept (one huge page must not evict a site's worth). */
const PAGE_CACHE_MAX_ENTRY_BYTES = 1024 * 1024;
/** A rendering is keyed by the content version, so it can live long; the bound is memory, not staleness. */
const PAGE_CACHE_TTL_MS = 10 * 60_000;

/**
 * Content Security Policy of every HTML answer: nothing but the site itself (no inline script at
 * all; inline style for the theme's CSS variables only; images also from the platform's public
 * media read, https and data: URLs, which stored content may reference). Framed by itself and by
 * the admin (`adminOrigin`: the page and post editors' preview).
 */
export const siteCsp = (mediaOrigin: string, adminOrigin?: string) =>
  `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' ${mediaOrigin} https: data:; font-src 'self' https:; ` +
  `object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'${adminOrigin ? ` ${adminOrigin}` : ''}`;

/** What a site answer costs to keep: the rendered bytes and their headers. */
interface CachedAnswer {
  status: number;
  contentType: string;
  /** UTF-8 bytes, encoded once when rendered: a cache hit sends them as they are. */
  body: Buffer;
  etag: string;
  /** Extra headers of the answer (`Link` to the Markdown twin, token count, content signals). */
  headers: Record<string, string>;
  /** The body compressed, per content coding, made on the first request that accepts it (`precompressed`). */
  encoded?: Partial<Record<Precoding, Promise<Buffer>>>;
}

/** The views a website's site serves (active ones and the default), the default first. */
export async function readSiteViews(db: Db, websiteId: string): Promise<SiteView[]> {
  const rows = await viewsInCreationOrder(db, websiteId);
  const truthy = (v: unknown) => v === true || v === 1;
  return rows
    .filter((r) => truthy(r.is_active) || truthy(r.is_default))
    .map((r) => ({
      id: r.id,
      displayName: r.display_name,
      locale: r.locale,
      urlPrefix: truthy(r.is_default) ? '' : (r.url_prefix ?? ''),
      isDefault: truthy(r.is_default),
      fallbackViewId: r.fallback_view_id ?? null,
    }))
    .sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
}

/** Per (website, version, view): the settings and chrome every page of the view needs. */
interface ViewState {
  settings: SiteSettings;
  chrome: SiteChrome;
}

/** A website under one content version: its views, and each view's state once asked for. */
interface Snapshot {
  version: number;
  views: Promise<SiteView[]>;
  /** `views` once read. */
  list?: SiteView[];
  states: Map<string, Promise<ViewState>>;
  /** `states` once read. */
  ready: Map<string, ViewState>;
}
const SNAPSHOT = Symbol('siteSnapshot');
type SnapshotCarrier = { [SNAPSHOT]?: Snapshot };

/**
 * The rendered websites (docs/architecture.md, "Rendered websites"): every request whose `Host`
 * the site constraint claims (hosts.ts) is answered here, never by the tenant surfaces.
 *
 * Request path: constraint (host → site) → onRequest (website, content version, active views,
 * visitor) → a route: the view dispatcher `GET /*` (first path segment → view, the rest → the
 * site pages areas contribute, rendered in the layout and cached per (website, version, origin, view,
 * customer groups, path)) or a root route an area contributes (`/robots.txt`, forms, `/mcp`).
 */
export async function registerSiteSurface(
  app: FastifyInstance,
  opts: { deps: AreaDeps; hosts: SiteHosts; versions: SiteVersions; contributions: SiteContribution[]; routes: RouteTable },
): Promise<SiteDeps> {
  const { deps, hosts, versions } = opts;
  // The core's own contributions after the areas': the sitemap and the agent surface (robots.txt, llms.txt, read API, /mcp, …).
  const contributions = [...opts.contributions, sitemapContribution(), agentsContribution(), designContribution(), themePreviewContribution()];
  const { database } = deps;
  const db = database.db;
  const csp = siteCsp(new URL(deps.config.publicBaseUrl).origin, new URL(deps.config.adminBaseUrl).origin);

  const liquid = new Liquid({
    templates: Object.assign({}, CORE_TEMPLATES, ...contributions.map((c) => c.templates ?? {})),
    outputEscape: 'escape',
    strictFilters: true,
    ownPropertyOnly: true,
    cache: true,
    extname: '',
  });
  registerSiteTags(liquid, database);

  const pageRouter = FindMyWay<FindMyWay.HTTPVersion.V1>({ ignoreTrailingSlash: true, maxParamLength: 500 });
  for (const contribution of contributions) {
    // The router only matches paths: each route's page handler rides in its store.
    for (const page of contribution.pages ?? []) pageRouter.on('GET', page.pattern, () => {}, { handler: page.handler });
  }

  const snapshots = new TtlCache<string, Snapshot>(20_000, PAGE_CACHE_TTL_MS);
  const pages = createPageCache(PAGE_CACHE_MAX_BYTES, PAGE_CACHE_TTL_MS);

  const readViews = (websiteId: string) => readSiteViews(db, websiteId);

  /**
   * The website's snapshot under `version`: one map hit per request (the context carries it on),
   * where per-view keys built for every lookup cost more than the rest of a cached page's work.
   */
  function snapshotOf(websiteId: string, version: number): Snapshot {
    const known = snapshots.get(websiteId);
    if (known && known.version === version) return known;
    const snapshot: Snapshot = { version, views: readViews(websiteId), states: new Map(), ready: new Map() };
    snapshot.views.then(
      (list) => (snapshot.list = list),
      () => snapshots.get(websiteId) === snapshot && snapshots.delete(websiteId),
    );
    // A request still reading under an older version (a newer one was read meanwhile) does not evict the newer.
    if (!known || known.version < version) snapshots.set(websiteId, snapshot);
    return snapshot;
  }

  function viewState(ctx: SiteContext, view: SiteView): Promise<ViewState> {
    const snapshot = (ctx as SnapshotCarrier)[SNAPSHOT] ?? snapshotOf(ctx.website.id, ctx.version);
    let state = snapshot.states.get(view.id);
    if (!state) {
      state = (async () => {
        const settings = await readSiteSettings(database, ctx.website.id, view.id);
        const chrome = await readSiteChrome(deps, ctx, view, settings);
        return { settings, chrome };
      })();
      snapshot.states.set(view.id, state);
      const loading = state;
      loading.then(
        (ready) => snapshot.ready.set(view.id, ready),
        () => snapshot.states.get(view.id) === loading && snapshot.states.delete(view.id),
      );
    }
    return state;
  }

  const visitorOf = contributions.find((c) => c.visitor)?.visitor;

  const siteDeps: SiteDeps = {
    ...deps,
    siteOf(request) {
      if (!request.site) throw new Error('not a site request');
      return request.site;
    },
    render: (request, page, view) => renderHtml(request, siteDeps.siteOf(request), page, view ?? siteDeps.siteOf(request).defaultView),
    settings: (ctx, view) => viewState(ctx, view).then((s) => s.settings),
    async *inventory(ctx, view) {
      for (const contribution of contributions) if (contribution.inventory) yield* contribution.inventory(ctx, view);
    },
    search: contributions.find((c) => c.search)?.search,
    async home(ctx) {
      const parts = await Promise.all(contributions.map((c) => c.home?.(ctx)));
      return Object.assign({}, ...parts.filter(Boolean));
    },
  };

  const adminOrigin = new URL(deps.config.adminBaseUrl).origin;
  // First-party scripts of the contributions, from settings that are website-wide (not view-overridable).
  const layoutScripts = (settings: SiteSettings, extra: SiteScript[] = []) =>
    [...contributions.flatMap((c) => c.scripts?.(settings) ?? []), ...extra].map((s) => ({ src: s.src, data: Object.entries(s.data ?? {}).map(([name, value]) => ({ name, value })) }));

  const href = (view: SiteView, path: string) => (view.urlPrefix ? `/${view.urlPrefix}${path === '/' ? '' : path}` : path);

  async function renderHtml(request: FastifyRequest, ctx: SiteContext, page: SiteHtmlPage, view: SiteView): Promise<string> {
    const { settings, chrome } = await viewState(ctx, view);
    const name = String(settings.get('general.site.name') || ctx.website.displayName);
    const suffix = String(settings.get('seo.default_title_suffix') ?? '');
    const viewById = new Map(ctx.views.map((v) => [v.id, v]));
    const alternates = Object.entries(page.meta.alternates ?? {})
      .filter(([id]) => viewById.has(id))
      .map(([id, path]) => ({ hreflang: viewById.get(id)!.locale, url: `${ctx.origin}${path}` }));
    const searchPath = siteDeps.search && settings.get('search.enabled') !== false ? href(view, '/search') : undefined;
    const tagline = String(settings.get('general.site.tagline') ?? '');
    // Every page gets a description (search results, link previews): its own, else the start of its content, else the tagline.
    const description = page.meta.description || derivedDescription(page.contentHtml) || tagline || undefined;
    return liquid.renderFile(page.template, {
      ...page.data,
      site: {
        name,
        tagline,
        origin: ctx.origin,
        home_path: href(view, '/'),
        // The header's search form, while the website serves search (search.enabled).
        search_path: searchPath,
        skip_label: 'Skip to content',
        menu_label: 'Menu',
        search_label: 'Search',
        language_label: 'Language',
        year: new Date(ctx.now).getUTCFullYear(),
        views: ctx.views.map((v) => ({ id: v.id, locale: v.locale, display_name: v.displayName, home_path: href(v, '/') })),
        // The admin's theme preview frames a page with ?theme_preview=1 (src/theme/theme-preview.site.ts).
        scripts: layoutScripts(settings, wantsThemePreview(request.query as Record<string, string>) ? [themePreviewScript(adminOrigin)] : []),
      },
      view: { id: view.id, locale: view.locale, display_name: view.displayName, url_prefix: view.urlPrefix },
      page: {
        ...page.meta,
        full_title: suffix && page.meta.title !== name ? `${page.meta.title} ${suffix}` : page.meta.title,
        description,
        canonical_url: `${ctx.origin}${page.meta.canonicalPath}`,
        markdown_url: page.meta.markdownPath ? `${ctx.origin}${page.meta.markdownPath}` : undefined,
        type: page.meta.type ?? 'website',
        robots: robotsOf(page.meta.robots, settings),
        alternates,
        json_ld: structuredData({ origin: ctx.origin, siteName: name, view, homePath: href(view, '/'), searchPath, meta: page.meta }),
      },
      chrome,
      // Whether someone is signed in, never who: shared renderings are cached per customer groups.
      visitor: ctx.visitor ? { signed_in: true } : null,
    }, { globals: siteRenderGlobals(ctx, view) });
  }

  await app.register(async (site) => {
    site.addHook('onRoute', (route) => {
      route.constraints = { ...(route.constraints ?? {}), site: 'site' };
    });
    site.decorateRequest('site', null);

    site.addHook('onRequest', async (request, reply) => {
      const host = hosts.hostOf(request.raw)!;
      // What is known in memory is used without an await (each costs a turn of the microtask queue).
      const website = hosts.known(host) ?? (await hosts.website(host));
      if (!website || !website.ready) {
        return reply.code(404).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(UNKNOWN_HOST_HTML);
      }
      const now = Date.now();
      const version = versions.known(website.id, now) ?? (await versions.current(website.id, now));
      const snapshot = snapshotOf(website.id, version);
      const views = snapshot.list ?? (await snapshot.views);
      if (views.length === 0) return reply.code(404).type('text/html; charset=utf-8').send(UNKNOWN_HOST_HTML);
      const port = /:(\d{1,5})$/.exec(request.headers.host ?? '')?.[1];
      const site: SiteContext & SnapshotCarrier = {
        website,
        host,
        origin: `${request.protocol}://${host.hostname}${port ? `:${port}` : ''}`,
        version,
        views,
        defaultView: views[0],
        now,
        // A symbol: copied along when a page context spreads this one, left out of JSON and templates.
        [SNAPSHOT]: snapshot,
      };
      request.site = site;
      // `general.site.status` (website-wide): anything but LIVE closes every route of the site.
      // PASSWORD_PROTECTED has no password setting to check yet, so it answers like MAINTENANCE.
      const { settings } = snapshot.ready.get(site.defaultView.id) ?? (await viewState(site, site.defaultView));
      if ((settings.get(SITE_STATUS_SETTING) ?? 'LIVE') !== 'LIVE') {
        const name = String(settings.get('general.site.name') || website.displayName);
        const { chrome } = await viewState(request.site, request.site.defaultView);
        return reply
          .code(503)
          .header('retry-after', String(MAINTENANCE_RETRY_AFTER_S))
          .header('cache-control', 'no-store')
          .type('text/html; charset=utf-8')
          .send(maintenanceHtml(name, request.site.defaultView.locale, chrome.css));
      }
      if (visitorOf) request.site.visitor = await visitorOf(request, request.site);
    });

    // Synchronous (with `done`): this runs on every answer of the site, and a promise per hook adds up.
    site.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-content-type-options', 'nosniff');
      if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'strict-origin-when-cross-origin');
      if (String(reply.getHeader('content-type') ?? '').startsWith('text/html')) {
        reply.header('content-security-policy', csp);
        reply.header('x-frame-options', 'SAMEORIGIN');
      }
      done(null, payload);
    });

    // HTML for people; routes that answer JSON (read API, /mcp) mark `config.siteJson` and get the canonical body.
    site.setErrorHandler((err: FastifyError, request, reply) => {
      const apiError = toApiError(err);
      if (apiError.httpCode >= 500) request.log.error({ err, request_id: request.id }, 'site request failed');
      if ((request.routeOptions.config as { siteJson?: boolean } | undefined)?.siteJson) throw err;
      // A plugin's own client error (403 of a CSRF check, 415, 413) keeps its status on an HTML page.
      const own = (err as { statusCode?: number }).statusCode;
      const status = own !== undefined && own >= 400 && own < 500 && !(err instanceof Error && 'validation' in err) ? own : apiError.httpCode;
      return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(errorHtml(status, request.id));
    });

    for (const contribution of contributions) await contribution.routes?.(site, siteDeps);

    site.route({ method: ['GET', 'HEAD'], url: '/*', handler: (request, reply) => dispatch(request, reply) });
    // Every other method the router knows; methods it does not (PROPFIND) reach siteFallback below.
    site.route({
      method: app.supportedMethods.filter((m) => !['GET', 'HEAD', 'OPTIONS'].includes(m)),
      url: '/*',
      config: { refusesOnly: true },
      handler: (request, reply) => methodNotAllowed(request, reply),
    });
  });

  /**
   * 405 in the site's own shape, with the Allow of what the site serves at the path: the canonical
   * JSON error (status UNIMPLEMENTED) where a JSON route lives (`/_site/event`, the read API, `/mcp`),
   * else the site's HTML error page.
   */
  function methodNotAllowed(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const path = request.url.split('?', 1)[0];
    const { allow, json } = opts.routes.siteAllowed(path);
    if (json) return sendError(allow.length ? new MethodNotAllowed(request.method, path, allow) : new NotFound(`no route ${request.method} ${path}`), request, reply);
    return reply.code(405).header('allow', allow.join(', ')).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(errorHtml(405, request.id));
  }

  opts.routes.siteFallback = async (request, reply) => {
    // The router never asked the site constraint about a method it does not route: ask it here.
    const site = await new Promise<string | undefined>((resolve) => hosts.constraint.deriveConstraint(request.raw, undefined, (_err, value) => resolve(value)));
    return site === 'site' ? methodNotAllowed(request, reply) : undefined;
  };

  /** `GET /*`: the view by the first segment, then the contributed site page, through the page cache. */
  async function dispatch(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const ctx = request.site!;
    const [rawPath, rawQuery = ''] = request.url.split('?', 2);
    if (rawPath.length > MAX_SITE_PATH_LENGTH) return notFound(request, reply, ctx.defaultView, 414);
    let path: string;
    try {
      path = rawPath.includes('%') ? decodeURIComponent(rawPath) : rawPath;
    } catch {
      return notFound(request, reply, ctx.defaultView, 400);
    }
    // No traversal, no control characters, no backslashes: such a path names nothing on a site.
    if (/[\u0000-\u001f\u007f\\]/.test(path) || path.split('/').some((s) => s === '..' || s === '.')) return notFound(request, reply, ctx.defaultView, 400);

    // `{path}.md` is the Markdown twin of `{path}` (`/index.md` of a view's home page).
    let markdown = false;
    let namedTwin = false;
    if (path.endsWith('.md') && path.length > 4 && !path.endsWith('/.md')) {
      markdown = namedTwin = true;
      path = path.slice(0, -3);
      if (path.endsWith('/index')) path = path.slice(0, -'/index'.length) || '/';
    }
    const first = path.split('/')[1] ?? '';
    const prefixed = first !== '' ? ctx.views.find((v) => !v.isDefault && v.urlPrefix === first) : undefined;
    const view = prefixed ?? ctx.defaultView;
    const inView = prefixed ? path.slice(first.length + 1) || '/' : path;
    const { settings } = (ctx as SnapshotCarrier)[SNAPSHOT]?.ready.get(view.id) ?? (await viewState(ctx, view));
    const twins = settings.get(MARKDOWN_TWINS_SETTING) !== false;
    if (markdown && !twins) return notFound(request, reply, view, 404);
    markdown ||= twins && wantsMarkdown(request.headers.accept);

    const query: Record<string, string> = rawQuery ? Object.fromEntries(new URLSearchParams(rawQuery)) : {};
    const groups = ctx.visitor ? [...ctx.visitor.groupIds].sort().join(',') : '-';
    // Only the parameters site pages read make renderings differ; others would only fill the cache.
    // The origin too: renderings hold absolute URLs (canonical, feeds, llms.txt) of the Host asked
    // (custom domain or platform host, scheme, port), which must not reach visitors of another.
    const cacheKey = `${ctx.website.id}|${ctx.version}|${ctx.origin}|${view.id}|${groups}|${inView}|${query.page ?? ''}|${wantsThemePreview(query) ? 'preview' : ''}|${namedTwin ? 'md' : markdown ? 'accept-md' : 'html'}`;
    const hit = pages.get(cacheKey);
    if (hit) return sendAnswer(request, reply, hit, true, true);

    const found = pageRouter.find('GET', inView);
    let page: SitePage | undefined;
    if (found) {
      const pageCtx: SitePageContext = {
        ...ctx,
        view,
        path: inView,
        params: Object.fromEntries(Object.entries(found.params).map(([k, v]) => [k, String(v ?? '')])),
        query,
        href: (p, v = view) => href(v, p),
      };
      page = await (found.store as { handler: SitePageHandler }).handler(pageCtx);
    }
    if (!page) return notFound(request, reply, view, 404);
    if (markdown && (page.kind !== 'html' || page.contentHtml === undefined)) {
      // No twin: a `{path}.md` names nothing; `Accept: text/markdown` (a preference) gets the answer
      // as it is (llms.txt, feeds, listings), as agents that prefer Markdown ask for everything.
      if (namedTwin) return notFound(request, reply, view, 404);
      markdown = false;
    }

    let answer: CachedAnswer;
    if (page.kind === 'raw') {
      answer = { status: page.status ?? 200, contentType: page.contentType, body: Buffer.from(page.body), etag: '', headers: {} };
    } else if (markdown) {
      const body = await markdownTwin(ctx, page);
      answer = {
        status: page.status ?? 200,
        contentType: 'text/markdown; charset=utf-8',
        body: Buffer.from(body),
        etag: '',
        headers: { 'x-markdown-tokens': String(approximateTokens(body)), link: `<${ctx.origin}${page.meta.canonicalPath}>; rel="canonical"`, ...agentHeaders(settings) },
      };
    } else {
      const markdownPath = twins && page.contentHtml !== undefined ? markdownPathOf(page.meta.canonicalPath) : undefined;
      if (markdownPath) page.meta = { ...page.meta, markdownPath };
      answer = {
        status: page.status ?? 200,
        contentType: 'text/html; charset=utf-8',
        body: Buffer.from(await renderHtml(request, ctx, page, view)),
        etag: '',
        headers: markdownPath ? { link: `<${ctx.origin}${markdownPath}>; rel="alternate"; type="text/markdown"` } : {},
      };
    }
    answer.etag = `W/"${createHash('sha256').update(answer.body).digest('base64url').slice(0, 22)}"`;
    const kept = page.shared !== false && answer.status === 200;
    if (kept) pages.set(cacheKey, answer);
    return sendAnswer(request, reply, answer, page.shared !== false, kept);
  }

  /** `kept`: the answer is in the page cache (only those keep compressed bodies; the plugin compresses the others). */
  async function sendAnswer(request: FastifyRequest, reply: FastifyReply, answer: CachedAnswer, shared: boolean, kept: boolean): Promise<FastifyReply> {
    const coding = kept ? precoding(answer, request.headers['accept-encoding']) : null;
    // `accept-encoding` as the compress plugin writes it (it adds its own otherwise).
    reply.header('etag', answer.etag).header('vary', coding === null ? 'Accept, Cookie' : 'Accept, Cookie, accept-encoding').headers(answer.headers);
    reply.header('cache-control', shared && !request.site?.visitor ? 'public, max-age=0, must-revalidate' : 'private, no-cache');
    if (answer.status === 200 && request.headers['if-none-match'] === answer.etag) return reply.code(304).send();
    reply.code(answer.status).type(answer.contentType);
    // A rendering is sent compressed as it was compressed once (the compress plugin would do it again
    // on every request, which costs more than the rest of a cached page); same ETag, as a weak one may.
    if (coding === 'br' || coding === 'gzip') return reply.header('content-encoding', coding).send(await precompressed(answer, coding));
    return reply.send(answer.body);
  }

  async function notFound(request: FastifyRequest, reply: FastifyReply, view: SiteView, status: number): Promise<FastifyReply> {
    const html = await renderHtml(request, request.site!, {
      kind: 'html',
      template: 'not-found',
      data: {
        code: status,
        heading: status === 404 ? 'Page not found' : 'Bad request',
        message: status === 404 ? 'There is nothing at this address. It may have moved, or the link may be mistyped.' : 'There is nothing at this address.',
        home_label: 'Go to the home page',
      },
      meta: { title: status === 404 ? 'Page not found' : 'Bad request', canonicalPath: href(view, '/'), robots: 'NOINDEX_NOFOLLOW' },
    }, view);
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  }

  return siteDeps;
}

/**
 * Renderings by key, bounded by their total size in bytes (a count bound would let 5 000 pages of
 * 500 kB each hold gigabytes); a hit moves the entry to the young end, the oldest go first.
 */
function createPageCache(maxBytes: number, ttlMs: number) {
  const entries = new Map<string, { answer: CachedAnswer; bytes: number; expires: number }>();
  let total = 0;
  const drop = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    total -= entry.bytes;
  };
  return {
    get(key: string, now = Date.now()): CachedAnswer | undefined {
      const entry = entries.get(key);
      if (!entry) return undefined;
      drop(key);
      if (entry.expires <= now) return undefined;
      entries.set(key, entry);
      total += entry.bytes;
      return entry.answer;
    },
    set(key: string, answer: CachedAnswer, now = Date.now()): void {
      // Half the body again for the compressed copies a hit may add later (br and gzip of HTML: ~15–25 % each).
      const bytes = Math.ceil(answer.body.length * 1.5) + key.length * 2 + 256;
      if (bytes > PAGE_CACHE_MAX_ENTRY_BYTES) return;
      drop(key);
      entries.set(key, { answer, bytes, expires: now + ttlMs });
      total += bytes;
      for (const oldest of entries.keys()) {
        if (total <= maxBytes) break;
        drop(oldest);
      }
    },
  };
}

/** Content codings a cached answer keeps its body in; deflate (which no browser prefers) is left to the compress plugin. */
type Precoding = 'br' | 'gzip';
/** The compress plugin's codings (app.ts), in its order of preference. */
const CODINGS = ['br', 'gzip', 'deflate'] as const;
type Coding = (typeof CODINGS)[number];
/** What the compress plugin would compress (app.ts): text, JSON and XML answers of 1 KiB and more. */
const COMPRESSIBLE_TYPE = /^text\/(?!event-stream)|[+/](?:json|xml|text)(?:;|$)/;
const COMPRESS_THRESHOLD_BYTES = 1024;
/** Brotli's best quality costs ~25× its fast one, paid once per rendering; past this size, a faster one. */
const BROTLI_BEST_MAX_BYTES = 128 * 1024;
/** Accept-Encoding header → the coding to send (`undefined`: identity), as the compress plugin negotiates it. */
const negotiatedCodings = new Map<string, Coding | undefined>();

/**
 * The coding a cached answer goes out in: `null` when the answer is never compressed (small, or of a
 * type the compress plugin leaves alone; Vary stays as it was), `undefined` for identity, else the
 * coding the compress plugin would choose.
 */
function precoding(answer: CachedAnswer, acceptEncoding: string | undefined): Coding | undefined | null {
  if (answer.body.length < COMPRESS_THRESHOLD_BYTES || !COMPRESSIBLE_TYPE.test(answer.contentType)) return null;
  if (acceptEncoding === undefined) return undefined;
  if (negotiatedCodings.has(acceptEncoding)) return negotiatedCodings.get(acceptEncoding);
  // The plugin's own negotiator and preference order (br, then gzip), x-gzip and `*` as it reads them.
  const chosen = negotiate(acceptEncoding.toLowerCase().replace(/\*|x-gzip/g, 'gzip'), [...CODINGS]);
  // A client sending ever new headers must not grow the process: the memo starts over past a bound.
  if (negotiatedCodings.size >= 1_000) negotiatedCodings.clear();
  negotiatedCodings.set(acceptEncoding, chosen ?? undefined);
  return chosen ?? undefined;
}

/** The answer's body in `coding`, compressed off the event loop once and kept with the cached answer. */
function precompressed(answer: CachedAnswer, coding: Precoding): Promise<Buffer> {
  answer.encoded ??= {};
  let encoded = answer.encoded[coding];
  if (!encoded) {
    const size = answer.body.length;
    encoded =
      coding === 'br'
        ? brotli(answer.body, { params: { [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT, [zlib.BROTLI_PARAM_QUALITY]: size <= BROTLI_BEST_MAX_BYTES ? 11 : 5, [zlib.BROTLI_PARAM_SIZE_HINT]: size } })
        : gzip(answer.body, { level: 9 });
    answer.encoded[coding] = encoded;
    const kept = encoded;
    kept.catch(() => answer.encoded?.[coding] === kept && delete answer.encoded[coding]);
  }
  return encoded;
}

/** Headers every answer meant for agents carries: the site's content signals (contentsignals.org). */
function agentHeaders(settings: SiteSettings): Record<string, string> {
  return { 'content-signal': contentSignal(settings) };
}

/** `INDEX_FOLLOW` → `index, follow`; a site that may not be indexed says `noindex` everywhere. */
function robotsOf(stored: string | undefined, settings: SiteSettings): string | undefined {
  const allow = settings.get('seo.robots.allow_indexing') !== false;
  const [index, follow] = (stored ?? 'INDEX_FOLLOW').toLowerCase().split('_');
  return `${allow ? index : 'noindex'}, ${follow}`;
}

export type { SiteEntry };
