import type { Database } from '../platform/db/database.js';
import type { SiteContext, SiteView } from './contribution.js';
import type { SiteSettings } from './settings.js';

/**
 * What surrounds every page of a site in one view: the theme (CSS variables, logo, favicon), the
 * main menu and the footer block. Read once per (website, content version, view) and cached with
 * the site's settings (site.surface.ts).
 */
export interface SiteChrome {
  css?: string;
  logo_url?: string;
  favicon_url?: string;
  main_menu?: { label: string; items: Array<{ label: string; href: string; children: Array<{ label: string; href: string }> }> };
  footer_html?: string;
}

export async function readSiteChrome(_database: Database, _ctx: SiteContext, _view: SiteView, _settings: SiteSettings): Promise<SiteChrome> {
  // Theme, main menu and footer block: built by the rendering work of issue 15 (see docs/architecture.md).
  return {};
}
