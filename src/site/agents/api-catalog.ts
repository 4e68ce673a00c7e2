import type { SiteContext, SiteSettings } from '../../platform/area.js';
import { MCP_PATH } from './mcp.js';
import { READ_API_PREFIX } from './read-api.js';
import { enabled } from './signals.js';

export const API_CATALOG_PATH = '/.well-known/api-catalog';
/** RFC 9727 §4.2: the linkset media type with the api-catalog profile. */
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/**
 * The site's API catalogue (RFC 9727): a linkset (RFC 9264, JSON form) with one context per API the
 * site serves — the read API (`service-desc`: its OpenAPI 3.1 document; `service-doc`: the site's
 * llms.txt, which says in prose what is published) and the MCP server. Parts switched off are left out.
 */
export function apiCatalog(ctx: SiteContext, settings: SiteSettings): { linkset: Array<Record<string, unknown>> } {
  const linkset: Array<Record<string, unknown>> = [];
  const doc = enabled(settings, 'llmsTxt') ? { 'service-doc': [{ href: `${ctx.origin}/llms.txt`, type: 'text/markdown' }] } : {};
  if (enabled(settings, 'api')) {
    linkset.push({
      anchor: `${ctx.origin}${READ_API_PREFIX}`,
      'service-desc': [{ href: `${ctx.origin}${READ_API_PREFIX}/openapi.json`, type: 'application/openapi+json;version=3.1' }],
      ...doc,
    });
  }
  if (enabled(settings, 'mcp')) {
    linkset.push({
      anchor: `${ctx.origin}${MCP_PATH}`,
      'service-doc': [{ href: 'https://modelcontextprotocol.io/specification/2025-06-18/basic/transports', type: 'text/html', title: 'MCP Streamable HTTP transport' }],
    });
  }
  return { linkset };
}

/** The `Link` header RFC 9727 §2 asks of the catalogue (and of the site's other answers, to find it). */
export const apiCatalogLink = (ctx: SiteContext) => `<${ctx.origin}${API_CATALOG_PATH}>; rel="api-catalog"; type="application/linkset+json"`;
