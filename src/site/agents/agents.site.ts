import type { FastifyReply, FastifyRequest } from 'fastify';
import { NotFound } from '../../platform/errors.js';
import type { SiteContext, SiteContribution, SiteDeps, SiteEntry, SitePageContext, SiteView } from '../../platform/area.js';
import { API_CATALOG_PATH, API_CATALOG_TYPE, apiCatalog, apiCatalogLink } from './api-catalog.js';
import { createSiteContent, sitePath } from './content.js';
import { LLMS_TXT_MAX_ENTRIES, llmsFullTxt, llmsTxt, takeEntries } from './llms.js';
import { markdownPathOf } from './markdown.js';
import { registerMcp } from './mcp.js';
import { registerReadApi } from './read-api.js';
import { robotsTxt } from './robots.js';
import { enabled } from './signals.js';

/**
 * The agent surface every rendered site carries (issue 15; docs/decisions.md, "Rendered websites:
 * the agent surface"), contributed by the site core itself: `/robots.txt` with content signals,
 * `/llms.txt` and `/llms-full.txt` in every view, `/.well-known/api-catalog`, the read API under
 * `/api/v1` and the MCP server at `/mcp`. The Markdown twins are the dispatcher's (markdown.ts).
 * Each part is switched by a website setting (signals.ts) and answers 404 when off.
 */
export function agentsContribution(): SiteContribution {
  // Page handlers run only once routes() has been given the site's deps (before any request).
  let deps: SiteDeps | undefined;
  const depsOf = () => {
    if (!deps) throw new Error('agent surface used before the site was registered');
    return deps;
  };
  /** Set by routes(): a GET through the whole site (hooks, dispatcher, cache) as an anonymous agent. */
  let requestSite: (hostname: string, origin: string, path: string) => Promise<{ statusCode: number; body: string }> = async () => {
    throw new Error('agent surface used before the site was registered');
  };

  /** Every entry of a view's inventory that llms files list (at most LLMS_TXT_MAX_ENTRIES). */
  async function llmsInput(ctx: SitePageContext) {
    const d = depsOf();
    const settings = await d.settings(ctx, ctx.view);
    if (!enabled(settings, 'llmsTxt')) return undefined;
    const siteSettings = await d.settings(ctx, ctx.defaultView);
    const { entries, truncated } = await takeEntries(d.inventory(ctx, ctx.view), LLMS_TXT_MAX_ENTRIES);
    return { ctx, view: ctx.view, settings, siteSettings, entries, truncated };
  }

  return {
    pages: [
      {
        pattern: '/llms.txt',
        async handler(ctx) {
          const input = await llmsInput(ctx);
          return input && { kind: 'raw', contentType: 'text/markdown; charset=utf-8', body: llmsTxt(input) };
        },
      },
      {
        pattern: '/llms-full.txt',
        async handler(ctx) {
          const input = await llmsInput(ctx);
          if (!input) return undefined;
          const twins = enabled(input.settings, 'markdown');
          // Each entry's Markdown twin, read through the site itself (the dispatcher renders and caches it).
          const twinOf = async (entry: SiteEntry) => {
            if (!twins) return undefined;
            const res = await requestSite(ctx.host.hostname, ctx.origin, markdownPathOf(entry.path));
            return res.statusCode === 200 ? res.body : undefined;
          };
          return { kind: 'raw', contentType: 'text/markdown; charset=utf-8', body: await llmsFullTxt(input, twinOf) };
        },
      },
    ],

    async routes(site, siteDeps) {
      deps = siteDeps;
      const content = createSiteContent(siteDeps);
      requestSite = async (hostname, origin, path) => {
        const port = new URL(origin).port;
        return site.inject({ method: 'GET', url: path, headers: { host: port ? `${hostname}:${port}` : hostname, accept: 'text/markdown' } });
      };

      site.get('/robots.txt', async (request, reply) => {
        const ctx = siteDeps.siteOf(request);
        const settings = await siteDeps.settings(ctx, ctx.defaultView);
        return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, no-cache').send(robotsTxt(ctx, settings));
      });

      site.get(API_CATALOG_PATH, { config: { siteJson: true } }, async (request, reply) => {
        const ctx = siteDeps.siteOf(request);
        const settings = await siteDeps.settings(ctx, ctx.defaultView);
        if (!enabled(settings, 'apiCatalog')) throw new NotFound(`no route GET ${API_CATALOG_PATH}`);
        return reply
          .type(API_CATALOG_TYPE)
          .header('link', apiCatalogLink(ctx))
          .header('cache-control', 'public, no-cache')
          // A Buffer: Fastify would append `; charset=utf-8` to a string's media type (JSON types have none).
          .send(Buffer.from(JSON.stringify(apiCatalog(ctx, settings))));
      });

      const discoveryLinks = new WeakMap<SiteView[], Map<string, string>>();
      // Discovery on every HTML page (the llms.txt format's link relations): its view's llms.txt as
      // `describedby`, and the API catalogue (RFC 9727 §3) — each only while it is served.
      const discovery = async (ctx: SiteContext, view: SiteView): Promise<string> => {
        const found: string[] = [];
        if (enabled(await siteDeps.settings(ctx, view), 'llmsTxt')) found.push(`<${ctx.origin}${sitePath(view, '/llms.txt')}>; rel="describedby"; type="text/markdown"`);
        if (enabled(await siteDeps.settings(ctx, ctx.defaultView), 'apiCatalog')) found.push(apiCatalogLink(ctx));
        return found.join(', ');
      };
      const addLinks = (reply: FastifyReply, links: string) => {
        if (!links) return;
        const existing = reply.getHeader('link');
        reply.header('link', existing ? `${existing}, ${links}` : links);
      };
      // Synchronous once the links are known (every HTML answer runs it; a promise per hook adds up).
      site.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload, done) => {
        if (!request.site || !String(reply.getHeader('content-type') ?? '').startsWith('text/html') || reply.statusCode !== 200) return done(null, payload);
        const ctx = request.site;
        const view = viewOfPath(ctx.views, request.url);
        // The same for every page of a view under one content version and origin: made once
        // (`ctx.views` is one array per website and version, so older versions' entries go with it).
        let byView = discoveryLinks.get(ctx.views);
        if (!byView) discoveryLinks.set(ctx.views, (byView = new Map()));
        const key = `${view.id} ${ctx.origin}`;
        const known = byView.get(key);
        if (known !== undefined) {
          addLinks(reply, known);
          return done(null, payload);
        }
        discovery(ctx, view).then(
          (links) => {
            // Bounded: a version's views see few origins (platform host, custom domains, their ports).
            if (byView.size < 64) byView.set(key, links);
            addLinks(reply, links);
            done(null, payload);
          },
          (err) => done(err),
        );
      });

      await registerReadApi(site, siteDeps, content);
      registerMcp(site, siteDeps, content);
    },
  };
}

/** The view a site path is in: its first segment names a non-default view, else the default view. */
function viewOfPath(views: SiteView[], url: string): SiteView {
  const first = url.split('?')[0].split('/')[1] ?? '';
  return (first && views.find((v) => !v.isDefault && v.urlPrefix === first)) || views[0];
}
