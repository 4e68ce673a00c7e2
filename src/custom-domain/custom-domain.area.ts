import type { Area } from '../platform/area.js';
import { customDomainResource } from './custom-domain.resource.js';

/** The custom domain projection (`websites/{w}/custom_domain`) and its `:verify`. */
export const customDomainArea: Area = {
  name: 'custom-domain',
  resources: (deps) => [
    customDomainResource({
      database: deps.database,
      platformDomain: deps.config.platformDomain,
      dnsResolver: deps.config.dnsResolver,
      dnsTimeoutMs: deps.config.dnsTimeoutMs,
    }),
  ],
};
