import { useEffect } from 'react';
import { Outlet, useRouter, useRouterState } from '@tanstack/react-router';
import { useSession } from '../session';

/**
 * The root of every screen. When the session ends under a signed-in screen (a 401 anywhere, or
 * signing out in another tab), it sends the person to sign-in and back here afterwards.
 */
export function RootLayout() {
  const current = useSession();
  const router = useRouter();
  const { href, signedInScreen } = useRouterState({
    select: (s) => ({ href: s.location.href, signedInScreen: s.matches.some((m) => m.routeId === '/signed-in') }),
  });
  useEffect(() => {
    if (!current && signedInScreen) void router.navigate({ to: '/sign-in', search: { redirect: href }, replace: true });
  }, [current, signedInScreen, href, router]);
  return <Outlet />;
}
