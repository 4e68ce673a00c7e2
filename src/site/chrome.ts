import type { AreaDeps, SiteContext, SiteSettings, SiteView } from '../platform/area.js';
import { cmsSiteReader } from '../cms/index.js';
import { readSiteImages } from '../media/index.js';
import { menuIdByIdentifierInAccount, readSiteMenu, type SiteMenuItem } from '../navigation/index.js';
import { DEFAULT_VARIABLES, readSiteTheme } from '../theme/index.js';

/** An entry of a rendered menu: its target resolved to a link in the view. */
export interface SiteChromeMenuItem {
  label: string;
  href: string;
  new_tab: boolean;
  children: SiteChromeMenuItem[];
}

/**
 * What surrounds every page of a site in one view: the theme (CSS variables, logo, favicon), the
 * main menu and the footer block. Read once per (website, content version, view) and cached with
 * the site's settings (site.surface.ts).
 */
export interface SiteChrome {
  /** `:root{…}`: every known theme variable (its default where the theme has none or a bad one), then the theme's own. */
  css: string;
  logo?: { src: string; srcset: string; sizes: string; width: number | null; height: number | null; alt: string };
  /** The theme's favicon as a square PNG variant, else the site's own generated `/favicon.svg`. */
  favicon_url: string;
  favicon_type: string;
  /** 180 px PNG of the theme's favicon (iOS home screens take no SVG). */
  touch_icon_url?: string;
  /** `<meta name="theme-color">` per colour scheme: the page backgrounds. */
  theme_color: string;
  theme_color_dark: string;
  main_menu?: { label: string; items: SiteChromeMenuItem[] };
  /** The navigation menu with identifier `footer` (the secondary menu), when the website has one. */
  footer_menu?: { label: string; items: SiteChromeMenuItem[] };
  footer_html?: string;
}

/** Identifier of the navigation menu the footer shows (navigation_menus.identifier). */
export const FOOTER_MENU_IDENTIFIER = 'footer';
/** Height the logo is shown at (CSS `.brand img`: 2.75rem), in CSS pixels at 1x and 2x. */
const LOGO_HEIGHT = 44;
const RASTER_ICONS = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/avif', 'image/gif']);

const VARIABLE_NAME = /^--[A-Za-z0-9_-]{1,64}$/;
/**
 * What a variable's value may not hold inside `<style>`: anything ending the declaration, rule or
 * element (`; { } < >`), escapes and comments (`\`, `/*`), control characters. The theme refuses
 * these on write; the renderer checks again, so a row written another way cannot inject either.
 */
const UNSAFE_VALUE = /[;{}<>\\\u0000-\u001f\u007f]|\/\*/;
const MAX_VALUE_LENGTH = 256;

/** An unterminated string would swallow the declarations after it. */
const balancedQuotes = (value: string) => (value.match(/"/g)?.length ?? 0) % 2 === 0 && (value.match(/'/g)?.length ?? 0) % 2 === 0;

const wellFormed = (name: string, value: unknown): value is string =>
  VARIABLE_NAME.test(name) && typeof value === 'string' && value.trim() !== '' && value.length <= MAX_VALUE_LENGTH && !UNSAFE_VALUE.test(value) && balancedQuotes(value);

/**
 * `:root{--name:value;…}` of the well-formed variables; any other entry is left out, and a known
 * variable whose value is left out keeps its default (the design needs every one of them).
 */
export function themeCss(variables: Record<string, unknown>): string {
  const merged: Record<string, string> = { ...DEFAULT_VARIABLES };
  for (const [name, value] of Object.entries(variables)) if (wellFormed(name, value)) merged[name] = value.trim();
  return `:root{${Object.entries(merged).map(([name, value]) => `${name}:${value}`).join(';')}}`;
}

/** A theme colour usable in `<meta name="theme-color">` (a hex or named colour; anything else: the default). */
const metaColor = (value: unknown, fallback: string) => (typeof value === 'string' && /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20})$/.test(value.trim()) ? value.trim() : fallback);

export async function readSiteChrome(deps: Pick<AreaDeps, 'database' | 'config'>, ctx: SiteContext, view: SiteView, settings: SiteSettings): Promise<SiteChrome> {
  const { database } = deps;
  const cms = cmsSiteReader(database);
  const theme = await readSiteTheme(database, ctx.website.id, ctx.website.accountId);
  const chrome: SiteChrome = {
    css: themeCss(theme.variables),
    favicon_url: '/favicon.svg',
    favicon_type: 'image/svg+xml',
    theme_color: metaColor(theme.variables['--color-background'], DEFAULT_VARIABLES['--color-background']),
    theme_color_dark: metaColor(theme.variables['--color-background-dark'], DEFAULT_VARIABLES['--color-background-dark']),
  };

  const images = await readSiteImages(deps, ctx.website.id, [theme.logoMediaId ?? '', theme.faviconMediaId ?? '']);
  const logo = theme.logoMediaId ? images.get(theme.logoMediaId) : undefined;
  if (logo) {
    // Shown LOGO_HEIGHT px high: the srcset's widths cover 1x to 3x of the width that gives.
    const shownWidth = logo.width && logo.height ? Math.round((logo.width * LOGO_HEIGHT) / logo.height) : 176;
    chrome.logo = {
      src: logo.src,
      srcset: logo.srcset,
      sizes: `${shownWidth}px`,
      width: logo.width && logo.height ? shownWidth : null,
      height: logo.width && logo.height ? LOGO_HEIGHT : null,
      // The site's name follows the logo in the same link: an alt text repeating it would be read twice.
      alt: logo.alt.trim() === String(settings.get('general.site.name') ?? '').trim() ? '' : logo.alt,
    };
  }
  const favicon = theme.faviconMediaId ? images.get(theme.faviconMediaId) : undefined;
  if (favicon) {
    // Raster images become square PNGs (every browser takes them); an SVG or ICO is linked as it is.
    const square = RASTER_ICONS.has(favicon.mimeType);
    chrome.favicon_url = square ? favicon.variant({ w: 48, h: 48, crop: true, fmt: 'png' }) : favicon.src;
    chrome.favicon_type = square ? 'image/png' : favicon.mimeType;
    if (square) chrome.touch_icon_url = favicon.variant({ w: 180, h: 180, crop: true, fmt: 'png' });
  }

  const menuLinks = async (menuId: string) => {
    const menu = await readSiteMenu(database, ctx.website.id, ctx.website.accountId, menuId, view.id);
    if (!menu) return undefined;
    const pageIds: string[] = [];
    const collect = (items: SiteMenuItem[]) => items.forEach((i) => (i.cmsPageId && pageIds.push(i.cmsPageId), collect(i.children)));
    collect(menu.items);
    const paths = await cms.pagePaths(ctx, view, pageIds);
    // A page the view does not show takes its entry (and the entry's sub-items) out of the menu.
    const links = (items: SiteMenuItem[]): SiteChromeMenuItem[] =>
      items.flatMap((item) => {
        const href = item.cmsPageId ? paths.get(item.cmsPageId) : item.url;
        return href ? [{ label: item.label, href, new_tab: item.openInNewTab, children: links(item.children) }] : [];
      });
    const items = links(menu.items);
    return items.length ? { label: menu.displayName, items } : undefined;
  };
  if (theme.mainMenuId) chrome.main_menu = await menuLinks(theme.mainMenuId);
  const footerMenuId = await menuIdByIdentifierInAccount(database.db, ctx.website.id, ctx.website.accountId, FOOTER_MENU_IDENTIFIER);
  if (footerMenuId && footerMenuId !== theme.mainMenuId) chrome.footer_menu = await menuLinks(footerMenuId);

  if (theme.footerBlockId) {
    const footer = await cms.blockById(ctx, view, theme.footerBlockId);
    if (footer) chrome.footer_html = await cms.expandBlocks(ctx, view, footer.contentHtml);
  }
  return chrome;
}
