export { navigationArea } from './navigation.area.js';
export { menuIdByIdentifier, menuIdByIdentifierInAccount } from './navigation.repo.js';
export { readSiteMenu } from './navigation.site.js';
export type { SiteMenu, SiteMenuItem } from './navigation.site.js';
export { readPublishedMenu } from './published-navigation.js';
export type { PublishedMenu, PublishedMenuItem } from './published-navigation.js';
