/**
 * The account's AI billing (`accounts/{a}/ai_billing`): balance, this month's spend, the limits
 * (per run and per month, editable with `If-Match`), usage over the last 30 days as a chart (from
 * `ai_usage_records`) and the ledger (`ai_ledger_entries`, paged with page_token in the URL).
 */
import { useMemo, useState } from 'react';
import { Alert, Button, Card, Group, Loader, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { TimeChart } from '../../lib/charts/TimeChart';
import { AnchorLink } from '../../lib/layout/links';
import { ListState, Pager, dateTime, useAccount, useListSearch } from '../ai/common';
import { formatMoney, nanosToMoney, parseDollars, type Money } from './money';
import { dailyUsage } from './usage';

type Search = { page_token?: string };
const DAYS = 30;

function Limits({ billing, accountId, canWrite }: { billing: Schemas['AiBilling']; accountId: string; canWrite: boolean }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const show = (m?: Money) => (m ? formatMoney(m).replace('$', '') : '');
  const [run, setRun] = useState(show(billing.run_limit as Money | undefined));
  const [month, setMonth] = useState(show(billing.monthly_limit as Money | undefined));
  const [saved, setSaved] = useState(false);
  const runMoney = run.trim() ? parseDollars(run.replace(/,/g, '')) : null;
  const monthMoney = month.trim() ? parseDollars(month.replace(/,/g, '')) : null;
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/tenant-api/v1/accounts/{account_id}/ai_billing', {
          params: { path: { account_id: accountId }, query: { update_mask: 'run_limit,monthly_limit' }, header: { 'If-Match': billing.etag } },
          body: { run_limit: runMoney ?? null, monthly_limit: monthMoney ?? null },
        }),
      ),
    onSuccess: (b) => {
      queryClient.setQueryData(['ai_billing', accountId], b);
      setSaved(true);
    },
  });
  return (
    <Card withBorder component="section" aria-labelledby="limits-heading">
      <Title order={2} size="h4" id="limits-heading" mb="xs">
        Spending limits
      </Title>
      <Text size="sm" mb="sm">
        Runs on the platform key that a limit cannot cover are refused before they start. Leave a limit empty for none.
      </Text>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          if (runMoney !== undefined && monthMoney !== undefined) save.mutate();
        }}
      >
        <fieldset disabled={!canWrite} style={{ border: 0, padding: 0, margin: 0 }}>
          <Group align="flex-start">
            <TextInput label="Per run (US$)" value={run} onChange={(e) => setRun(e.currentTarget.value)} error={runMoney === undefined ? 'Type an amount such as 0.50.' : undefined} w={180} inputMode="decimal" />
            <TextInput label="Per month (US$)" value={month} onChange={(e) => setMonth(e.currentTarget.value)} error={monthMoney === undefined ? 'Type an amount such as 20.' : undefined} w={180} inputMode="decimal" />
            {canWrite && (
              <Button type="submit" mt={25} loading={save.isPending}>
                Save limits
              </Button>
            )}
          </Group>
        </fieldset>
      </form>
      {saved && (
        <Text size="sm" role="status" mt="xs">
          Limits saved.
        </Text>
      )}
      <ApiErrorAlert error={save.error} title="The limits were not saved" />
    </Card>
  );
}

function UsageChart({ accountId }: { accountId: string }) {
  const api = useApi();
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - (DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const usage = useQuery({
    queryKey: ['ai_usage_records', accountId, 'last-days', from],
    queryFn: async () => {
      // At most 10 pages of 100 attempts; beyond that the chart says it is partial.
      const records: Schemas['AiUsageRecord'][] = [];
      let token: string | undefined;
      for (let i = 0; i < 10; i++) {
        const page = await data(
          api.GET('/tenant-api/v1/accounts/{account_id}/ai_usage_records', {
            params: { path: { account_id: accountId }, query: { page_size: 100, page_token: token, filter: `create_time >= "${from}T00:00:00Z"` } },
          }),
        );
        records.push(...page.ai_usage_records);
        token = page.next_page_token || undefined;
        if (!token) return { records, partial: false };
      }
      return { records, partial: true };
    },
  });
  const chart = useMemo(() => {
    const days = dailyUsage(usage.data?.records ?? [], from, today);
    const cost = days.map((d) => Number(d.costNanos) / 1e9);
    const total = days.reduce((s, d) => s + d.costNanos, 0n);
    const tokens = days.reduce((s, d) => s + d.tokens, 0);
    return {
      labels: days.map((d) => d.day),
      axis: days.map((d) => d.day.slice(5)),
      series: [{ label: 'Cost (US$)', values: cost }],
      summary: `AI spend per day from ${from} to ${today} (UTC): ${formatMoney(nanosToMoney(total))} in all over ${days.reduce((s, d) => s + d.attempts, 0)} attempts, ${tokens.toLocaleString('en')} tokens.`,
    };
  }, [usage.data, from, today]);
  return (
    <Card withBorder component="section" aria-labelledby="usage-heading">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h4" id="usage-heading">
          Usage, last {DAYS} days
        </Title>
        <AnchorLink to="/a/$accountId/r/ai_usage_records" params={{ accountId }} size="sm">
          Every attempt’s usage
        </AnchorLink>
      </Group>
      {usage.isPending && <Loader size="sm" role="status" aria-label="Loading usage" />}
      <ApiErrorAlert error={usage.error} title="Usage could not be loaded" />
      {usage.data && (
        <>
          <Text size="sm" mb="xs" data-testid="usage-summary">
            {chart.summary}
          </Text>
          {usage.data.partial && <Alert color="yellow">Only the latest 1,000 attempts are drawn.</Alert>}
          <TimeChart timeLabels={chart.labels} axisLabels={chart.axis} series={chart.series} summary={chart.summary} caption={chart.summary} format={(v) => `$${v < 1 ? v.toPrecision(2) : v.toFixed(2)}`} bars height={200} />
        </>
      )}
    </Card>
  );
}

export function Ledger({ accountId, title = 'Ledger' }: { accountId: string; title?: string }) {
  const api = useApi();
  const [search, setSearch] = useListSearch<Search>();
  const ledger = useQuery({
    queryKey: ['ai_ledger_entries', accountId, search.page_token],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_ledger_entries', { params: { path: { account_id: accountId }, query: { page_size: 20, page_token: search.page_token } } })),
  });
  const rows = ledger.data?.ai_ledger_entries ?? [];
  return (
    <Card withBorder component="section" aria-labelledby="ledger-heading">
      <Title order={2} size="h4" id="ledger-heading" mb="xs">
        {title}
      </Title>
      <ListState query={ledger} isEmpty={rows.length === 0} what="ledger entries" empty="Credits and charges appear here." />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={600}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">When</Table.Th>
                <Table.Th scope="col">What</Table.Th>
                <Table.Th scope="col" ta="right">
                  Amount
                </Table.Th>
                <Table.Th scope="col" ta="right">
                  Balance after
                </Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((e) => (
                <Table.Tr key={e.id}>
                  <Table.Td>{dateTime(e.create_time)}</Table.Td>
                  <Table.Td>
                    {e.description ?? (e.kind === 'CREDIT' ? 'Credit' : 'Charge')}
                    {e.execution_id && (
                      <>
                        {' '}
                        (
                        <AnchorLink to="/a/$accountId/r/ai_executions/$executionId" params={{ accountId, executionId: e.execution_id }}>
                          run, attempt {e.attempt_number}
                        </AnchorLink>
                        )
                      </>
                    )}
                  </Table.Td>
                  <Table.Td ta="right">{formatMoney(e.amount as Money)}</Table.Td>
                  <Table.Td ta="right">{formatMoney(e.balance_after as Money)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {ledger.data && <Pager next={ledger.data.next_page_token} current={search.page_token} total={ledger.data.total_size} noun="entries" onPage={(page_token) => setSearch({ page_token })} />}
    </Card>
  );
}

export function BillingPage() {
  usePageTitle('AI billing');
  const api = useApi();
  const { accountId, canWrite } = useAccount();
  const billing = useQuery({ queryKey: ['ai_billing', accountId], queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_billing', { params: { path: { account_id: accountId } } })) });
  const b = billing.data;
  return (
    <Stack>
      <Title order={1}>AI billing</Title>
      <ApiErrorAlert error={billing.error} title="Billing could not be loaded" />
      {billing.isPending && <Loader role="status" aria-label="Loading billing" />}
      {b && (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <Card withBorder>
            <Text size="sm">Balance</Text>
            <Text fw={700} fz={28} data-testid="balance">
              {formatMoney(b.balance as Money)}
            </Text>
            <Text size="xs">Runs on the platform key are charged here; own keys are not.</Text>
          </Card>
          <Card withBorder>
            <Text size="sm">Spent in {b.month ?? 'this month'} (UTC)</Text>
            <Text fw={700} fz={28} data-testid="month-spend">
              {formatMoney(b.month_spend as Money)}
            </Text>
            {b.monthly_limit && <Text size="xs">of {formatMoney(b.monthly_limit as Money)} a month</Text>}
          </Card>
          <Card withBorder>
            <Text size="sm">Per-run limit</Text>
            <Text fw={700} fz={28}>
              {b.run_limit ? formatMoney(b.run_limit as Money) : 'None'}
            </Text>
          </Card>
        </SimpleGrid>
      )}
      {b && <Limits key={b.etag} billing={b} accountId={accountId} canWrite={canWrite} />}
      <UsageChart accountId={accountId} />
      <Ledger accountId={accountId} />
    </Stack>
  );
}

export function LedgerPage() {
  usePageTitle('AI ledger');
  const { accountId } = useAccount();
  return (
    <Stack>
      <Title order={1}>AI ledger</Title>
      <Text>Every credit and every charge of the AI balance, newest first.</Text>
      <Ledger accountId={accountId} title="Entries" />
    </Stack>
  );
}
