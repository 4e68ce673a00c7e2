/** Analytics screens of a website: the dashboard (also the `analytics` entry of the navigation). */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';
import { validateRangeSearch } from './date-range';

const DashboardPage = lazyRouteComponent(() => import('./DashboardPage'), 'DashboardPage');

export const analyticsRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/dashboard', validateSearch: validateRangeSearch, component: DashboardPage }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/analytics', validateSearch: validateRangeSearch, component: DashboardPage }),
] as const;
