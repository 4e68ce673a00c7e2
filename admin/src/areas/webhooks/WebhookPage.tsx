/**
 * One webhook: edit (If-Match), enable/disable, `:ping`, `:rotate_secret` (the new secret shown
 * once), delete with confirmation, and its delivery log with `:redeliver`.
 */
import { Fragment, useState } from 'react';
import { Alert, Badge, Button, Card, Code, Group, Loader, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { data } from '../../lib/api';
import { ApiErrorAlert } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { formatDateTime, ListState, Pager } from '../../lib/list-ui';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { DELIVERY_STATE, type Delivery, type Webhook } from './data';
import { SecretPanel } from './SecretPanel';
import { WebhookForm, type WebhookValues } from './WebhookForm';
import { StateBadge } from './WebhooksPage';

export function WebhookPage() {
  const { webhookId } = useParams({ from: '/signed-in/w/$websiteId/r/webhooks/$webhookId' });
  usePageTitle('Webhook');
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website');
  const path = { website_id: websiteId, webhook_id: webhookId };
  const key = ['webhooks', websiteId, webhookId];
  const hook = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}', { params: { path } })) });
  const refresh = () => qc.invalidateQueries({ queryKey: ['webhooks', websiteId] });
  const [rotated, setRotated] = useState<Webhook>();
  const [confirmDelete, setConfirmDelete] = useState(false);

  const patch = (v: Partial<WebhookValues>) =>
    data(
      api.PATCH('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}', {
        params: { path, query: { update_mask: Object.keys(v).join(',') }, header: { 'If-Match': hook.data!.etag } },
        body: v as WebhookValues,
      }),
    );
  const saved = async (h: Webhook) => {
    qc.setQueryData(key, h);
    await refresh();
  };
  const update = useMutation({ mutationFn: (v: WebhookValues) => patch(v), onSuccess: saved });
  const toggle = useMutation({ mutationFn: (enabled: boolean) => patch({ enabled }), onSuccess: saved });
  const ping = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}:ping', { params: { path } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: [...key, 'deliveries'] }),
  });
  const rotate = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}:rotate_secret', { params: { path } })),
    onSuccess: async (h) => {
      setRotated(h);
      await refresh();
    },
  });
  const remove = useMutation({
    // 204 without a body (the client throws on failures): nothing to unwrap.
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}', { params: { path, header: { 'If-Match': hook.data!.etag } } }),
    onSuccess: async () => {
      setConfirmDelete(false);
      // Leave first: refetching this webhook (or its deliveries) now would answer 404.
      await navigate({ to: '/w/$websiteId/r/webhooks', params: { websiteId } });
      qc.removeQueries({ queryKey: key });
      await qc.invalidateQueries({ queryKey: ['webhooks', websiteId], exact: true });
    },
  });

  const h = hook.data;
  return (
    <Stack maw={1100}>
      <AnchorLink to="/w/$websiteId/r/webhooks" params={{ websiteId }} size="sm">
        ← Webhooks
      </AnchorLink>
      <Title order={1}>Webhook</Title>
      {hook.isPending && <Loader role="status" aria-label="Loading the webhook" />}
      <ApiErrorAlert error={hook.error} title="The webhook could not be loaded" />
      {h && (
        <>
          <Group>
            <Text style={{ wordBreak: 'break-all' }}>{h.url}</Text>
            <StateBadge hook={h} />
          </Group>
          {h.disabled_reason && (
            <Alert color="red" title="Disabled by the platform">
              {h.disabled_reason} Enable it to deliver again.
            </Alert>
          )}
          {h.previous_secret_expire_time && new Date(h.previous_secret_expire_time) > new Date() && (
            <Text size="sm">The previous secret still signs deliveries until {formatDateTime(h.previous_secret_expire_time)}.</Text>
          )}
          {rotated?.secret && (
            <SecretPanel secret={rotated.secret} title="New signing secret" onDone={() => setRotated(undefined)}>
              <Text size="sm">
                The old secret keeps signing deliveries too until {formatDateTime(rotated.previous_secret_expire_time)} (each delivery carries both signatures), so switch your receiver before then.
              </Text>
            </SecretPanel>
          )}
          {canWrite && (
            <Group>
              <Button variant="default" onClick={() => ping.mutate()} loading={ping.isPending}>
                Send a ping
              </Button>
              <Button variant="default" onClick={() => toggle.mutate(!h.enabled)} loading={toggle.isPending}>
                {h.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button variant="default" onClick={() => rotate.mutate()} loading={rotate.isPending}>
                Rotate secret
              </Button>
              <Button color="red" variant="light" onClick={() => setConfirmDelete(true)}>
                Delete
              </Button>
            </Group>
          )}
          {ping.isSuccess && (
            <Text size="sm" role="status">
              Ping queued: follow it in the deliveries below.
            </Text>
          )}
          <ApiErrorAlert error={ping.error} title="The ping was not sent" />
          <ApiErrorAlert error={rotate.error} title="The secret was not rotated" />
          <ApiErrorAlert error={toggle.error} title={h.enabled ? 'The webhook was not disabled' : 'The webhook was not enabled'} />
          <Card withBorder>
            <Stack>
              <Title order={2} size="h4">
                Settings
              </Title>
              <WebhookForm
                key={h.etag}
                initial={{ url: h.url, event_types: h.event_types, description: h.description ?? '', enabled: h.enabled }}
                submitLabel="Save"
                pending={update.isPending}
                error={update.error}
                errorTitle="The webhook was not saved"
                disabled={!canWrite}
                onSubmit={(v) => update.mutate(v)}
              />
              {update.isSuccess && (
                <Text size="sm" role="status">
                  Saved.
                </Text>
              )}
            </Stack>
          </Card>
          <Deliveries websiteId={websiteId} webhookId={webhookId} canWrite={canWrite} />
          <Modal opened={confirmDelete} onClose={() => setConfirmDelete(false)} title="Delete this webhook?" closeButtonProps={{ 'aria-label': 'Close' }} transitionProps={{ duration: 0 }}>
            <Stack>
              <Text>Deliveries to {h.url} stop at once, and its delivery log is deleted. This cannot be undone.</Text>
              <ApiErrorAlert error={remove.error} title="The webhook was not deleted" />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setConfirmDelete(false)} disabled={remove.isPending}>
                  Keep it
                </Button>
                <Button color="red" onClick={() => remove.mutate()} loading={remove.isPending}>
                  Delete webhook
                </Button>
              </Group>
            </Stack>
          </Modal>
        </>
      )}
    </Stack>
  );
}

/** The delivery log, newest first; refreshed every few seconds while a delivery is under way. */
function Deliveries({ websiteId, webhookId, canWrite }: { websiteId: string; webhookId: string; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const [pageToken, setPageToken] = useState<string>();
  const [open, setOpen] = useState<string>();
  const key = ['webhooks', websiteId, webhookId, 'deliveries'];
  const list = useQuery({
    queryKey: [...key, pageToken],
    queryFn: () =>
      data(
        api.GET('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}/deliveries', {
          params: { path: { website_id: websiteId, webhook_id: webhookId }, query: { page_size: 20, ...(pageToken && { page_token: pageToken }) } },
        }),
      ),
    refetchInterval: (q) => (q.state.data?.deliveries?.some((d) => d.state === 'PENDING' || d.state === 'DELIVERING') ? 2000 : false),
  });
  const redeliver = useMutation({
    mutationFn: (d: Delivery) =>
      data(api.POST('/tenant-api/v1/websites/{website_id}/webhooks/{webhook_id}/deliveries/{delivery_id}:redeliver', { params: { path: { website_id: websiteId, webhook_id: webhookId, delivery_id: d.id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: key }),
  });
  const rows = list.data?.deliveries ?? [];
  return (
    <Stack>
      <Title order={2} size="h4">
        Deliveries
      </Title>
      <ApiErrorAlert error={redeliver.error} title="The delivery was not repeated" />
      <ListState query={list} isEmpty={rows.length === 0} what="deliveries" empty="Nothing sent yet. Send a ping to test the endpoint." />
      {rows.length > 0 && (
        <Table withTableBorder aria-label="Deliveries">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Created</Table.Th>
              <Table.Th>Event type</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Attempts</Table.Th>
              <Table.Th>Last answer</Table.Th>
              <Table.Th>Next attempt</Table.Th>
              <Table.Th>
                <span className="sr-only" style={srOnly}>
                  Actions
                </span>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((d) => {
              const last = d.attempts?.at(-1);
              const st = d.state ? DELIVERY_STATE[d.state] : undefined;
              const expanded = open === d.id;
              return (
                <Fragment key={d.id}>
                  <Table.Tr>
                    <Table.Td>{formatDateTime(d.create_time)}</Table.Td>
                    <Table.Td>
                      {d.event_type}
                      {d.redelivery_of && <Text size="xs">redelivery</Text>}
                    </Table.Td>
                    <Table.Td>
                      {st && (
                        <Badge color={st.color} variant="filled">
                          {st.label}
                        </Badge>
                      )}
                    </Table.Td>
                    <Table.Td>{d.attempt_count ?? 0}</Table.Td>
                    <Table.Td>{last ? `${last.status_code ?? (last.error ? 'no answer' : '—')}${last.duration_ms !== undefined ? ` in ${last.duration_ms} ms` : ''}` : '—'}</Table.Td>
                    <Table.Td>{d.state === 'PENDING' ? formatDateTime(d.next_attempt_time) : '—'}</Table.Td>
                    <Table.Td>
                      <Group gap="xs" wrap="nowrap">
                        <Button size="compact-xs" variant="default" aria-expanded={expanded} aria-controls={`delivery-${d.id}`} onClick={() => setOpen(expanded ? undefined : d.id)} disabled={!d.attempts?.length}>
                          {expanded ? 'Hide attempts' : 'Attempts'}
                        </Button>
                        {canWrite && (
                          <Button size="compact-xs" variant="default" onClick={() => redeliver.mutate(d)} loading={redeliver.isPending && redeliver.variables?.id === d.id}>
                            Redeliver
                          </Button>
                        )}
                      </Group>
                    </Table.Td>
                  </Table.Tr>
                  {expanded && (
                    <Table.Tr id={`delivery-${d.id}`}>
                      <Table.Td colSpan={7}>
                        <Stack gap="xs">
                          {(d.attempts ?? []).map((a, i) => (
                            <div key={i}>
                              <Text size="sm">
                                {formatDateTime(a.time)}: {a.status_code != null ? `HTTP ${a.status_code}` : 'no answer'}
                                {a.duration_ms !== undefined && ` in ${a.duration_ms} ms`}
                                {a.error && ` — ${a.error}`}
                              </Text>
                              {a.response_excerpt ? <Code block>{a.response_excerpt}</Code> : <Text size="sm">Empty answer body.</Text>}
                            </div>
                          ))}
                        </Stack>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <Pager next={list.data?.next_page_token || undefined} current={pageToken} noun="deliveries" onPage={setPageToken} />
      {!list.isPending && (
        <Group>
          <Button size="xs" variant="subtle" onClick={() => void list.refetch()} loading={list.isFetching}>
            Refresh
          </Button>
        </Group>
      )}
    </Stack>
  );
}

const srOnly: React.CSSProperties = { position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)', whiteSpace: 'nowrap' };
