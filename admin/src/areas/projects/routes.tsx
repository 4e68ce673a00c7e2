/** Projects of an account (`/a/{a}/r/projects`) with their websites. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { accountRoute } from '../../routes';

export const projectRoutes = [createRoute({ getParentRoute: () => accountRoute, path: 'r/projects', component: lazyRouteComponent(() => import('./ProjectsPage'), 'ProjectsPage') })] as const;
