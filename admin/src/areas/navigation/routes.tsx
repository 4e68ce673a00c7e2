/** Menus and their items (`/w/{w}/r/navigation_menus[/{menu}]`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

const NavigationPage = lazyRouteComponent(() => import('./pages'), 'NavigationPage');
const NavigationMenuPage = lazyRouteComponent(() => import('./pages'), 'NavigationMenuPage');

export const navigationRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/navigation_menus', component: NavigationPage }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/navigation_menus/$navigationMenuId', component: NavigationMenuPage }),
] as const;
