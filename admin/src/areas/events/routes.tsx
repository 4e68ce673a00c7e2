/** The website's Activity (`/w/{w}/r/events`): its events, filters and page in the URL. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';
import { stringSearchOf } from '../../lib/list-ui';

export const eventRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/events', validateSearch: stringSearchOf('type', 'from', 'to', 'page_token'), component: lazyRouteComponent(() => import('./ActivityPage'), 'ActivityPage') }),
] as const;
