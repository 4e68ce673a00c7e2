export { themeArea } from './theme.area.js';
export { themePreviewContribution, themePreviewScript, wantsThemePreview } from './theme-preview.site.js';
export { DEFAULT_VARIABLES } from './theme-variables.js';
export { readSiteTheme } from './theme.site.js';
export type { SiteTheme } from './theme.site.js';
