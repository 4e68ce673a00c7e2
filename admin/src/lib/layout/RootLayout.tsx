import { Outlet } from '@tanstack/react-router';

/** The root of every screen (the move to sign-in when a session ends lives in router.tsx). */
export function RootLayout() {
  return <Outlet />;
}
