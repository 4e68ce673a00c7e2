import type { Area, AreaDeps } from '../platform/area.js';
import { searchIndexResource } from './search-index.resource.js';
import { createSearchService, REINDEX_SEARCH, type SearchService } from './search.service.js';
import { searchSite } from './search.site.js';

const services = new WeakMap<AreaDeps['database'], SearchService>();
/** One search service per database (the area's parts share its indexer). */
function serviceOf(deps: AreaDeps): SearchService {
  let service = services.get(deps.database);
  if (!service) services.set(deps.database, (service = createSearchService(deps)));
  return service;
}

/**
 * Site search (issue 16; docs/architecture.md, "Site search"): the index of published pages and
 * posts per view, kept current by triggers and the drainer that runs beside the Operations worker,
 * `search_index` with `:reindex`, and ranked search on every site (`/search`, `/api/v1/search`, `/mcp`).
 */
export const searchArea: Area = {
  name: 'search',
  resources: (deps) => [searchIndexResource({ database: deps.database, operations: deps.operations, services: () => deps.services })],
  jobs(operations, deps) {
    const service = serviceOf(deps);
    operations.register(REINDEX_SEARCH, service.reindexHandler);
    operations.runAlongside(service.drainer);
  },
  site: (deps) => searchSite(deps, serviceOf(deps)),
};
