/** The route tree and the router (routes themselves: ./routes.tsx and ./resource-routes.tsx). */
import { createRouter } from '@tanstack/react-router';
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
    websiteRoute.addChildren([websiteHomeRoute, ...websiteResourceRoutes]),
    accountRoute.addChildren([accountHomeRoute, ...accountResourceRoutes]),
  ]),
]);

export const router = createRouter({
  routeTree,
  context: { queryClient },
  defaultPreload: 'intent',
  scrollRestoration: true,
});

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}
