/**
 * An image from the media library, searched by file name (the media engineer's picker replaces this
 * once admin/src/areas/media exports one).
 */
import { useState } from 'react';
import { Group, Image, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { data } from '../../lib/api';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useApi } from '../../lib/session';

export function MediaSelect({ label, value, onChange, disabled, error }: { label: string; value: string | null; onChange: (id: string | null) => void; disabled?: boolean; error?: string }) {
  const api = useApi();
  const { websiteId } = useCurrentWebsite();
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search, 250);
  const found = useQuery({
    queryKey: ['media', websiteId, 'images', query],
    queryFn: async () =>
      (
        await data(
          api.GET('/tenant-api/v1/websites/{website_id}/media', {
            params: { path: { website_id: websiteId }, query: { page_size: 30, filter: `is_image = true${query.trim() ? ` AND filename:${JSON.stringify(query.trim())}` : ''}` } },
          }),
        )
      ).media,
  });
  const chosen = useQuery({
    queryKey: ['media', websiteId, value],
    enabled: !!value,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/media/{media_id}', { params: { path: { website_id: websiteId, media_id: value! } } })),
  });
  const options = new Map<string, string>();
  if (chosen.data) options.set(chosen.data.id, chosen.data.original_filename ?? chosen.data.filename ?? chosen.data.id);
  for (const m of found.data ?? []) options.set(m.id, m.original_filename ?? m.filename ?? m.id);
  const preview = chosen.data?.url;
  return (
    <Group align="flex-end" wrap="nowrap">
      <Select
        label={label}
        placeholder="None"
        searchable
        clearable
        clearButtonProps={{ 'aria-label': 'Clear' }}
        disabled={disabled}
        value={value}
        onChange={onChange}
        searchValue={search}
        onSearchChange={setSearch}
        filter={({ options: o }) => o}
        data={[...options].map(([v, l]) => ({ value: v, label: l }))}
        nothingFoundMessage={found.isFetching ? 'Searching…' : 'No image with that name'}
        error={error}
        style={{ flex: 1 }}
      />
      {preview && <Image src={preview} alt={`${label} now chosen`} w={40} h={40} fit="contain" />}
    </Group>
  );
}
