/** The account's AI agents (`accounts/{a}/ai_agents`): each with its instruction, model, connections and limits. */
import { Button, Group, Stack, Switch, Table, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { quote } from '../../lib/openapi-model/list.js';
import { ListState, Pager, StateBadge, useAccount, useListSearch, useModels, words } from './common';

type Search = { page_token?: string; q?: string; enabled?: string };

export function AgentsPage() {
  usePageTitle('AI agents');
  const api = useApi();
  const { accountId, canWrite } = useAccount();
  const [search, setSearch] = useListSearch<Search>();
  const filter = [search.q && `display_name:${quote(search.q)}`, search.enabled && `is_enabled = ${search.enabled}`].filter(Boolean).join(' AND ');
  const agents = useQuery({
    queryKey: ['ai_agents', accountId, search],
    queryFn: () =>
      data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_agents', { params: { path: { account_id: accountId }, query: { page_size: 25, page_token: search.page_token, ...(filter && { filter }) } } })),
  });
  const models = useModels();
  const modelName = (id: string | undefined) => models.data?.ai_models.find((m) => m.id === id);
  const rows = agents.data?.ai_agents ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>AI agents</Title>
        {canWrite && (
          <AnchorLink to="/a/$accountId/r/ai_agents/new" params={{ accountId }} underline="never">
            <Button component="span">New agent</Button>
          </AnchorLink>
        )}
      </Group>
      <Group align="flex-end">
        <TextInput label="Search by name" defaultValue={search.q ?? ''} onKeyDown={(e) => e.key === 'Enter' && setSearch({ q: e.currentTarget.value || undefined })} onBlur={(e) => setSearch({ q: e.currentTarget.value || undefined }, true)} w={240} />
        <Switch label="Enabled only" checked={search.enabled === 'true'} onChange={(e) => setSearch({ enabled: e.currentTarget.checked ? 'true' : undefined })} />
      </Group>
      <ListState query={agents} isEmpty={rows.length === 0} what="agents" empty={filter ? 'No agent matches these filters.' : 'An agent puts an instruction, a model and limits together. Create one to run it.'} />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Agent</Table.Th>
                <Table.Th scope="col">Model</Table.Th>
                <Table.Th scope="col">Connections</Table.Th>
                <Table.Th scope="col">Limits</Table.Th>
                <Table.Th scope="col">State</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((agent) => {
                const model = modelName(agent.preferred_model_id);
                return (
                  <Table.Tr key={agent.id}>
                    <Table.Td>
                      <AnchorLink to="/a/$accountId/r/ai_agents/$agentId" params={{ accountId, agentId: agent.id }}>
                        {agent.display_name ?? agent.id}
                      </AnchorLink>
                      <Text size="xs">version {agent.version}</Text>
                    </Table.Td>
                    <Table.Td>
                      {model?.display_name ?? agent.preferred_model_id ?? 'any'}
                      {model && model.state !== 'AVAILABLE' && <StateBadge state={model.state} />}
                    </Table.Td>
                    <Table.Td>{words(agent.connection_mode)}</Table.Td>
                    <Table.Td>
                      <Text size="sm">
                        {agent.max_tokens} tokens, {agent.max_attempts} attempts, {agent.timeout}
                      </Text>
                    </Table.Td>
                    <Table.Td>{agent.is_enabled ? 'Enabled' : 'Disabled'}</Table.Td>
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {agents.data && <Pager next={agents.data.next_page_token} current={search.page_token} total={agents.data.total_size} noun="agents" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}
