import { Outlet, useParams } from '@tanstack/react-router';
import { Shell, NavSkeleton } from './Shell';
import { Navigation } from './Navigation';
import { useRights } from '../rights';

export function AccountShell() {
  const { accountId } = useParams({ from: '/signed-in/a/$accountId' });
  const rights = useRights(accountId, undefined);
  return (
    <Shell navigation={rights ? <Navigation accountId={accountId} canRead={rights.canRead} /> : <NavSkeleton />}>
      <Outlet />
    </Shell>
  );
}
