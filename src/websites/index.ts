export { LANGUAGE_PATTERN, websiteResource } from './website.resource.js';
export { PROVISION_WEBSITE, provisioningHandler } from './provisioning.js';
export type { ProvisioningStep } from './provisioning.js';
export { SITE_WEBSITE_COLUMNS, siteWebsiteRow, websiteAccountAndZone, websiteDisplayName } from './websites.repo.js';
export { websiteIdsOwnedBy } from './websites.repo.js';
export { lockWebsite, websiteCodeInAccount } from './websites.repo.js';
export { projectHasWebsites, websiteIdsOfAccount } from './websites.repo.js';
