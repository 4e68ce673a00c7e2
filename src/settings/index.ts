// What other folders use of the settings area (plan rule 4: imports from other folders come through here).
export { readSiteSettings } from './site-settings.repo.js';
export { websiteSettingValueQuery } from './settings.repo.js';
export { settingsArea } from './settings.area.js';
export { descriptorOf, MEDIA_REQUIRE_SIGNATURE_PATH } from './setting-registry.js';
export { decodeSettingValue, readWebsiteSetting, WEBSITE_SCOPE } from './settings.service.js';
export type { SettingWriteHook } from './settings.service.js';
