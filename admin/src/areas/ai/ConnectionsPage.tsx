/**
 * How the account's runs reach the providers (`accounts/{a}/ai_connections`): the platform's key
 * (MANAGED, one per provider, charged to the balance) and own keys (BYOK). A key is write-only: it
 * is typed once, stored encrypted and never shown again — only its last four characters.
 */
import { useState } from 'react';
import { Alert, Button, Card, Group, NumberInput, PasswordInput, Select, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { ListState, Pager, StateBadge, dateTime, useAccount, useListSearch, words } from './common';

type Connection = Schemas['AiConnection'];
type Search = { page_token?: string; mode?: string; provider?: string };
const PROVIDERS = [
  { value: 'openai', label: 'OpenAI' },
  { value: 'anthropic', label: 'Anthropic' },
  { value: 'openai_compatible', label: 'OpenAI-compatible server' },
];
const providerLabel = (p: string) => PROVIDERS.find((x) => x.value === p)?.label ?? p;

function NewConnection({ accountId, onDone }: { accountId: string; onDone: (c?: Connection) => void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { display_name: '', provider: 'openai', api_key: '', priority: 0 as number | string } });
  const [error, setError] = useState<unknown>();
  const create = useMutation({
    mutationFn: (v: typeof form.values) =>
      data(
        api.POST('/tenant-api/v1/accounts/{account_id}/ai_connections', {
          params: { path: { account_id: accountId } },
          body: { display_name: v.display_name || null, provider: v.provider as Connection['provider'], mode: 'BYOK', api_key: v.api_key, priority: v.priority === '' ? null : Number(v.priority) },
        }),
      ),
    onSuccess: (c) => {
      form.reset();
      void queryClient.invalidateQueries({ queryKey: ['ai_connections', accountId] });
      onDone(c);
    },
    onError: (err) => !applyFieldErrors(form, err, ['display_name', 'provider', 'api_key', 'priority']) && setError(err),
  });
  return (
    <Card withBorder component="section" aria-labelledby="new-connection">
      <Title order={2} size="h4" id="new-connection" mb="sm">
        Add your own key
      </Title>
      <form onSubmit={form.onSubmit((v) => (setError(undefined), create.mutate(v)))} noValidate>
        <Stack maw={520}>
          <ApiErrorAlert error={error} title="The connection was not added" />
          <TextInput label="Name" placeholder="e.g. Our OpenAI key" {...form.getInputProps('display_name')} />
          <Select label="Provider" data={PROVIDERS} allowDeselect={false} {...form.getInputProps('provider')} />
          <PasswordInput label="API key" required autoComplete="off" description="Stored encrypted. It is not shown again after saving — only its last four characters." {...form.getInputProps('api_key')} />
          <NumberInput label="Priority" description="Lower is tried first; the platform key has 100." min={0} max={1000} allowDecimal={false} {...form.getInputProps('priority')} />
          <Group>
            <Button type="submit" loading={create.isPending}>
              Save connection
            </Button>
            <Button variant="default" onClick={() => onDone()}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

function ConnectionRow({ c, accountId, canWrite }: { c: Connection; accountId: string; canWrite: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const path = { account_id: accountId, ai_connection_id: c.id };
  const [replacing, setReplacing] = useState(false);
  const [key, setKey] = useState('');
  const refresh = () => void queryClient.invalidateQueries({ queryKey: ['ai_connections', accountId] });
  const verify = useMutation({ mutationFn: () => data(api.POST('/tenant-api/v1/accounts/{account_id}/ai_connections/{ai_connection_id}:verify', { params: { path } })), onSuccess: refresh });
  const update = useMutation({
    mutationFn: (body: Schemas['AiConnectionUpdate']) => data(api.PATCH('/tenant-api/v1/accounts/{account_id}/ai_connections/{ai_connection_id}', { params: { path, header: { 'If-Match': c.etag } }, body })),
    onSuccess: () => {
      setReplacing(false);
      setKey('');
      refresh();
    },
  });
  const remove = useMutation({ mutationFn: () => api.DELETE('/tenant-api/v1/accounts/{account_id}/ai_connections/{ai_connection_id}', { params: { path, header: { 'If-Match': c.etag } } }), onSuccess: refresh });
  const name = c.display_name || `${providerLabel(c.provider)} ${c.mode === 'MANAGED' ? 'platform key' : 'key'}`;
  return (
    <Table.Tr>
      <Table.Td>
        <Text fw={600}>{name}</Text>
        <Text size="xs">
          {providerLabel(c.provider)} · {c.mode === 'MANAGED' ? 'platform key, charged to the balance' : `own key ending in …${c.key_hint ?? '????'}`}
        </Text>
      </Table.Td>
      <Table.Td>
        {c.mode === 'MANAGED' ? (
          <Text size="sm">Not verified (platform key)</Text>
        ) : (
          <Stack gap={2}>
            <StateBadge state={c.status} />
            <Text size="xs">checked {c.last_verify_time ? dateTime(c.last_verify_time) : 'never'}</Text>
          </Stack>
        )}
        {verify.data && (
          <Text size="xs" role="status">
            Verified: {words(verify.data.status)}
          </Text>
        )}
      </Table.Td>
      <Table.Td>{c.priority}</Table.Td>
      <Table.Td>
        <Switch aria-label={`${name} enabled`} checked={c.is_enabled} disabled={!canWrite || update.isPending} onChange={(e) => update.mutate({ is_enabled: e.currentTarget.checked })} />
      </Table.Td>
      <Table.Td>
        {canWrite && (
          <Stack gap={4}>
            <Group gap={4}>
              {c.mode === 'BYOK' && (
                <>
                  <Button size="compact-xs" variant="default" onClick={() => verify.mutate()} loading={verify.isPending} aria-label={`Verify ${name}`}>
                    Verify
                  </Button>
                  <Button size="compact-xs" variant="default" onClick={() => setReplacing((r) => !r)} aria-expanded={replacing} aria-label={`Replace key of ${name}`}>
                    Replace key
                  </Button>
                  <Button size="compact-xs" variant="light" color="red" onClick={() => remove.mutate()} loading={remove.isPending} aria-label={`Delete ${name}`}>
                    Delete
                  </Button>
                </>
              )}
            </Group>
            {replacing && (
              <Group gap={4} align="flex-end">
                <PasswordInput size="xs" label="New key" autoComplete="off" value={key} onChange={(e) => setKey(e.currentTarget.value)} w={200} />
                <Button size="compact-sm" onClick={() => update.mutate({ api_key: key })} disabled={key.length < 8} loading={update.isPending}>
                  Save key
                </Button>
              </Group>
            )}
            <ApiErrorAlert error={verify.error ?? update.error ?? remove.error} title="That did not work" />
          </Stack>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

export function ConnectionsPage() {
  usePageTitle('AI connections');
  const api = useApi();
  const { accountId, canWrite } = useAccount();
  const [search, setSearch] = useListSearch<Search>();
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<Connection>();
  const filter = [search.mode && `mode = ${search.mode}`, search.provider && `provider = "${search.provider}"`].filter(Boolean).join(' AND ') || undefined;
  const list = useQuery({
    queryKey: ['ai_connections', accountId, search],
    queryFn: () =>
      data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_connections', { params: { path: { account_id: accountId }, query: { page_size: 25, page_token: search.page_token, filter, order_by: 'create_time asc' } } })),
  });
  const rows = list.data?.ai_connections ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>AI connections</Title>
        {canWrite && !adding && (
          <Button
            onClick={() => {
              setAdding(true);
              setAdded(undefined);
            }}
          >
            Add your own key
          </Button>
        )}
      </Group>
      <Text>Runs use the enabled connections an agent allows, lowest priority first. Own keys leave the AI balance untouched; the platform key is charged to it.</Text>
      {added && (
        <Alert color="green" title="Connection saved" role="status">
          The key is stored encrypted and will not be shown again; it ends in …{added.key_hint}. Verify it to ask the provider whether it works.
        </Alert>
      )}
      {adding && (
        <NewConnection
          accountId={accountId}
          onDone={(c) => {
            setAdding(false);
            setAdded(c);
          }}
        />
      )}
      <Group>
        <Select label="Kind" placeholder="Any" clearable data={[{ value: 'BYOK', label: 'Own keys' }, { value: 'MANAGED', label: 'Platform keys' }]} value={search.mode ?? null} onChange={(v) => setSearch({ mode: v ?? undefined })} w={180} />
        <Select label="Provider" placeholder="Any" clearable data={PROVIDERS} value={search.provider ?? null} onChange={(v) => setSearch({ provider: v ?? undefined })} w={220} />
      </Group>
      <ListState query={list} isEmpty={rows.length === 0} what="connections" empty="No connection matches these filters." />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={760}>
          <Table striped verticalSpacing="sm">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Connection</Table.Th>
                <Table.Th scope="col">Status</Table.Th>
                <Table.Th scope="col">Priority</Table.Th>
                <Table.Th scope="col">Enabled</Table.Th>
                <Table.Th scope="col">Actions</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <ConnectionRow key={c.id} c={c} accountId={accountId} canWrite={canWrite} />
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.data && <Pager next={list.data.next_page_token} current={search.page_token} total={list.data.total_size} noun="connections" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}
