/** The account's AI runs (`accounts/{a}/ai_executions`), filtered by state and agent in the URL. */
import { Group, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { formatMoney } from '../billing/money';
import { FINAL_STATES, ListState, Pager, StateBadge, dateTime, formatCount, useAccount, useListSearch, words } from './common';

type Search = { page_token?: string; state?: string; agent_id?: string };
const STATES = ['QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export function ExecutionsPage() {
  usePageTitle('AI runs');
  const api = useApi();
  const { accountId } = useAccount();
  const [search, setSearch] = useListSearch<Search>();
  const filter = [search.state && `state = ${search.state}`, search.agent_id && `agent_id = "${search.agent_id}"`].filter(Boolean).join(' AND ') || undefined;
  const list = useQuery({
    queryKey: ['ai_executions', accountId, search],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_executions', { params: { path: { account_id: accountId }, query: { page_size: 25, page_token: search.page_token, filter } } })),
    // Runs still queued or running on this page: look again until they finish.
    refetchInterval: (q) => (q.state.data?.ai_executions.some((r) => !FINAL_STATES.has(r.state ?? '')) ? 2000 : false),
  });
  const agents = useQuery({
    queryKey: ['ai_agents', accountId, 'options'],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_agents', { params: { path: { account_id: accountId }, query: { page_size: 100, order_by: 'display_name' } } })),
  });
  const agentName = (id: string) => agents.data?.ai_agents.find((a) => a.id === id)?.display_name ?? id;
  const rows = list.data?.ai_executions ?? [];
  return (
    <Stack>
      <Title order={1}>AI runs</Title>
      <Group>
        <Select label="State" placeholder="Any state" clearable data={STATES.map((s) => ({ value: s, label: words(s) }))} value={search.state ?? null} onChange={(v) => setSearch({ state: v ?? undefined })} w={180} />
        <Select
          label="Agent"
          placeholder="Any agent"
          clearable
          searchable
          data={(agents.data?.ai_agents ?? []).map((a) => ({ value: a.id, label: a.display_name ?? a.id }))}
          value={search.agent_id ?? null}
          onChange={(v) => setSearch({ agent_id: v ?? undefined })}
          w={240}
        />
      </Group>
      <ListState query={list} isEmpty={rows.length === 0} what="runs" empty={filter ? 'No run matches these filters.' : 'Runs appear here once an agent is run (from its page, or by the API).'} />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={720}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Started</Table.Th>
                <Table.Th scope="col">Agent</Table.Th>
                <Table.Th scope="col">State</Table.Th>
                <Table.Th scope="col">Model</Table.Th>
                <Table.Th scope="col" ta="right">
                  Tokens in / out
                </Table.Th>
                <Table.Th scope="col" ta="right">
                  Cost
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={r.id}>
                  <Table.Td>
                    <AnchorLink to="/a/$accountId/r/ai_executions/$executionId" params={{ accountId, executionId: r.id }}>
                      {dateTime(r.create_time)}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>{agentName(r.agent_id)}</Table.Td>
                  <Table.Td>
                    <StateBadge state={r.state} />
                  </Table.Td>
                  <Table.Td>{r.model_id ?? '—'}</Table.Td>
                  <Table.Td ta="right">
                    {formatCount(r.usage?.input_tokens)} / {formatCount(r.usage?.output_tokens)}
                  </Table.Td>
                  <Table.Td ta="right">{r.cost ? formatMoney(r.cost) : r.connection_mode === 'BYOK' ? <Text size="sm">own key</Text> : '—'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.data && <Pager next={list.data.next_page_token} current={search.page_token} total={list.data.total_size} noun="runs" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}
