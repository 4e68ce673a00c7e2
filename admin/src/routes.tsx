/**
 * The routes of the admin (code-based; the tree is assembled in ./router.tsx). Screens load on
 * demand (`lazyRouteComponent`), so the first screen carries only the shell. Add a route:
 * `createRoute({ getParentRoute: () => <parent>, path, component })` here (or in your own file)
 * and list it in router.tsx's `routeTree`. The generated resource screens hang under
 * `websiteRoute` and `accountRoute` (./resource-routes.tsx).
 */
import { QueryCache, QueryClient, MutationCache } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, createRouter, lazyRouteComponent, redirect } from '@tanstack/react-router';
import { ApiError } from '@siteplatform/sdk';
import { session, lastWebsite } from './lib/session';
import { RootLayout } from './lib/layout/RootLayout';
import { NotFoundScreen } from './lib/layout/NotFound';

function endSessionOn401(err: unknown) {
  if (ApiError.is(err, 'UNAUTHENTICATED')) session.expire();
}

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // 4xx answers do not get better by asking again; network errors and 5xx do.
      retry: (count, err) => !(ApiError.is(err) && err.code < 500) && count < 2,
      staleTime: 10_000,
    },
  },
  // A 401 ends the session in the client's middleware (lib/session.ts); a refresh refused before
  // the call (token revoked) surfaces here as UNAUTHENTICATED, and ends it too.
  queryCache: new QueryCache({ onError: endSessionOn401 }),
  mutationCache: new MutationCache({ onError: endSessionOn401 }),
});

// Another person's data never shows: a new sign-in (or signing out) starts from an empty cache.
// A refreshed token keeps its client, and the cache.
let sessionClient = session.current?.client;
session.subscribe(() => {
  if (session.current?.client === sessionClient) return;
  sessionClient = session.current?.client;
  queryClient.clear();
});

export interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({
  component: RootLayout,
  notFoundComponent: NotFoundScreen,
});

/** `/`: the last website when signed in, else sign-in. */
export const indexRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/',
  beforeLoad: () => {
    if (!session.current) throw redirect({ to: '/sign-in' });
    const last = lastWebsite.get();
    if (last) throw redirect({ to: '/w/$websiteId', params: { websiteId: last } });
    throw redirect({ to: '/websites' });
  },
});

/** Where to go back to after signing in: a path of this app only (never another origin). */
export const safeRedirect = (value: unknown): string | undefined =>
  typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') ? value : undefined;

export const signInRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-in',
  validateSearch: (search: Record<string, unknown>): { redirect?: string } => ({ redirect: safeRedirect(search.redirect) }),
  component: lazyRouteComponent(() => import('./areas/users/SignInPage'), 'SignInPage'),
});

export const signUpRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/sign-up',
  component: lazyRouteComponent(() => import('./areas/signup/SignUpPage'), 'SignUpPage'),
});

/** The sign-up hand-off: `/handoff#token={signup_token}` shows provisioning, then signs in. */
export const handoffRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/handoff',
  component: lazyRouteComponent(() => import('./areas/signup/HandoffPage'), 'HandoffPage'),
});

export const forgotPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/forgot-password',
  component: lazyRouteComponent(() => import('./areas/users/ForgotPasswordPage'), 'ForgotPasswordPage'),
});

/** Mailed link: ADMIN_BASE_URL/reset-password#token=… (src/users/user.service.ts RESET_PASSWORD_PATH). */
export const resetPasswordRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/reset-password',
  component: lazyRouteComponent(() => import('./areas/users/ResetPasswordPage'), 'ResetPasswordPage'),
});

/** Mailed link: ADMIN_BASE_URL/confirm-email#token=… (CONFIRM_EMAIL_PATH). */
export const confirmEmailRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/confirm-email',
  component: lazyRouteComponent(() => import('./areas/users/ConfirmEmailPage'), 'ConfirmEmailPage'),
});

/** Mailed link: ADMIN_BASE_URL/accept-invitation#token=… (src/access/invitation.resource.ts). */
export const acceptInvitationRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/accept-invitation',
  component: lazyRouteComponent(() => import('./areas/access/AcceptInvitationPage'), 'AcceptInvitationPage'),
});

/** Every screen below needs a session; without one, sign-in and back here afterwards. */
export const signedInRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'signed-in',
  beforeLoad: ({ location }) => {
    if (!session.current) throw redirect({ to: '/sign-in', search: { redirect: location.href } });
  },
});

export const websitesRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/websites',
  component: lazyRouteComponent(() => import('./areas/websites/WebsitesPage'), 'WebsitesPage'),
});

export const meRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/me',
  component: lazyRouteComponent(() => import('./areas/users/MePage'), 'MePage'),
});

/** A website's screens: `/w/{websiteId}/…`, inside the shell with the switcher and the areas' navigation. */
export const websiteRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/w/$websiteId',
  component: lazyRouteComponent(() => import('./lib/layout/WebsiteShell'), 'WebsiteShell'),
});

export const websiteHomeRoute = createRoute({
  getParentRoute: () => websiteRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./areas/websites/WebsiteHomePage'), 'WebsiteHomePage'),
});

/** An account's screens (AI, Team, billing): `/a/{accountId}/…`. */
export const accountRoute = createRoute({
  getParentRoute: () => signedInRoute,
  path: '/a/$accountId',
  component: lazyRouteComponent(() => import('./lib/layout/AccountShell'), 'AccountShell'),
});

export const accountHomeRoute = createRoute({
  getParentRoute: () => accountRoute,
  path: '/',
  component: lazyRouteComponent(() => import('./areas/accounts/AccountHomePage'), 'AccountHomePage'),
});

