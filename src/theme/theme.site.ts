import type { Database } from '../platform/db/database.js';
import { DEFAULT_VARIABLES } from './theme.resource.js';
import { siteThemeRow } from './theme.repo.js';

/** The theme as the rendered site reads it. */
export interface SiteTheme {
  /** Known variables with their defaults, then the stored ones (as the Get answers them). */
  variables: Record<string, unknown>;
  logoMediaId: string | null;
  faviconMediaId: string | null;
  mainMenuId: string | null;
  footerBlockId: string | null;
}

/** The website's theme singleton (`themes.id` is the website id); defaults where none was written. */
export async function readSiteTheme(database: Database, websiteId: string, accountId: string): Promise<SiteTheme> {
  const row = await siteThemeRow(database.db, websiteId, accountId);
  const stored = row?.variables ? database.dialect.readJson<Record<string, unknown>>(row.variables) : {};
  return {
    variables: { ...DEFAULT_VARIABLES, ...(stored ?? {}) },
    logoMediaId: row?.logo_media_id ?? null,
    faviconMediaId: row?.favicon_media_id ?? null,
    mainMenuId: row?.main_menu_id ?? null,
    footerBlockId: row?.footer_block_id ?? null,
  };
}
