import { useEffect } from 'react';
import { Outlet, useParams } from '@tanstack/react-router';
import { Shell, NavSkeleton } from './Shell';
import { Navigation } from './Navigation';
import { useMyWebsites } from '../websites';
import { lastWebsite } from '../session';
import { useRights } from '../rights';
import { NotFoundContent } from './NotFound';

/** Current website (from the URL) and its account, for the screens under `/w/$websiteId`. */
export function useCurrentWebsite() {
  const { websiteId } = useParams({ from: '/signed-in/w/$websiteId' });
  const { data } = useMyWebsites();
  return { websiteId, entry: data?.find((e) => e.website.id === websiteId) };
}

export function WebsiteShell() {
  const { websiteId, entry } = useCurrentWebsite();
  const websites = useMyWebsites();
  const accountId = entry?.account.id;
  const rights = useRights(accountId, websiteId);
  useEffect(() => {
    if (entry) lastWebsite.set(websiteId);
  }, [entry, websiteId]);
  if (websites.data && !entry) {
    // Not a website of this person's (or no longer): the same answer as the API's NOT_FOUND, and
    // `/` stops sending them here.
    if (lastWebsite.get() === websiteId) lastWebsite.clear();
    return (
      <Shell>
        <NotFoundContent />
      </Shell>
    );
  }
  return (
    <Shell websiteId={websiteId} navigation={rights ? <Navigation websiteId={websiteId} accountId={accountId} canRead={rights.canRead} /> : <NavSkeleton />}>
      <Outlet />
    </Shell>
  );
}
