/**
 * One AI run: state (announced as it changes), attempts, tokens, cost, output or error — read again
 * every second while the run is queued or running — and `:cancel` while it is not final.
 */
import { Alert, Button, Card, Code, Group, Loader, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { formatMoney } from '../billing/money';
import { FINAL_STATES, StateBadge, dateTime, formatCount, useAccount, words } from './common';

type Attempt = { number?: number; start_time?: string; end_time?: string; http_status?: number; error_code?: string; message?: string; usage?: { input_tokens?: number; output_tokens?: number } };

function Figure({ label, value, testId }: { label: string; value: React.ReactNode; testId?: string }) {
  return (
    <div>
      <Text size="sm">{label}</Text>
      <Text fw={700} data-testid={testId} style={{ overflowWrap: 'anywhere' }}>
        {value}
      </Text>
    </div>
  );
}

export function ExecutionPage() {
  const { executionId } = useParams({ strict: false }) as { executionId: string };
  const api = useApi();
  const queryClient = useQueryClient();
  const { accountId, canWrite } = useAccount();
  const path = { account_id: accountId, ai_execution_id: executionId };
  const run = useQuery({
    queryKey: ['ai_executions', accountId, executionId],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_executions/{ai_execution_id}', { params: { path } })),
    refetchInterval: (q) => (q.state.data && FINAL_STATES.has(q.state.data.state ?? '') ? false : 1000),
  });
  const agent = useQuery({
    queryKey: ['ai_agents', accountId, run.data?.agent_id],
    enabled: !!run.data?.agent_id,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_agents/{ai_agent_id}', { params: { path: { account_id: accountId, ai_agent_id: run.data!.agent_id } } })),
    retry: false,
  });
  const cancel = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/accounts/{account_id}/ai_executions/{ai_execution_id}:cancel', { params: { path } })),
    onSuccess: (r) => queryClient.setQueryData(['ai_executions', accountId, executionId], r),
  });
  usePageTitle(`Run ${run.data ? words(run.data.state).toLowerCase() : ''}`.trim());
  if (run.isPending) return <Loader role="status" aria-label="Loading the run" />;
  if (run.error) return <ApiErrorAlert error={run.error} title="The run could not be loaded" />;
  const r = run.data;
  const final = FINAL_STATES.has(r.state ?? '');
  const attempts = (r.attempts ?? []) as Attempt[];
  const output = r.output as { text?: string; json?: unknown; artifacts?: Array<{ mime_type?: string; width?: number; height?: number; byte_size?: number; storage_key?: string }>; output_truncated?: boolean } | undefined;
  return (
    <Stack>
      <AnchorLink to="/a/$accountId/r/ai_executions" params={{ accountId }} size="sm">
        ← All runs
      </AnchorLink>
      <Group justify="space-between">
        <Group gap="sm">
          <Title order={1}>Run of {agent.data?.display_name ?? 'an agent'}</Title>
          <span role="status" aria-live="polite" aria-label={`State: ${words(r.state)}`}>
            <StateBadge state={r.state} />
          </span>
          {!final && <Loader size="xs" aria-hidden="true" />}
        </Group>
        {canWrite && !final && (
          <Button variant="default" color="red" onClick={() => cancel.mutate()} loading={cancel.isPending} disabled={r.cancel_requested}>
            {r.cancel_requested ? 'Cancelling…' : 'Cancel run'}
          </Button>
        )}
      </Group>
      <ApiErrorAlert error={cancel.error} title="The run was not cancelled" />
      <Card withBorder>
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          <Figure
            label="Agent"
            value={
              <AnchorLink to="/a/$accountId/r/ai_agents/$agentId" params={{ accountId, agentId: r.agent_id }}>
                {agent.data?.display_name ?? r.agent_id} (v{r.agent_version})
              </AnchorLink>
            }
          />
          <Figure label="Model" value={`${r.model_id ?? '—'}${r.provider ? ` (${r.provider})` : ''}`} />
          <Figure label="Connection" value={r.connection_mode === 'MANAGED' ? 'Platform key' : r.connection_mode === 'BYOK' ? 'Own key' : 'Not routed yet'} />
          <Figure label="Cost" testId="run-cost" value={r.cost ? formatMoney(r.cost) : r.connection_mode === 'BYOK' ? 'None (own key)' : final ? '$0.00' : 'Pending'} />
          <Figure label="Input tokens" value={formatCount(r.usage?.input_tokens ?? 0)} />
          <Figure label="Output tokens" value={formatCount(r.usage?.output_tokens ?? 0)} />
          <Figure label="Cached input tokens" value={formatCount(r.usage?.cache_read_input_tokens ?? 0)} />
          <Figure label="Instruction version" value={r.instruction_version ?? '—'} />
          <Figure label="Created" value={dateTime(r.create_time)} />
          <Figure label="Started" value={dateTime(r.start_time)} />
          <Figure label="Ended" value={dateTime(r.end_time)} />
          <Figure label="Source" value={r.source_module ? `${r.source_module}${r.source_id ? ` / ${r.source_id}` : ''}` : '—'} />
        </SimpleGrid>
      </Card>
      {r.error && (
        <Alert color="red" title={`The run ${r.state === 'EXPIRED' ? 'expired' : 'failed'}: ${words(r.error.status)}`}>
          {r.error.message}
        </Alert>
      )}
      {r.state === 'CANCELLED' && <Alert color="gray">The run was cancelled.</Alert>}
      <Card withBorder component="section" aria-labelledby="output-heading">
        <Title order={2} size="h4" id="output-heading" mb="xs">
          Output
        </Title>
        {!output && <Text size="sm">{final ? 'No output.' : 'The output appears here when the run succeeds.'}</Text>}
        {output?.text !== undefined && (
          <Code block style={{ whiteSpace: 'pre-wrap' }} data-testid="run-output">
            {output.text}
          </Code>
        )}
        {output?.json !== undefined && <Code block>{JSON.stringify(output.json, null, 2)}</Code>}
        {output?.artifacts?.map((a, i) => (
          <Text key={i} size="sm">
            Image {i + 1}: {a.width}×{a.height} {a.mime_type}, {formatCount(a.byte_size)} bytes
          </Text>
        ))}
        {output?.output_truncated && <Alert color="yellow" mt="xs">The answer stopped at the agent’s output token limit.</Alert>}
      </Card>
      <Card withBorder component="section" aria-labelledby="attempts-heading">
        <Title order={2} size="h4" id="attempts-heading" mb="xs">
          Attempts
        </Title>
        {attempts.length === 0 ? (
          <Text size="sm">{final ? 'No attempt was made.' : 'Waiting for the first attempt…'}</Text>
        ) : (
          <Table.ScrollContainer minWidth={600}>
            <Table>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th scope="col">#</Table.Th>
                  <Table.Th scope="col">Started</Table.Th>
                  <Table.Th scope="col">Ended</Table.Th>
                  <Table.Th scope="col">Provider answer</Table.Th>
                  <Table.Th scope="col">Tokens in / out</Table.Th>
                  <Table.Th scope="col">Outcome</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {attempts.map((a) => (
                  <Table.Tr key={a.number}>
                    <Table.Td>{a.number}</Table.Td>
                    <Table.Td>{dateTime(a.start_time)}</Table.Td>
                    <Table.Td>{dateTime(a.end_time)}</Table.Td>
                    <Table.Td>{a.http_status === 0 ? 'no response' : (a.http_status ?? '—')}</Table.Td>
                    <Table.Td>
                      {formatCount(a.usage?.input_tokens)} / {formatCount(a.usage?.output_tokens)}
                    </Table.Td>
                    <Table.Td>{a.error_code ? `${words(a.error_code)}${a.message ? `: ${a.message}` : ''}` : a.end_time ? 'Answered' : 'Running'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )}
      </Card>
    </Stack>
  );
}
