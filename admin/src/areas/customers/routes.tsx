/** Customer screens of a website at the navigation's `r/<collection>` paths (static routes win over the generic `r/$`). */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';
import { stringSearchOf } from '../../lib/list-ui';

export const customerRoutes = [
  createRoute({
    getParentRoute: () => websiteRoute,
    path: 'r/customers',
    validateSearch: stringSearchOf('q', 'group', 'tag', 'created_from', 'created_to', 'active', 'page_token'),
    component: lazyRouteComponent(() => import('./CustomersPage'), 'CustomersPage'),
  }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/customers/$customerId', component: lazyRouteComponent(() => import('./CustomerPage'), 'CustomerPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/customer_groups', component: lazyRouteComponent(() => import('./GroupsPage'), 'GroupsPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/customer_groups/$groupId', component: lazyRouteComponent(() => import('./GroupPage'), 'GroupPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/customer_attributes', component: lazyRouteComponent(() => import('./AttributesPage'), 'AttributesPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/customer_attribute_groups', component: lazyRouteComponent(() => import('./SectionsPage'), 'SectionsPage') }),
] as const;
