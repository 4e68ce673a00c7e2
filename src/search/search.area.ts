import type { Area, AreaDeps } from '../platform/area.js';
import { searchIndexResource } from './search-index.resource.js';
import { createSearchService, REINDEX_SEARCH, type SearchService } from './search.service.js';
import { searchSite } from './search.site.js';

/** Collections whose writes change what the index holds: pages, posts, blocks and views (also the per-view overlays, `views`). */
const INDEXED_COLLECTIONS = new Set(['cms_pages', 'blog_posts', 'cms_blocks', 'views']);

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
  // Follows events: a committed write of what the site indexes wakes this process's drainer at once
  // (triggers already queued the source in the write's transaction; the drainer otherwise polls).
  events(events, deps) {
    const service = serviceOf(deps);
    events.afterEventCommitted((committed) => {
      if (committed.some((event) => event.websiteId && INDEXED_COLLECTIONS.has(event.collection))) service.wake();
    });
  },
  site: (deps) => searchSite(deps, serviceOf(deps)),
};
