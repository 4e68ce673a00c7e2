import { Anchor, Card, Group, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useRights } from '../../lib/rights';
import { AnchorLink } from '../../lib/layout/links';

const count = new Intl.NumberFormat('en');

/**
 * The last 7 days at a glance, linking to the dashboard (the full analytics screen is its own
 * code-split route; this card asks one small `analytics:query`).
 */
function AnalyticsGlance({ websiteId }: { websiteId: string }) {
  const api = useApi();
  const glance = useQuery({
    queryKey: ['analytics-glance', websiteId],
    queryFn: () =>
      data(
        api.POST('/tenant-api/v1/websites/{website_id}/analytics:query', {
          params: { path: { website_id: websiteId } },
          // `limit` belongs to breakdowns only (the generated type marks it required because it has a default).
          body: { date_range: '7d', metrics: ['visitors', 'pageviews'] } as Schemas['QueryAnalyticsRequest'],
        }),
      ),
  });
  const t = glance.data?.totals;
  return (
    <Card withBorder component="section" aria-labelledby="glance-heading" maw={640}>
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="glance-heading">
          Last 7 days
        </Title>
        <AnchorLink to="/w/$websiteId/r/dashboard" params={{ websiteId }} fw={600}>
          Open the dashboard
        </AnchorLink>
      </Group>
      {glance.error ? (
        <Text size="sm">Visitor figures are not available right now.</Text>
      ) : (
        <SimpleGrid cols={2}>
          <div>
            <Text size="sm">Unique visitors</Text>
            <Text fw={700} fz="xl">
              {t ? `${glance.data?.approximate ? '≈' : ''}${count.format(t.visitors ?? 0)}` : '…'}
            </Text>
          </div>
          <div>
            <Text size="sm">Page views</Text>
            <Text fw={700} fz="xl">
              {t ? count.format(t.pageviews ?? 0) : '…'}
            </Text>
          </div>
        </SimpleGrid>
      )}
    </Card>
  );
}

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
  const rights = useRights(entry?.account.id, websiteId);
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
          {w.provisioning_status === 'ACTIVE' && rights?.canRead('website.analytics') && <AnalyticsGlance websiteId={websiteId} />}
          <Text>Choose an area in the navigation to edit the website.</Text>
        </>
      )}
    </Stack>
  );
}
