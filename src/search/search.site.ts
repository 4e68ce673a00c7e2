import type { AreaDeps, SiteContext, SiteContribution, SiteDeps, SitePage, SitePageContext, SiteSearch, SiteView } from '../platform/area.js';
import { InvalidArgument } from '../platform/errors.js';
import { createPageTokenCodec, queryBinding } from '../platform/query/page-token.js';
import { readSiteSettings } from '../settings/index.js';
import { siteHref } from '../platform/site-context.js';
import { DEFAULT_HITS_PER_PAGE, MAX_HIT_OFFSET, MAX_HITS_PER_PAGE, MAX_QUERY_CHARS, searchTextOf, type SearchService } from './search.service.js';

/** Website setting that switches the site's search (page, read API endpoint, MCP tool). */
export const SEARCH_ENABLED_SETTING = 'search.enabled';

const RESULTS_TEMPLATE = `{% layout 'layout' %}{% block content %}<section class="search-results search-page"><h1>{{ heading }}</h1>
<form role="search" action="{{ action }}" method="get"><label for="search-q">{{ labels.field }}</label> <input id="search-q" type="search" name="q" value="{{ q }}" maxlength="${MAX_QUERY_CHARS}"> <button type="submit">{{ labels.submit }}</button></form>
{% if message %}<p class="search-message">{{ message }}</p>{% endif %}
{% if hits.size > 0 %}<ol class="search-hits" start="{{ first }}">{% for hit in hits %}<li><h2><a href="{{ hit.href }}">{{ hit.title_html | raw }}</a></h2><p>{{ hit.snippet_html | raw }}</p></li>{% endfor %}</ol>{% endif %}
{% if prev_href or next_href %}<nav class="pagination" aria-label="{{ labels.pages }}">{% if prev_href %}<a href="{{ prev_href }}" rel="prev">{{ labels.prev }}</a> {% endif %}{% if next_href %}<a href="{{ next_href }}" rel="next">{{ labels.next }}</a>{% endif %}</nav>{% endif %}
</section>{% endblock %}`;

/** `page_size` of the JSON surfaces: absent, empty or 0 → 10; more than 50 → 50. */
function hitsPerPage(value: unknown): number {
  if (value === undefined || value === '') return DEFAULT_HITS_PER_PAGE;
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw InvalidArgument.field('page_size', 'must be a non-negative integer');
  return n === 0 ? DEFAULT_HITS_PER_PAGE : Math.min(n, MAX_HITS_PER_PAGE);
}

/**
 * Ranked search on every rendered site (issue 16): `/search?q=…&page=N` in every view (HTML, never
 * cached or indexed), and the `SiteSearch` the read API (`/api/v1/search`) and `/mcp` (`search`) call.
 * All of it answers 404 / is absent while `search.enabled` is false.
 */
export function searchSite(deps: AreaDeps, service: SearchService): SiteContribution {
  const tokens = createPageTokenCodec(deps.config.jwtSecret);
  let site: SiteDeps | undefined;

  async function enabled(ctx: SiteContext): Promise<boolean> {
    const settings = site ? await site.settings(ctx, ctx.defaultView) : await readSiteSettings(deps.database, ctx.website.id, ctx.defaultView.id);
    return settings.get(SEARCH_ENABLED_SETTING) !== false;
  }

  const bindingOf = (ctx: SiteContext, view: SiteView, text: string) => queryBinding(`site:${ctx.website.id}:search`, view.id, text);

  const search: SiteSearch = {
    enabled,
    async run(ctx, view, query) {
      const text = searchTextOf(query.q);
      const limit = hitsPerPage(query.page_size);
      if (query.page_token !== undefined && typeof query.page_token !== 'string') throw InvalidArgument.field('page_token', 'must be text');
      const offset = query.page_token ? Number(tokens.decode(query.page_token, bindingOf(ctx, view, text)).after[0]) : 0;
      if (!Number.isSafeInteger(offset) || offset < 0 || offset > MAX_HIT_OFFSET) throw InvalidArgument.field('page_token', 'is not a page token of this search');
      const { hits, more } = await service.search(ctx, view, text, { limit, offset });
      const next = offset + limit;
      return {
        results: hits.map((h) => ({ ...h, url: `${ctx.origin}${h.path}`, view_id: view.id })),
        next_page_token: more && next <= MAX_HIT_OFFSET ? tokens.encode({ binding: bindingOf(ctx, view, text), after: [next], total: 0 }) : undefined,
      };
    },
  };

  async function resultsPage(ctx: SitePageContext): Promise<SitePage | undefined> {
    if (!(await enabled(ctx))) return undefined;
    const raw = (ctx.query.q ?? '').replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
    const pageNumber = /^[1-9]\d{0,3}$/.test(ctx.query.page ?? '') ? Number(ctx.query.page) : 1;
    const offset = (pageNumber - 1) * DEFAULT_HITS_PER_PAGE;
    const action = ctx.href('/search');
    const pageHref = (n: number) => `${action}?${new URLSearchParams({ q: raw, ...(n > 1 ? { page: String(n) } : {}) })}`;
    let message: string | undefined;
    let status = 200;
    let hits: Array<{ href: string; title_html: string; snippet_html: string }> = [];
    let more = false;
    if (raw === '') {
      message = undefined;
    } else if ([...raw].length > MAX_QUERY_CHARS) {
      message = `Please search for at most ${MAX_QUERY_CHARS} characters.`;
      status = 400;
    } else if (offset > MAX_HIT_OFFSET) {
      message = 'No more results. Try other words.';
    } else {
      const found = await service.search(ctx, ctx.view, raw, { limit: DEFAULT_HITS_PER_PAGE, offset });
      hits = found.hits.map((h) => ({ href: h.path, title_html: h.title_html || h.title, snippet_html: h.snippet_html }));
      more = found.more && offset + DEFAULT_HITS_PER_PAGE <= MAX_HIT_OFFSET;
      if (hits.length === 0) message = pageNumber === 1 ? 'Nothing matches your search. Try other words.' : 'No more results.';
    }
    return {
      kind: 'html',
      status,
      template: 'search/results',
      data: {
        heading: raw ? `Search results for “${raw.slice(0, MAX_QUERY_CHARS)}”` : 'Search',
        q: raw.slice(0, MAX_QUERY_CHARS),
        action,
        message,
        hits,
        first: offset + 1,
        prev_href: hits.length > 0 && pageNumber > 1 ? pageHref(pageNumber - 1) : undefined,
        next_href: more ? pageHref(pageNumber + 1) : undefined,
        labels: { field: 'Search this site', submit: 'Search', pages: 'Result pages', prev: 'Previous results', next: 'More results' },
      },
      meta: { title: 'Search', canonicalPath: siteHref(ctx.view, '/search'), robots: 'NOINDEX_FOLLOW' },
      // The page cache keys renderings by path and `page` only, not `q`: never kept, never shared.
      shared: false,
    };
  }

  return {
    templates: { 'search/results': RESULTS_TEMPLATE },
    pages: [{ pattern: '/search', handler: resultsPage }],
    search,
    routes(_site, siteDeps) {
      site = siteDeps;
    },
  };
}
