/** The custom domain (`/w/{w}/r/custom_domain`), ahead of the generic `r/$` screens. */
import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { websiteRoute } from '../../routes';

export const customDomainRoutes = [
  createRoute({ getParentRoute: () => websiteRoute, path: 'r/custom_domain', component: lazyRouteComponent(() => import('./CustomDomainScreen'), 'CustomDomainScreen') }),
] as const;
