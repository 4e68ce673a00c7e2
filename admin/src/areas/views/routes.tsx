/** Views of a website (`/w/{w}/r/views`): locales with their URL prefix, default and fallback chain. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const viewRoutes = [createRoute({ getParentRoute: () => websiteRoute, path: 'r/views', component: lazyRouteComponent(() => import('./ViewsPage'), 'ViewsPage') })] as const;
