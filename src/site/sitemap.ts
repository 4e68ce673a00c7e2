import { createHash } from 'node:crypto';
import { TtlCache } from '../platform/cache.js';
import type { SiteContribution } from '../platform/area.js';

/** The sitemaps.org limits of one file: 50 000 URLs and 50 MB uncompressed. */
export const SITEMAP_MAX_URLS = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** Bodies kept per process (by website and content version); larger ones are rebuilt per request. */
const CACHE_MAX_BODY = 2 * 1024 * 1024;
const SITEMAP_CACHE_ENTRIES = 32;

const xml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * `GET /sitemap.xml`: every entry of every active view's inventory (all areas', `deps.inventory`),
 * with `xhtml:link rel="alternate" hreflang` for each view the same content is in, and `lastmod`.
 * One file, bounded by the sitemaps.org limits: entries past 50 000 URLs (or 50 MB) are left out
 * (docs/decisions.md, "Rendered websites: pages and chrome"). Cached per content version.
 */
export function sitemapContribution(): SiteContribution {
  // At most SITEMAP_CACHE_ENTRIES × CACHE_MAX_BODY bytes (64 MiB): sitemaps are read rarely, recomputing one is cheap.
  const cache = new TtlCache<string, { body: string; etag: string }>(SITEMAP_CACHE_ENTRIES, 10 * 60_000);
  return {
    routes(site, deps) {
      site.get('/sitemap.xml', async (request, reply) => {
        const ctx = deps.siteOf(request);
        // Per origin: the sitemap's URLs are absolute in the Host asked (never another Host's for everybody).
        const key = `${ctx.website.id}|${ctx.version}|${ctx.origin}`;
        let answer = cache.get(key);
        if (!answer) {
          const localeOf = new Map(ctx.views.map((v) => [v.id, v.locale]));
          const head = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n';
          const tail = '</urlset>\n';
          const parts: string[] = [head];
          let bytes = head.length + tail.length;
          let urls = 0;
          outer: for (const view of ctx.views) {
            for await (const entry of deps.inventory(ctx, view)) {
              if (entry.noindex) continue;
              const alternates = Object.entries(entry.alternates ?? {})
                .filter(([viewId]) => localeOf.has(viewId))
                .map(([viewId, path]) => `<xhtml:link rel="alternate" hreflang="${xml(localeOf.get(viewId)!)}" href="${xml(ctx.origin + path)}"/>`);
              const lastmod = Number.isNaN(Date.parse(entry.updateTime)) ? '' : `<lastmod>${new Date(entry.updateTime).toISOString()}</lastmod>`;
              const url = `<url><loc>${xml(ctx.origin + entry.path)}</loc>${lastmod}${alternates.length > 1 ? alternates.join('') : ''}</url>\n`;
              const size = Buffer.byteLength(url);
              if (urls >= SITEMAP_MAX_URLS || bytes + size > SITEMAP_MAX_BYTES) {
                request.log.warn({ website_id: ctx.website.id, urls }, 'sitemap.xml is full; later entries are left out');
                break outer;
              }
              parts.push(url);
              bytes += size;
              urls += 1;
            }
          }
          parts.push(tail);
          const body = parts.join('');
          answer = { body, etag: `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
          if (body.length <= CACHE_MAX_BODY) cache.set(key, answer);
        }
        reply.header('etag', answer.etag).header('cache-control', 'public, max-age=0, must-revalidate');
        if (request.headers['if-none-match'] === answer.etag) return reply.code(304).send();
        return reply.type('application/xml; charset=utf-8').send(answer.body);
      });
    },
  };
}
