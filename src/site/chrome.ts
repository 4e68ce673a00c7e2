import type { AreaDeps } from '../platform/area.js';
import { cmsSiteReader } from '../cms/cms.site.js';
import { readSiteImages } from '../media/media.site.js';
import { readSiteMenu, type SiteMenuItem } from '../navigation/navigation.site.js';
import { readSiteTheme } from '../theme/theme.site.js';
import type { SiteContext, SiteView } from './contribution.js';
import type { SiteSettings } from './settings.js';

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
  css?: string;
  logo_url?: string;
  logo_srcset?: string;
  favicon_url?: string;
  main_menu?: { label: string; items: SiteChromeMenuItem[] };
  footer_html?: string;
}

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

/** `:root{--name:value;…}` of the well-formed variables; any other entry is left out. */
export function themeCss(variables: Record<string, unknown>): string {
  const declarations = Object.entries(variables)
    .filter(([name, value]) => VARIABLE_NAME.test(name) && typeof value === 'string' && value.trim() !== '' && value.length <= MAX_VALUE_LENGTH && !UNSAFE_VALUE.test(value) && balancedQuotes(value))
    .map(([name, value]) => `${name}:${(value as string).trim()}`);
  return declarations.length ? `:root{${declarations.join(';')}}` : '';
}

export async function readSiteChrome(deps: Pick<AreaDeps, 'database' | 'config'>, ctx: SiteContext, view: SiteView, _settings: SiteSettings): Promise<SiteChrome> {
  const { database } = deps;
  const cms = cmsSiteReader(database);
  const theme = await readSiteTheme(database, ctx.website.id, ctx.website.accountId);
  const chrome: SiteChrome = {};
  const css = themeCss(theme.variables);
  if (css) chrome.css = css;

  const images = await readSiteImages(deps, ctx.website.id, [theme.logoMediaId ?? '', theme.faviconMediaId ?? '']);
  const logo = theme.logoMediaId ? images.get(theme.logoMediaId) : undefined;
  if (logo) {
    chrome.logo_url = logo.src;
    if (logo.srcset) chrome.logo_srcset = logo.srcset;
  }
  const favicon = theme.faviconMediaId ? images.get(theme.faviconMediaId) : undefined;
  if (favicon) chrome.favicon_url = favicon.src;

  if (theme.mainMenuId) {
    const menu = await readSiteMenu(database, ctx.website.id, ctx.website.accountId, theme.mainMenuId, view.id);
    if (menu) {
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
      if (items.length) chrome.main_menu = { label: menu.displayName, items };
    }
  }

  if (theme.footerBlockId) {
    const footer = await cms.blockById(ctx, view, theme.footerBlockId);
    if (footer) chrome.footer_html = await cms.expandBlocks(ctx, view, footer.contentHtml);
  }
  return chrome;
}
