/**
 * The generated resource screens' routes (owned by the generic screens, admin/src/generic/). URL
 * shape: `/w/{websiteId}/r/{resource name…}` for a website's resources and
 * `/a/{accountId}/r/{resource name…}` for an account's (and its projects, websites and the platform
 * catalogue); below `r/` the path repeats the API's resource name, with `:create`, `:edit` or a
 * custom method's `:verb` at the end (generic/placement.ts). The screens and the OpenAPI model they
 * are drawn from load with the route (code-split).
 */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { accountRoute, websiteRoute } from './routes';
import { validateListSearch } from './lib/openapi-model/list.js';

const ResourceScreen = lazyRouteComponent(() => import('./generic/ResourceScreen'), 'ResourceScreen');

// Two mounts of the same screens: `r/$` answers any collection without a purpose-built screen (the
// navigation's links; purpose-built routes such as `r/cms_pages` match first), and `g/$` shows the
// generated screens of every collection, purpose-built or not (the API's raw view; the generated
// screens link among themselves there).
const mounts = ['r/$', 'g/$'] as const;

export const websiteResourceRoutes = mounts.map((path) =>
  createRoute({
    getParentRoute: () => websiteRoute,
    path,
    // Filters, order, page token and page size of list screens: a list view is a shareable link.
    validateSearch: validateListSearch,
    component: ResourceScreen,
  }),
);

export const accountResourceRoutes = mounts.map((path) =>
  createRoute({
    getParentRoute: () => accountRoute,
    path,
    validateSearch: validateListSearch,
    component: ResourceScreen,
  }),
);
