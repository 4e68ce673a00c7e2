/**
 * The website's site-search index (`websites/{w}/search_index`): state, document and pending counts,
 * the last reindex, `:reindex` with its Operation's progress, and a link to try the site's search.
 */
import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Card, Group, Loader, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useRights } from '../../lib/rights';
import { OperationProgress } from '../../generic/OperationProgress';
import type { OperationLike } from '../../lib/openapi-model/operations.js';

const count = new Intl.NumberFormat('en');
const when = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : 'never');

export function SearchIndexPage() {
  usePageTitle('Search index');
  const api = useApi();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const path = { params: { path: { website_id: websiteId } } };
  const index = useQuery({
    queryKey: ['search_index', websiteId],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/search_index', path)),
    // While changes wait for the background indexer, follow them down to zero.
    refetchInterval: (q) => (q.state.data?.state === 'UPDATING' ? 2000 : false),
  });
  const website = useQuery({ queryKey: ['websites', websiteId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}', path)) });
  const [operation, setOperation] = useState<OperationLike>();
  const reindex = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/search_index:reindex', path)),
    onSuccess: (op) => setOperation(op as OperationLike),
  });
  const [q, setQ] = useState('');
  const i = index.data;
  const siteUrl = website.data?.website_url?.replace(/\/$/, '');
  const searchUrl = siteUrl ? `${siteUrl}/search${q.trim() ? `?q=${encodeURIComponent(q.trim())}` : ''}` : undefined;
  return (
    <Stack>
      <Title order={1}>Search index</Title>
      <Text>Every published page and post is indexed for the site’s search, once per view it appears in. Content changes are indexed on their own within moments.</Text>
      <ApiErrorAlert error={index.error} title="The search index could not be loaded" />
      {index.isPending && <Loader role="status" aria-label="Loading the search index" />}
      {i && (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Card withBorder>
            <Text size="sm">State</Text>
            <Group gap="xs" mt={4}>
              <Badge color={i.state === 'UPDATING' ? 'yellow.9' : 'green.9'} variant="dot" size="lg" role="status">
                {i.state === 'UPDATING' ? 'Updating' : 'Current'}
              </Badge>
            </Group>
          </Card>
          <Card withBorder>
            <Text size="sm">Documents</Text>
            <Text fw={700} fz="xl" data-testid="document-count">
              {count.format(i.document_count ?? 0)}
            </Text>
          </Card>
          <Card withBorder>
            <Text size="sm">Waiting to be indexed</Text>
            <Text fw={700} fz="xl" data-testid="pending-count">
              {count.format(i.pending_count ?? 0)}
            </Text>
          </Card>
        </SimpleGrid>
      )}
      {i && (
        <Text size="sm">
          Last full reindex: {when(i.last_reindex_time)}
          {i.last_reindex_time && ` — ${count.format(i.last_reindex_documents ?? 0)} documents in ${((i.last_reindex_duration_ms ?? 0) / 1000).toFixed(1)} s`}.
        </Text>
      )}
      {rights?.canWrite('website.content') && (
        <Card withBorder>
          <Title order={2} size="h4" mb="xs">
            Rebuild the index
          </Title>
          <Text size="sm" mb="sm">
            Indexes every page and post again and removes documents whose page is gone. Not needed after ordinary edits; use it when search results look stale.
          </Text>
          <ApiErrorAlert error={reindex.error} title="The reindex did not start" />
          {operation ? (
            <OperationProgress
              operation={operation}
              onDone={() => {
                void index.refetch();
              }}
            />
          ) : null}
          <Group mt="sm">
            <Button onClick={() => reindex.mutate()} loading={reindex.isPending} disabled={!!operation && !operation.done && reindex.isPending}>
              Reindex now
            </Button>
            {operation && (
              <Button variant="default" onClick={() => setOperation(undefined)}>
                Clear
              </Button>
            )}
          </Group>
        </Card>
      )}
      <Card withBorder>
        <Title order={2} size="h4" mb="xs">
          Try the site’s search
        </Title>
        {searchUrl ? (
          <Group align="flex-end">
            <TextInput label="Search for" value={q} onChange={(e) => setQ(e.currentTarget.value)} w={280} />
            <Anchor href={searchUrl} target="_blank" rel="noreferrer">
              Open the site’s search{q.trim() ? ` for “${q.trim()}”` : ''} (new tab)
            </Anchor>
          </Group>
        ) : (
          <Alert color="gray">The website has no address yet.</Alert>
        )}
      </Card>
    </Stack>
  );
}
