import { Text } from '@mantine/core';
import { NAV_AREAS, type NavEntry } from './areas';
import { NavLinkLink } from './links';

/**
 * The areas' entries the member may read (`canRead(section)`); an area left with no entry is not
 * shown. Website entries need a website, account entries an account.
 */
export function Navigation({ websiteId, accountId, canRead }: { websiteId?: string; accountId?: string; canRead: (section: string) => boolean }) {
  const reachable = (e: NavEntry) => canRead(e.section) && (e.scope === 'website' ? !!websiteId : !!accountId);
  return (
    <nav aria-label="Areas">
      {websiteId && <NavLinkLink to="/w/$websiteId" params={{ websiteId }} activeOptions={{ exact: true }} label="Home" />}
      {NAV_AREAS.map((area) => {
        const entries = area.entries.filter(reachable);
        if (entries.length === 0) return null;
        return (
          <div key={area.label}>
            <Text component="h2" size="xs" fw={700} tt="uppercase" c="gray.8" mt="md" mb={4} px="xs">
              {area.label}
            </Text>
            {entries.map((entry) =>
              entry.scope === 'website' ? (
                <NavLinkLink key={entry.collection} to="/w/$websiteId/r/$" params={{ websiteId: websiteId!, _splat: entry.collection }} label={entry.label} />
              ) : (
                <NavLinkLink key={entry.collection} to="/a/$accountId/r/$" params={{ accountId: accountId!, _splat: entry.collection }} label={entry.label} />
              ),
            )}
          </div>
        );
      })}
    </nav>
  );
}
