/** Blog categories (`/w/{w}/r/blog_categories[/{category}]`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const blogCategoryRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_categories', component: lazyRouteComponent(() => import('./pages'), 'CategoriesPage') }),
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/blog_categories/$blogCategoryId', component: lazyRouteComponent(() => import('./pages'), 'CategoryPage') }),
] as const;
