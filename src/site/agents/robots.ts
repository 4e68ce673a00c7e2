import type { SiteContext, SiteSettings } from '../../platform/area.js';
import { contentSignal } from './signals.js';

/**
 * `/robots.txt` (RFC 9309) with the site's content signals (contentsignals.org): one group for every
 * crawler. `seo.robots.allow_indexing` false disallows everything; otherwise each path of
 * `seo.robots.disallow_paths` is disallowed and the rest allowed. The sitemap is named by its
 * absolute URL, as the protocol asks.
 */
export function robotsTxt(ctx: SiteContext, settings: SiteSettings): string {
  const lines = ['# Content signals: https://contentsignals.org/', 'User-agent: *', `Content-Signal: ${contentSignal(settings)}`];
  if (settings.get('seo.robots.allow_indexing') === false) {
    lines.push('Disallow: /');
  } else {
    const disallowed = (settings.get('seo.robots.disallow_paths') as string[] | null) ?? [];
    // Stored paths start with `/` (the setting's item_prefix); line breaks would forge directives.
    for (const path of disallowed) if (!/[\r\n]/.test(path)) lines.push(`Disallow: ${path}`);
    lines.push('Allow: /');
  }
  lines.push('', `Sitemap: ${ctx.origin}/sitemap.xml`, '');
  return lines.join('\n');
}
