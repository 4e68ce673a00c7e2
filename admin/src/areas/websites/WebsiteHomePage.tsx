import { Anchor, Group, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';

/** The website's home: what it is, where it answers, whether it is ready. */
export function WebsiteHomePage() {
  const api = useApi();
  const { websiteId, entry } = useCurrentWebsite();
  const website = useQuery({
    queryKey: ['websites', websiteId],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: websiteId } } })),
    // Provisioning: look again until the website is ready.
    refetchInterval: (q) => (q.state.data && q.state.data.provisioning_status !== 'ACTIVE' && q.state.data.provisioning_status !== 'FAILED' ? 1000 : false),
  });
  const w = website.data;
  usePageTitle(w?.display_name ?? 'Website');
  return (
    <Stack>
      <ApiErrorAlert error={website.error} />
      <Title order={1}>{w?.display_name ?? entry?.website.display_name ?? 'Website'}</Title>
      {w && (
        <>
          <Group>
            <Text>Status</Text>
            <Text fw={700}>{w.provisioning_status ?? 'UNKNOWN'}</Text>
          </Group>
          {entry && (
            <Text>
              In {entry.account.display_name} / {entry.project.display_name}
            </Text>
          )}
          {w.website_url && (
            <Text>
              Address:{' '}
              <Anchor href={w.website_url} target="_blank" rel="noreferrer">
                {w.website_url}
              </Anchor>
            </Text>
          )}
          <Text>Choose an area in the navigation to edit the website.</Text>
        </>
      )}
    </Stack>
  );
}
