/** Website settings (`/w/{w}/r/settings`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const settingsRoutes = [createRoute({ getParentRoute: () => websiteRoute, path: 'r/settings', component: lazyRouteComponent(() => import('./SettingsScreen'), 'SettingsScreen') })] as const;
