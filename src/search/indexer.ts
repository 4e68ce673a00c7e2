import { BLOG_RESOLVER_SPECS, htmlToText, livePostByUrlKey, postPathOf } from '../blog/index.js';
import { cmsSiteReader, createResolver } from '../cms/index.js';
import type { AreaDeps, SiteContext, SitePageContext, SiteView } from '../platform/area.js';
import { NotFound } from '../platform/errors.js';
import { siteHref } from '../platform/site-context.js';
import { createSiteVersions, readSiteViews, siteWebsiteOf } from '../site/index.js';
import { siteWebsiteRow } from '../websites/index.js';
import {
  blockIdentifiersOf,
  pendingGenerations,
  replaceDocuments,
  urlKeysOf,
  type SearchDocument,
  type SourceKind,
} from './search.repo.js';

/** Characters of plain text kept per document (the rest of a very long page is not searchable). */
export const MAX_BODY_CHARS = 100_000;
/** Sources read side by side while indexing a batch (bounded: the database's pool, not the batch, sets the pace). */
const READ_CONCURRENCY = 8;

/** PostgreSQL text search configurations by ISO 639-1 language (the ones PostgreSQL ships); others read as `simple`. */
const CONFIG_BY_LANGUAGE: Record<string, string> = {
  ar: 'arabic', hy: 'armenian', eu: 'basque', ca: 'catalan', da: 'danish', nl: 'dutch', en: 'english', fi: 'finnish', fr: 'french', de: 'german',
  el: 'greek', hi: 'hindi', hu: 'hungarian', id: 'indonesian', ga: 'irish', it: 'italian', lt: 'lithuanian', ne: 'nepali', nb: 'norwegian',
  nn: 'norwegian', no: 'norwegian', pt: 'portuguese', ro: 'romanian', ru: 'russian', sr: 'serbian', es: 'spanish', sv: 'swedish', ta: 'tamil',
  tr: 'turkish', yi: 'yiddish',
};

/** The text search configuration of a view's locale (`de-CH` → `german`), `simple` when PostgreSQL has none for it. */
export function textSearchConfig(locale: string): string {
  return CONFIG_BY_LANGUAGE[locale.toLowerCase().split(/[-_]/)[0]] ?? 'simple';
}

/** Plain text of sanitised HTML for the index: no markup, no search-mark characters, bounded. */
function plain(html: string): string {
  return htmlToText(html).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ').slice(0, MAX_BODY_CHARS);
}

/** Runs `fn` over `items` with at most `limit` in flight. */
async function eachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

export interface Indexer {
  /**
   * Indexes the pages or posts `ids` of a website again in every view the site serves, reading them
   * through the site's own readers, and replaces their documents (`replaceDocuments`: sources a
   * write touched meanwhile are left to the drainer). Answers how many documents were written.
   */
  indexSources(websiteId: string, kind: SourceKind, ids: readonly string[]): Promise<number>;
}

/**
 * What the site shows of a page or post, as documents: pages through the CMS site reader (the page
 * the site serves at its path in the view, blocks expanded, the default version only, never a
 * customer group's), posts through the blog's live-post rule with `now` at the end of time (a
 * scheduled post is indexed with `live_from` = its publish_time, and found from then on) and the
 * `:resolve` resolution of its overlays. Pages that ask not to be indexed (`NOINDEX_*`) are left out.
 */
export function createIndexer(deps: AreaDeps): Indexer {
  const { database } = deps;
  const db = database.db;
  const { dialect } = database;
  const pages = cmsSiteReader(database);
  const posts = createResolver(database, BLOG_RESOLVER_SPECS.blog_posts);
  // Always the current content version: the CMS reader caches blocks per version.
  const versions = createSiteVersions(database, 0);

  async function siteOf(websiteId: string): Promise<SiteContext | undefined> {
    const row = await siteWebsiteRow(db, { id: websiteId });
    if (!row) return undefined;
    const website = siteWebsiteOf(row);
    const views = await readSiteViews(db, websiteId);
    if (views.length === 0) return undefined;
    const version = await versions.current(websiteId);
    return { website, host: { hostname: website.code, kind: 'platform', code: website.code }, origin: '', version, views, defaultView: views[0], now: Date.now() };
  }

  async function pageDocuments(ctx: SiteContext, id: string, now: number): Promise<SearchDocument[]> {
    const found: SearchDocument[] = [];
    for (const view of ctx.views) {
      // Where the site serves the page in this view (absent: inactive or invisible there).
      const path = (await pages.pagePaths(ctx, view, [id])).get(id);
      if (path === undefined) continue;
      const inView = view.urlPrefix ? path.slice(view.urlPrefix.length + 1) || '/' : path;
      const pageCtx: SitePageContext = { ...ctx, view, path: inView, params: {}, query: {}, href: (p: string, v: SiteView = view) => siteHref(v, p) };
      const page = await pages.page(pageCtx, inView === '/' ? null : inView.slice(1));
      if (!page || page.kind !== 'html' || page.meta.canonicalPath !== path) continue;
      if (String(page.meta.robots ?? '').startsWith('NOINDEX')) continue;
      const heading = typeof page.data.heading === 'string' ? page.data.heading : '';
      found.push(documentOf(ctx, view, 'page', id, path, page.meta.title, `${heading} ${plain(page.contentHtml ?? '')}`, now, Date.parse(page.meta.updateTime ?? '') || now));
    }
    return found;
  }

  async function postDocuments(ctx: SiteContext, id: string, urlKey: string, now: number): Promise<SearchDocument[]> {
    const found: SearchDocument[] = [];
    for (const view of ctx.views) {
      // The blog's live rule, at the end of time: PUBLISHED and visible in the view itself.
      const row = await livePostByUrlKey(db, dialect, { websiteId: ctx.website.id, viewId: view.id, now: Number.MAX_SAFE_INTEGER }, urlKey);
      if (!row || row.id !== id) continue;
      const resolved = await posts.read({ websiteId: ctx.website.id, accountId: ctx.website.accountId, id, viewId: view.id }).catch((err: unknown) => {
        if (err instanceof NotFound) return undefined;
        throw err;
      });
      if (!resolved) continue;
      const title = String(resolved.title ?? row.title ?? '');
      const body = `${plain(String(resolved.custom_excerpt ?? ''))} ${plain(String(resolved.content ?? ''))}`;
      found.push(documentOf(ctx, view, 'post', id, siteHref(view, postPathOf(urlKey)), title, body, Number(row.publish_time), Date.parse(String(resolved.update_time)) || now));
    }
    return found;
  }

  function documentOf(ctx: SiteContext, view: SiteView, kind: SourceKind, id: string, path: string, title: string, body: string, liveFrom: number, updateTime: number): SearchDocument {
    return {
      website_id: ctx.website.id,
      view_id: view.id,
      kind,
      source_id: id,
      path,
      title: title.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, ' ').slice(0, 1000),
      body: body.slice(0, MAX_BODY_CHARS),
      config: textSearchConfig(view.locale),
      live_from: liveFrom,
      update_time: updateTime,
    };
  }

  return {
    async indexSources(websiteId, kind, ids) {
      // Generations before reading: a write after this point moves them, and its source is left to the drainer.
      const read = await pendingGenerations(db, websiteId, kind, ids);
      const ctx = await siteOf(websiteId);
      const documents: SearchDocument[] = [];
      const now = Date.now();
      let blockUses: Map<string, Set<string>> | undefined;
      if (ctx) {
        if (kind === 'page') {
          blockUses = await blockIdentifiersOf(db, websiteId, ids);
          await eachBounded(ids, READ_CONCURRENCY, async (id) => void documents.push(...(await pageDocuments(ctx, id, now))));
        } else {
          const keys = await urlKeysOf(db, websiteId, kind, ids);
          await eachBounded([...keys], READ_CONCURRENCY, async ([id, urlKey]) => void documents.push(...(await postDocuments(ctx, id, urlKey, now))));
        }
      }
      let written: string[] = [];
      for (let attempt = 1; ; attempt++) {
        try {
          written = await db.transaction().execute((trx) => replaceDocuments(trx, dialect, { websiteId, kind, ids, read, documents, blockUses }));
          break;
        } catch (err) {
          // A content write held a row past the bounded wait (PostgreSQL): give way and try again shortly.
          if (!dialect.isTimeout(err) || attempt >= 5) throw err;
          await new Promise((r) => setTimeout(r, 50 * attempt));
        }
      }
      const kept = new Set(written);
      return documents.filter((d) => kept.has(d.source_id)).length;
    },
  };
}
