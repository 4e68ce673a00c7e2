import type { Area } from '../platform/area.js';
import { analyticsSite } from './analytics.site.js';
import { analyticsResource } from './analytics.resource.js';
import { registerRollupJobs } from './rollups.js';

/**
 * Analytics (issue 16): visitor collection on each site's own host, hourly roll-ups and `:query`
 * on the tenant API. See docs/architecture.md, "Analytics".
 */
export const analyticsArea: Area = {
  name: 'analytics',
  site: (deps) => analyticsSite(deps),
  resources: (deps) => [analyticsResource(deps.database)],
  jobs: (operations, deps) => registerRollupJobs(operations, deps),
};
