import type { Database } from '../platform/db/database.js';
import type { SiteSettings } from '../platform/site-context.js';
import { SETTING_DESCRIPTORS } from './setting-registry.js';
import { decodeSettingValue, WEBSITE_SCOPE } from './settings.service.js';

/** One query for the website's settings and the view's overrides; defaults from the registry fill the rest. */
export async function readSiteSettings(database: Database, websiteId: string, viewId: string): Promise<SiteSettings> {
  const rows = await database.db
    .selectFrom('settings')
    .select(['scope_id', 'path', 'value'])
    .where('website_id', '=', websiteId)
    .where('scope_id', 'in', [WEBSITE_SCOPE, viewId])
    .execute();
  const values = new Map<string, unknown>(SETTING_DESCRIPTORS.map((d) => [d.path, d.default_value]));
  // Website values first, then the view's overrides on top.
  for (const scope of [WEBSITE_SCOPE, viewId]) {
    for (const row of rows) {
      if (row.scope_id !== scope) continue;
      const value = decodeSettingValue(database.dialect, row.value);
      if (value !== undefined && value !== null) values.set(row.path, value);
    }
  }
  return values;
}
