/**
 * The generated resource screens' routes (owned by the generic screens, admin/src/generic/). URL
 * shape: `/w/{websiteId}/r/{collection path…}` for a website's collections and
 * `/a/{accountId}/r/{collection path…}` for an account's; the navigation (lib/layout/areas.ts)
 * links to `/w/$websiteId/r/$` with `_splat: '<collection>'`.
 */
import { createRoute } from '@tanstack/react-router';
import { accountRoute, websiteRoute } from './routes';
import { PlaceholderScreen } from './lib/layout/PlaceholderScreen';

export const websiteResourceRoutes = [
  createRoute({
    getParentRoute: () => websiteRoute,
    path: 'r/$',
    component: PlaceholderScreen,
  }),
] as const;

export const accountResourceRoutes = [
  createRoute({
    getParentRoute: () => accountRoute,
    path: 'r/$',
    component: PlaceholderScreen,
  }),
] as const;
