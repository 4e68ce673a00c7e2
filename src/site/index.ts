// What other folders use of the rendered-website surface (plan rule 4).
export { createSiteHosts, SITE_WEBSITE_COLUMNS, siteWebsiteOf } from './hosts.js';
export type { SiteHost, SiteHosts, SiteWebsite } from './hosts.js';
export { readSiteViews, registerSiteSurface } from './site.surface.js';
export { createSiteVersions, SITE_VERSION_TTL_MS } from './versions.js';
export type { SiteVersions } from './versions.js';
