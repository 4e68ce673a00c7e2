import { readSiteImages } from '../media/index.js';
import { DEFAULT_VARIABLES, readSiteTheme } from '../theme/index.js';
import type { SiteContribution, SitePageMeta, SiteView } from '../platform/area.js';
import { DESIGN_CSS, DESIGN_CSS_VERSION } from './design.css.js';

/** Browsers keep the icon a day; a changed favicon shows on the next day's visit at the latest. */
const ICON_MAX_AGE_S = 86_400;

const escapeXml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const hexColor = (value: unknown, fallback: string) => (typeof value === 'string' && /^#[0-9a-fA-F]{3,8}$/.test(value.trim()) ? value.trim() : fallback);

/**
 * The site's icon when the theme names no favicon: the first letter of the site's name on the
 * theme's accent colour (a rounded square), so a tab or bookmark is never a blank or a 404.
 */
export function generatedIconSvg(name: string, background: string, foreground: string): string {
  const letter = [...name.trim()][0]?.toUpperCase() ?? '•';
  return (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
    `<rect width="64" height="64" rx="14" fill="${escapeXml(background)}"/>` +
    `<text x="32" y="44" text-anchor="middle" font-family="system-ui,-apple-system,'Segoe UI',Roboto,sans-serif" font-size="36" font-weight="700" fill="${escapeXml(foreground)}">${escapeXml(letter)}</text>` +
    '</svg>'
  );
}

/**
 * The design's own routes: `/_site/design.css` (the stylesheet), `/favicon.ico` (what browsers and crawlers ask for without reading the
 * page) redirects to the theme's favicon as a 48 px PNG, or to `/favicon.svg`, the generated icon.
 */
export function designContribution(): SiteContribution {
  return {
    routes(site, deps) {
      // The design's stylesheet: immutable under its version; another `v` (an old page) gets the current one briefly.
      site.get('/_site/design.css', async (request, reply) => {
        const current = (request.query as { v?: string }).v === DESIGN_CSS_VERSION;
        return reply
          .type('text/css; charset=utf-8')
          .header('cache-control', current ? 'public, max-age=31536000, immutable' : 'public, max-age=300')
          .send(DESIGN_CSS);
      });
      site.get('/favicon.ico', async (request, reply) => {
        const ctx = deps.siteOf(request);
        const theme = await readSiteTheme(deps.database, ctx.website.id, ctx.website.accountId);
        const icon = theme.faviconMediaId ? (await readSiteImages(deps, ctx.website.id, [theme.faviconMediaId])).get(theme.faviconMediaId) : undefined;
        const target = icon ? (icon.mimeType === 'image/svg+xml' || icon.mimeType.includes('icon') ? icon.src : icon.variant({ w: 48, h: 48, crop: true, fmt: 'png' })) : '/favicon.svg';
        return reply.code(302).header('location', target).header('cache-control', `public, max-age=${ICON_MAX_AGE_S}`).send();
      });
      site.get('/favicon.svg', async (request, reply) => {
        const ctx = deps.siteOf(request);
        const [theme, settings] = await Promise.all([readSiteTheme(deps.database, ctx.website.id, ctx.website.accountId), deps.settings(ctx, ctx.defaultView)]);
        const name = String(settings.get('general.site.name') || ctx.website.displayName);
        const svg = generatedIconSvg(
          name,
          hexColor(theme.variables['--color-primary'], DEFAULT_VARIABLES['--color-primary']),
          hexColor(theme.variables['--color-on-primary'], DEFAULT_VARIABLES['--color-on-primary']),
        );
        return reply.type('image/svg+xml').header('cache-control', `public, max-age=${ICON_MAX_AGE_S}`).send(svg);
      });
    },
  };
}

/**
 * The page's JSON-LD (schema.org): `WebSite` with a `SearchAction` to the site search on the home
 * page, a `BreadcrumbList` on every other page, and the page's own objects (a post's `BlogPosting`).
 */
export function structuredData(args: {
  origin: string;
  siteName: string;
  view: SiteView;
  homePath: string;
  searchPath: string | undefined;
  meta: SitePageMeta;
}): Array<Record<string, unknown>> {
  const { origin, siteName, view, homePath, searchPath, meta } = args;
  const items: Array<Record<string, unknown>> = [];
  if (meta.canonicalPath === homePath) {
    items.push({
      '@context': 'https://schema.org',
      '@type': 'WebSite',
      name: siteName,
      url: `${origin}${homePath}`,
      inLanguage: view.locale,
      ...(searchPath
        ? { potentialAction: { '@type': 'SearchAction', target: { '@type': 'EntryPoint', urlTemplate: `${origin}${searchPath}?q={search_term_string}` }, 'query-input': 'required name=search_term_string' } }
        : {}),
    });
  } else if (meta.robots === undefined || !meta.robots.startsWith('NOINDEX')) {
    const trail = meta.breadcrumbs ?? [{ name: siteName, path: homePath }, { name: meta.title, path: meta.canonicalPath }];
    items.push({
      '@context': 'https://schema.org',
      '@type': 'BreadcrumbList',
      itemListElement: trail.map((crumb, i) => ({ '@type': 'ListItem', position: i + 1, name: crumb.name, item: `${origin}${crumb.path}` })),
    });
  }
  for (const item of meta.jsonLd ?? []) items.push({ '@context': 'https://schema.org', ...item });
  return items;
}

/**
 * JSON for a `<script type="application/ld+json">`: `<`, `>`, `&` and the line separators escaped as
 * `\uXXXX` (still the same JSON), so no text in it can end the element or open a comment.
 */
export function jsonLdText(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Longest description derived for a page without one (search engines show about 155 characters). */
const DERIVED_DESCRIPTION_LENGTH = 155;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * A meta description for a page whose owner wrote none: the start of its sanitised content as plain
 * text (entities decoded, cut at a word), else undefined.
 */
export function derivedDescription(html: string | undefined): string | undefined {
  if (!html) return undefined;
  const text = html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos|nbsp);/gi, (_m, e: string) => {
      const lower = e.toLowerCase();
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : lower.startsWith('#') ? parseInt(lower.slice(1), 10) : undefined;
      if (code === undefined) return ENTITIES[lower];
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    })
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return undefined;
  if (text.length <= DERIVED_DESCRIPTION_LENGTH) return text;
  const cut = text.slice(0, DERIVED_DESCRIPTION_LENGTH);
  const space = cut.lastIndexOf(' ');
  return `${space > DERIVED_DESCRIPTION_LENGTH / 2 ? cut.slice(0, space) : cut}…`;
}
