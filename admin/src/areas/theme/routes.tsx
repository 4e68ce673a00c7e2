/** The theme (`/w/{w}/r/theme`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const themeRoutes = [createRoute({ getParentRoute: () => websiteRoute, path: 'r/theme', component: lazyRouteComponent(() => import('./ThemeScreen'), 'ThemeScreen') })] as const;
