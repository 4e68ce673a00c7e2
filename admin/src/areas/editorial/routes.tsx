/** The editorial plan, backlog and calendar (`/w/{w}/r/editorial_…`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const editorialRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/editorial_plan', component: lazyRouteComponent(() => import('./PlanScreen'), 'PlanScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/editorial_backlog_items', component: lazyRouteComponent(() => import('./BacklogScreen'), 'BacklogScreen') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/editorial_calendar_entries', component: lazyRouteComponent(() => import('./CalendarScreen'), 'CalendarScreen') }),
] as const;
