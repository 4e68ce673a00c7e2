// What other folders use of the settings area (plan rule 4: imports from other folders come through here).
export { readSiteSettings } from './site-settings.repo.js';
