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

export const websiteResourceRoutes = [
  createRoute({
    getParentRoute: () => websiteRoute,
    path: 'r/$',
    // Filters, order, page token and page size of list screens: a list view is a shareable link.
    validateSearch: validateListSearch,
    component: ResourceScreen,
  }),
] as const;

export const accountResourceRoutes = [
  createRoute({
    getParentRoute: () => accountRoute,
    path: 'r/$',
    validateSearch: validateListSearch,
    component: ResourceScreen,
  }),
] as const;
