/** Every attempt's usage (`accounts/{a}/ai_usage_records`), filterable by connection kind; paged. */
import { Select, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ListState, Pager, dateTime, formatCount, useAccount, useListSearch } from '../ai/common';
import { formatMoney } from './money';

type Search = { page_token?: string; connection_mode?: string };

export function UsagePage() {
  usePageTitle('AI usage');
  const api = useApi();
  const { accountId } = useAccount();
  const [search, setSearch] = useListSearch<Search>();
  const filter = search.connection_mode ? `connection_mode = ${search.connection_mode}` : undefined;
  const list = useQuery({
    queryKey: ['ai_usage_records', accountId, search],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_usage_records', { params: { path: { account_id: accountId }, query: { page_size: 25, page_token: search.page_token, filter } } })),
  });
  const rows = list.data?.ai_usage_records ?? [];
  return (
    <Stack>
      <Title order={1}>AI usage</Title>
      <Text>
        Each attempt that reached a provider, with its cost when it ran on the platform key. The{' '}
        <AnchorLink to="/a/$accountId/r/ai_billing" params={{ accountId }}>
          billing screen
        </AnchorLink>{' '}
        charts it by day.
      </Text>
      <Select label="Key" placeholder="Any key" clearable data={[{ value: 'MANAGED', label: 'Platform key' }, { value: 'BYOK', label: 'Own keys' }]} value={search.connection_mode ?? null} onChange={(v) => setSearch({ connection_mode: v ?? undefined })} w={200} />
      <ListState query={list} isEmpty={rows.length === 0} what="usage records" empty="Usage appears once a run reached a provider." />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">Run</Table.Th>
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
              {rows.map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>{dateTime(u.create_time)}</Table.Td>
                  <Table.Td>
                    {u.execution_id ? (
                      <AnchorLink to="/a/$accountId/r/ai_executions/$executionId" params={{ accountId, executionId: u.execution_id }}>
                        attempt {u.attempt_number}
                      </AnchorLink>
                    ) : (
                      '—'
                    )}
                  </Table.Td>
                  <Table.Td>{u.model_id}</Table.Td>
                  <Table.Td ta="right">
                    {formatCount(u.input_tokens)} / {formatCount(u.output_tokens)}
                  </Table.Td>
                  <Table.Td ta="right">{u.cost ? formatMoney(u.cost) : 'own key'}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.data && <Pager next={list.data.next_page_token} current={search.page_token} total={list.data.total_size} noun="attempts" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}
