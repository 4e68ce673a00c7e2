// What other folders use of the custom-domain area (plan rule 4: imports from other folders come through here).
export { customDomainArea } from './custom-domain.area.js';
export { customDomainWriteHook } from './custom-domain.resource.js';
export { connectedDomainWebsiteId } from './custom-domain.repo.js';
