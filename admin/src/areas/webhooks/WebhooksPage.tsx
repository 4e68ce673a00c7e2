/**
 * The website's webhooks: URL, event types, state (and why the platform disabled one), and a create
 * form whose answer carries the signing secret, shown here once.
 */
import { useState } from 'react';
import { Badge, Button, Card, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data } from '../../lib/api';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { ListState } from '../../lib/list-ui';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { STATE, type Webhook } from './data';
import { SecretPanel } from './SecretPanel';
import { WebhookForm, type WebhookValues } from './WebhookForm';

const NEW: WebhookValues = { url: 'https://', event_types: [], description: '', enabled: true };

export function WebhooksPage() {
  usePageTitle('Webhooks');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website');
  const key = ['webhooks', websiteId];
  // At most 20 per website: one page holds them all.
  const list = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/webhooks', { params: { path: { website_id: websiteId }, query: { page_size: 50 } } })) });
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Webhook>();
  const create = useMutation({
    mutationFn: (v: WebhookValues) =>
      data(api.POST('/tenant-api/v1/websites/{website_id}/webhooks', { params: { path: { website_id: websiteId } }, body: { url: v.url, event_types: v.event_types, description: v.description, enabled: v.enabled } })),
    onSuccess: async (hook) => {
      setCreating(false);
      setCreated(hook);
      await qc.invalidateQueries({ queryKey: key });
    },
  });
  const hooks = list.data?.webhooks ?? [];

  return (
    <Stack maw={1100}>
      <Group justify="space-between">
        <Title order={1}>Webhooks</Title>
        {canWrite && !creating && (
          <Button
            onClick={() => {
              create.reset();
              setCreated(undefined);
              setCreating(true);
            }}
          >
            New webhook
          </Button>
        )}
      </Group>
      <Text size="sm">Each change of the event types a webhook subscribes to is POSTed to its URL, signed with its secret (Standard Webhooks).</Text>
      {created?.secret && (
        <SecretPanel secret={created.secret} title="Webhook created" onDone={() => setCreated(undefined)}>
          <Text size="sm">
            <AnchorLink to="/w/$websiteId/r/webhooks/$webhookId" params={{ websiteId, webhookId: created.id }}>
              Open the webhook
            </AnchorLink>{' '}
            to test it with a ping.
          </Text>
        </SecretPanel>
      )}
      {creating && (
        <Card withBorder>
          <Stack>
            <Title order={2} size="h4">
              New webhook
            </Title>
            <WebhookForm initial={NEW} submitLabel="Create webhook" pending={create.isPending} error={create.error} errorTitle="The webhook was not created" onSubmit={(v) => create.mutate(v)} onCancel={() => setCreating(false)} />
          </Stack>
        </Card>
      )}
      <ListState query={list} isEmpty={hooks.length === 0} what="webhooks" empty={canWrite ? 'Create one to push the website’s changes to another system.' : 'Nobody has subscribed an endpoint to this website’s changes yet.'} />
      {hooks.length > 0 && (
        <Table striped withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>URL</Table.Th>
              <Table.Th>Event types</Table.Th>
              <Table.Th>State</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {hooks.map((h) => (
              <Table.Tr key={h.id}>
                <Table.Td style={{ wordBreak: 'break-all' }}>
                  <AnchorLink to="/w/$websiteId/r/webhooks/$webhookId" params={{ websiteId, webhookId: h.id }}>
                    {h.url}
                  </AnchorLink>
                  {h.description && <Text size="sm">{h.description}</Text>}
                </Table.Td>
                <Table.Td>{h.event_types.join(', ')}</Table.Td>
                <Table.Td>
                  <StateBadge hook={h} />
                  {h.disabled_reason && <Text size="sm">{h.disabled_reason}</Text>}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}

export function StateBadge({ hook }: { hook: Webhook }) {
  const st = STATE[hook.state ?? (hook.enabled ? 'ACTIVE' : 'PAUSED')];
  return (
    <Badge color={st.color} variant="filled">
      {st.label}
    </Badge>
  );
}
