import { Select } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import { useMyWebsites } from '../websites';

/** More than this many websites: the switcher takes a search. */
const SEARCH_FROM = 5;

/** Account → project → website: one select, grouped by account and project, the current website in the URL. */
export function WebsiteSwitcher({ websiteId }: { websiteId?: string }) {
  const { data } = useMyWebsites();
  const navigate = useNavigate();
  if (!data || data.length === 0) return null;
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const { account, project, website } of data) {
    const group = `${account.display_name} / ${project.display_name}`;
    groups.set(group, [...(groups.get(group) ?? []), { value: website.id, label: website.display_name }]);
  }
  return (
    <Select
      aria-label="Website"
      placeholder="Choose a website"
      data={[...groups].map(([group, items]) => ({ group, items }))}
      value={websiteId ?? null}
      searchable={data.length > SEARCH_FROM}
      nothingFoundMessage="No website matches"
      allowDeselect={false}
      w={{ base: 160, sm: 280 }}
      onChange={(value) => value && void navigate({ to: '/w/$websiteId', params: { websiteId: value } })}
    />
  );
}
