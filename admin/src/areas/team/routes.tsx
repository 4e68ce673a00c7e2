/** Team screens of an account at the navigation's `r/<collection>` paths (static routes win over the generic `r/$`). */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { accountRoute } from '../../routes';
import { stringSearchOf } from '../../lib/list-ui';

export const teamRoutes = [
  createRoute({ getParentRoute: () => accountRoute, path: 'r/members', validateSearch: stringSearchOf('page_token'), component: lazyRouteComponent(() => import('./MembersPage'), 'MembersPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/invitations', validateSearch: stringSearchOf('page_token', 'state'), component: lazyRouteComponent(() => import('./InvitationsPage'), 'InvitationsPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/account_roles', component: lazyRouteComponent(() => import('./RolesPage'), 'RolesPage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/account_roles/$roleId', component: lazyRouteComponent(() => import('./RoleEditorPage'), 'AccountRolePage') }),
  createRoute({ getParentRoute: () => accountRoute, path: 'r/roles/$roleId', component: lazyRouteComponent(() => import('./RoleEditorPage'), 'BuiltInRolePage') }),
] as const;
