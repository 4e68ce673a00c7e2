/** Search screens of a website. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const searchRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/search_index', component: lazyRouteComponent(() => import('./SearchIndexPage'), 'SearchIndexPage') }),
] as const;
