/** The route tree and the router (routes themselves: ./routes.tsx and ./resource-routes.tsx). */
import { createRouter } from '@tanstack/react-router';
import { session } from './lib/session';
import {
  queryClient,
  rootRoute,
  indexRoute,
  signInRoute,
  signUpRoute,
  handoffRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  confirmEmailRoute,
  acceptInvitationRoute,
  signedInRoute,
  websitesRoute,
  meRoute,
  websiteRoute,
  websiteHomeRoute,
  accountRoute,
  accountHomeRoute,
} from './routes';
import { accountResourceRoutes, websiteResourceRoutes } from './resource-routes';
import { teamRoutes } from './areas/team/routes';
import { customerRoutes } from './areas/customers/routes';
import { navigationRoutes } from './areas/navigation/routes';
import { blogCategoryRoutes } from './areas/blog-categories/routes';
import { themeRoutes } from './areas/theme/routes';
import { settingsRoutes } from './areas/settings/routes';
import { customDomainRoutes } from './areas/custom-domain/routes';
import { editorialRoutes } from './areas/editorial/routes';
import { pagesRoutes } from './areas/pages/routes';
import { blogRoutes } from './areas/blog/routes';
import { mediaRoutes } from './areas/media/routes';
import { aiRoutes } from './areas/ai/routes';
import { billingRoutes } from './areas/billing/routes';
import { analyticsRoutes } from './areas/analytics/routes';
import { searchRoutes } from './areas/search/routes';
import { webhookRoutes } from './areas/webhooks/routes';
import { eventRoutes } from './areas/events/routes';
import { viewRoutes } from './areas/views/routes';
import { emailTemplateRoutes } from './areas/email-templates/routes';
import { projectRoutes } from './areas/projects/routes';

export { queryClient };

const routeTree = rootRoute.addChildren([
  indexRoute,
  signInRoute,
  signUpRoute,
  handoffRoute,
  forgotPasswordRoute,
  resetPasswordRoute,
  confirmEmailRoute,
  acceptInvitationRoute,
  signedInRoute.addChildren([
    websitesRoute,
    meRoute,
    websiteRoute.addChildren([websiteHomeRoute, ...customerRoutes, ...pagesRoutes, ...blogRoutes, ...mediaRoutes, ...analyticsRoutes, ...searchRoutes, ...navigationRoutes, ...blogCategoryRoutes, ...themeRoutes, ...settingsRoutes, ...customDomainRoutes, ...editorialRoutes, ...webhookRoutes, ...eventRoutes, ...viewRoutes, ...emailTemplateRoutes, ...websiteResourceRoutes]),
    accountRoute.addChildren([accountHomeRoute, ...teamRoutes, ...aiRoutes, ...billingRoutes, ...projectRoutes, ...accountResourceRoutes]),
  ]),
]);

export const router = createRouter({
  routeTree,
  context: { queryClient },
  defaultPreload: 'intent',
  scrollRestoration: true,
});

/**
 * When the session ends under a signed-in screen (a 401 anywhere, or signing out in another tab):
 * to sign-in, and back here afterwards. Outside React, once per ending: an effect would run again
 * while the navigation is pending and chain redirects.
 */
session.subscribe(() => {
  if (session.current) return;
  const { location, matches } = router.state;
  if (location.pathname === '/sign-in' || !matches.some((m) => m.routeId === '/signed-in')) return;
  void router.navigate({ to: '/sign-in', search: { redirect: location.href }, replace: true });
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
