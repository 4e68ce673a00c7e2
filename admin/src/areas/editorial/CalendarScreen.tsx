/**
 * The rolling editorial calendar as a week or a month: each entry at its slot with its state and
 * exactly the verbs that state allows (verbs.ts); AI runs (drafting, review) show their progress
 * and cost while they run and after; an entry's details show the verdict, the approval, and which
 * fields of its post a person wrote (generation never overwrites those).
 */
import { useMemo, useState } from 'react';
import { Alert, Badge, Box, Button, Card, Code, Drawer, Group, Loader, Progress, SegmentedControl, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import dayjs, { type Dayjs } from 'dayjs';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { EditorialTabs } from './EditorialTabs';
import { calendarDays, type CalendarMode } from './calendar-days';
import { STATE_COLORS, STATE_LABELS, entryVerbs, formatMoney, verbLabel, type EntryState, type EntryVerb } from './verbs';

type Entry = Schemas['EditorialCalendarEntry'];
type Post = Schemas['BlogPost'];
type Plan = Schemas['EditorialPlan'];
type BacklogItem = Schemas['EditorialBacklogItem'];

const RUNNING: string[] = ['DRAFTING', 'IN_REVIEW'];

interface Lookups {
  plan?: Plan;
  posts: Map<string, Post>;
  topics: Map<string, BacklogItem>;
  accountId?: string;
  canWrite: boolean;
  canReadRuns: boolean;
}

export function CalendarScreen() {
  usePageTitle('Editorial calendar');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry: current } = useCurrentWebsite();
  const accountId = current?.account.id;
  const rights = useRights(accountId, websiteId);
  const canWrite = !!rights?.canWrite('website.editorial');
  const [mode, setMode] = useState<CalendarMode>('week');
  const [anchor, setAnchor] = useState<Dayjs>(() => dayjs());
  const [status, setStatus] = useState('');
  const key = ['editorial_calendar_entries', websiteId];
  const entries = useQuery({
    queryKey: key,
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/editorial_calendar_entries', { path: { website_id: websiteId }, query: { page_size: 100 } }),
    // A run in progress: look again until it ended.
    refetchInterval: (q) => (q.state.data?.some((e) => RUNNING.includes(e.state ?? '')) ? 1500 : false),
  });
  const plan = useQuery({ queryKey: ['editorial_plan', websiteId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/editorial_plan', { params: { path: { website_id: websiteId } } })) });
  const backlog = useQuery({
    queryKey: ['editorial_backlog_items', websiteId],
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/editorial_backlog_items', { path: { website_id: websiteId }, query: { page_size: 100, order_by: 'priority desc' } }),
  });
  const postIds = [...new Set((entries.data ?? []).map((e) => e.post_id).filter((id): id is string => !!id))].sort();
  const posts = useQuery({
    queryKey: ['blog_posts', websiteId, 'of-calendar', postIds, entries.dataUpdatedAt],
    enabled: postIds.length > 0,
    queryFn: async () => {
      const found = await Promise.all(
        postIds.map((id) => data(api.GET('/tenant-api/v1/websites/{website_id}/blog_posts/{blog_post_id}', { params: { path: { website_id: websiteId, blog_post_id: id } } })).catch(() => undefined)),
      );
      return new Map(found.filter((p): p is Post => !!p).map((p) => [p.id, p]));
    },
    placeholderData: (prev) => prev,
  });
  const refill = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/editorial_plan:refill', { params: { path: { website_id: websiteId } } })),
    onSuccess: (r) => setStatus(r.editorial_calendar_entries.length ? `${r.editorial_calendar_entries.length} new ${r.editorial_calendar_entries.length === 1 ? 'entry' : 'entries'} booked.` : 'The calendar is already full (or the backlog has nothing ready).'),
    onSettled: () => Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: ['editorial_backlog_items', websiteId] })]),
  });

  const days = useMemo(() => calendarDays(anchor, mode), [anchor, mode]);
  const byDay = useMemo(() => {
    const map = new Map<string, Entry[]>();
    for (const e of [...(entries.data ?? [])].sort((a, b) => (a.slot_time ?? '').localeCompare(b.slot_time ?? ''))) {
      const day = dayjs(e.slot_time).format('YYYY-MM-DD');
      if (!map.has(day)) map.set(day, []);
      map.get(day)!.push(e);
    }
    return map;
  }, [entries.data]);
  const lookups: Lookups = {
    plan: plan.data,
    posts: posts.data ?? new Map(),
    topics: new Map((backlog.data ?? []).map((b) => [b.id, b])),
    accountId,
    canWrite,
    canReadRuns: !!rights?.canRead('ai'),
  };
  const step = (by: number) => setAnchor((a) => a.add(by, mode === 'week' ? 'week' : 'month'));
  const first = days[0].date;
  const last = days[days.length - 1].date;
  const rangeLabel = mode === 'week' ? `${first.format('D MMM')} – ${last.format('D MMM YYYY')}` : anchor.format('MMMM YYYY');
  const inRange = (entries.data ?? []).filter((e) => {
    const d = dayjs(e.slot_time);
    return !d.isBefore(first, 'day') && !d.isAfter(last, 'day');
  }).length;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Editorial calendar</Title>
        {canWrite && (
          <Button onClick={() => refill.mutate()} loading={refill.isPending}>
            Fill the calendar
          </Button>
        )}
      </Group>
      <EditorialTabs current="calendar" />
      <Group justify="space-between" wrap="wrap">
        <Group gap="xs">
          <Button variant="default" size="xs" onClick={() => step(-1)} aria-label={mode === 'week' ? 'Previous week' : 'Previous month'}>
            ‹
          </Button>
          <Button variant="default" size="xs" onClick={() => setAnchor(dayjs())}>
            Today
          </Button>
          <Button variant="default" size="xs" onClick={() => step(1)} aria-label={mode === 'week' ? 'Next week' : 'Next month'}>
            ›
          </Button>
          <Title order={2} size="h4" aria-live="polite">
            {rangeLabel}
          </Title>
        </Group>
        <SegmentedControl
          aria-label="Calendar view"
          value={mode}
          onChange={(v) => setMode(v as CalendarMode)}
          data={[
            { value: 'week', label: 'Week' },
            { value: 'month', label: 'Month' },
          ]}
        />
      </Group>
      <Text role="status" aria-live="polite" size="sm">
        {status}
      </Text>
      <ApiErrorAlert error={entries.error ?? plan.error} title="The calendar could not be loaded" />
      <ApiErrorAlert error={refill.error} title="The calendar was not filled" />
      {entries.isPending && <Loader role="status" aria-label="Loading the calendar" />}
      {entries.data && entries.data.length === 0 && (
        <Alert title="The calendar is empty">
          Add topics to the backlog and weekly slots to the plan, then fill the calendar: each slot gets the highest-priority ready topic.
        </Alert>
      )}
      {entries.data && entries.data.length > 0 && inRange === 0 && <Text>No entry in this {mode}.</Text>}
      {entries.data && (
        <SimpleGrid cols={{ base: 1, md: 7 }} spacing="xs" verticalSpacing="xs">
          {days.map(({ date, inMonth }) => {
            const list = byDay.get(date.format('YYYY-MM-DD')) ?? [];
            const today = date.isSame(dayjs(), 'day');
            return (
              <Box
                key={date.format('YYYY-MM-DD')}
                component="section"
                aria-label={date.format('dddd D MMMM')}
                // Empty days of a month take no room on a phone.
                visibleFrom={mode === 'month' && list.length === 0 ? 'md' : undefined}
                style={{
                  border: '1px solid var(--mantine-color-gray-4)',
                  borderRadius: 'var(--mantine-radius-sm)',
                  padding: 6,
                  minHeight: mode === 'week' ? 160 : 90,
                  background: inMonth ? 'var(--mantine-color-body)' : 'var(--mantine-color-gray-1)',
                  outline: today ? '2px solid var(--mantine-color-blue-8)' : undefined,
                }}
              >
                <Text size="xs" fw={700} mb={4}>
                  {date.format(mode === 'week' ? 'ddd D MMM' : 'ddd D')}
                  {today ? ' · today' : ''}
                </Text>
                <Stack gap={6}>
                  {list.map((e) => (
                    <EntryCard key={e.id} entry={e} lookups={lookups} compact={mode === 'month'} onDone={setStatus} />
                  ))}
                </Stack>
              </Box>
            );
          })}
        </SimpleGrid>
      )}
    </Stack>
  );
}

function EntryCard({ entry, lookups, compact, onDone }: { entry: Entry; lookups: Lookups; compact: boolean; onDone: (message: string) => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId } = useCurrentWebsite();
  const [open, setOpen] = useState(false);
  const state = (entry.state ?? 'PLANNED') as EntryState;
  const topic = entry.backlog_item_id ? lookups.topics.get(entry.backlog_item_id)?.topic : undefined;
  const post = entry.post_id ? lookups.posts.get(entry.post_id) : undefined;
  const title = post?.title || topic || 'Untitled entry';
  const verbs = lookups.canWrite && lookups.plan ? entryVerbs(entry, lookups.plan) : [];
  const act = useMutation({
    mutationFn: (verb: EntryVerb) =>
      data(
        (api.POST as unknown as (p: string, init: unknown) => Promise<{ data?: Entry; response: Response }>)(`/tenant-api/v1/websites/{website_id}/editorial_calendar_entries/{editorial_calendar_entry_id}:${verb}`, {
          params: { path: { website_id: websiteId, editorial_calendar_entry_id: entry.id } },
          body: {},
        }),
      ),
    onSuccess: (e) => onDone(`${title}: ${STATE_LABELS[(e.state ?? 'PLANNED') as EntryState]}.`),
    onSettled: () =>
      Promise.all([
        qc.invalidateQueries({ queryKey: ['editorial_calendar_entries', websiteId] }),
        qc.invalidateQueries({ queryKey: ['editorial_backlog_items', websiteId] }),
      ]),
  });
  const runId = state === 'IN_REVIEW' ? entry.review_execution_id : state === 'DRAFTING' ? entry.drafting_execution_id : undefined;

  return (
    <Card withBorder padding={6} radius="sm" aria-label={`${title}, ${STATE_LABELS[state]}`} component="article">
      <Stack gap={4}>
        <Group gap={4} justify="space-between" wrap="wrap">
          <Text size="xs">{dayjs(entry.slot_time).format('HH:mm')}</Text>
          <Badge size="xs" variant="filled" color={STATE_COLORS[state]} style={{ overflow: 'visible' }}>
            {STATE_LABELS[state]}
          </Badge>
        </Group>
        <Text size="sm" fw={500} lineClamp={compact ? 2 : 3}>
          {title}
        </Text>
        {(entry.skipped_fields?.length ?? 0) > 0 && <Text size="xs">Kept your edits: {entry.skipped_fields!.join(', ')}</Text>}
        {runId && <RunProgress runId={runId} accountId={lookups.accountId} canRead={lookups.canReadRuns} step={state === 'IN_REVIEW' ? 'Review' : 'Drafting'} />}
        {state === 'FAILED' && entry.last_error && (
          <Text size="xs" c="red.9">
            {entry.failed_step === 'REVIEW' ? 'Review' : 'Drafting'} failed: {entry.last_error.message}
          </Text>
        )}
        {entry.verdict && state === 'REJECTED' && entry.verdict.passed === false && <Text size="xs">The review did not pass.</Text>}
        <ApiErrorAlert error={act.error} title={`${title} did not change`} />
        <Group gap={4}>
          {verbs.map((verb) => (
            <Button key={verb} size="compact-xs" variant={verb === 'publish' || verb === 'approve' ? 'filled' : 'default'} loading={act.isPending && act.variables === verb} disabled={act.isPending} onClick={() => act.mutate(verb)} aria-label={`${verbLabel(verb, entry)}: ${title}`}>
              {verbLabel(verb, entry)}
            </Button>
          ))}
          <Button size="compact-xs" variant="default" onClick={() => setOpen(true)} aria-label={`Details of ${title}`}>
            Details
          </Button>
        </Group>
      </Stack>
      {open && <EntryDetails entry={entry} post={post} topic={topic} lookups={lookups} onClose={() => setOpen(false)} />}
    </Card>
  );
}

/** An AI run's progress and cost (polled while it is queued or running). */
function RunProgress({ runId, accountId, canRead, step }: { runId: string; accountId?: string; canRead: boolean; step: string }) {
  const api = useApi();
  const run = useQuery({
    queryKey: ['ai_executions', accountId, runId],
    enabled: !!accountId && canRead,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_executions/{ai_execution_id}', { params: { path: { account_id: accountId!, ai_execution_id: runId } } })),
    refetchInterval: (q) => (!q.state.data || q.state.data.state === 'QUEUED' || q.state.data.state === 'RUNNING' ? 1500 : false),
  });
  const r = run.data;
  const running = !r || r.state === 'QUEUED' || r.state === 'RUNNING';
  const label = `${step} run ${r ? r.state?.toLowerCase() : 'in progress'}${r?.attempts?.length ? `, attempt ${r.attempts.length}` : ''}`;
  return (
    <Stack gap={2}>
      <Text size="xs" role="status" aria-live="polite">
        {label}
        {r?.cost ? ` · ${formatMoney(r.cost)}` : ''}
      </Text>
      <Progress value={running ? 100 : 100} animated={running} striped={running} size="sm" aria-label={label} />
    </Stack>
  );
}

function RunRow({ label, runId, accountId, canRead }: { label: string; runId?: string; accountId?: string; canRead: boolean }) {
  const api = useApi();
  const run = useQuery({
    queryKey: ['ai_executions', accountId, runId],
    enabled: !!runId && !!accountId && canRead,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_executions/{ai_execution_id}', { params: { path: { account_id: accountId!, ai_execution_id: runId! } } })),
    // The card's poll may have left the run as it was mid-way: read it again, and follow it while it runs.
    refetchOnMount: 'always',
    refetchInterval: (q) => (q.state.data?.state === 'QUEUED' || q.state.data?.state === 'RUNNING' ? 1500 : false),
  });
  if (!runId) return null;
  const r = run.data;
  return (
    <Table.Tr>
      <Table.Td>{label}</Table.Td>
      <Table.Td>{r?.state ?? (canRead ? '…' : 'not visible to your role')}</Table.Td>
      <Table.Td>{r?.cost ? formatMoney(r.cost) : r ? 'none (own key or not charged)' : ''}</Table.Td>
      <Table.Td>{r?.usage ? `${r.usage.input_tokens ?? 0} in / ${r.usage.output_tokens ?? 0} out` : ''}</Table.Td>
    </Table.Tr>
  );
}

const EDITABLE_FIELDS = ['title', 'custom_excerpt', 'content', 'meta_title', 'meta_description', 'url_key'];

function EntryDetails({ entry, post, topic, lookups, onClose }: { entry: Entry; post?: Post; topic?: string; lookups: Lookups; onClose: () => void }) {
  const { websiteId } = useCurrentWebsite();
  const provenance = (post?.field_provenance ?? {}) as Record<string, string>;
  const whoWrote = (field: string) => {
    const p = provenance[field];
    if (!p) return 'not written';
    if (p.startsWith('users/')) return 'a person (kept by later drafts)';
    if (p.includes('/ai_executions/')) return 'the drafting run';
    return 'the placeholder draft';
  };
  return (
    <Drawer opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} position="right" size="lg" title={post?.title || topic || 'Calendar entry'}>
      <Stack>
        <Group>
          <Badge variant="filled" color={STATE_COLORS[(entry.state ?? 'PLANNED') as EntryState]}>
            {STATE_LABELS[(entry.state ?? 'PLANNED') as EntryState]}
          </Badge>
          <Text size="sm">Slot: {dayjs(entry.slot_time).format('dddd D MMMM YYYY, HH:mm')}</Text>
        </Group>
        {topic && <Text size="sm">Topic: {topic}</Text>}
        {post && (
          <Text size="sm">
            Post: <strong>{post.title}</strong> ({post.state}){' '}
            <a href={`/w/${websiteId}/r/blog_posts/${post.id}`}>Open in the editor</a>
          </Text>
        )}
        {entry.verdict && (
          <Alert color={entry.verdict.passed ? 'teal' : 'orange'} title={entry.verdict.passed ? 'The review passed' : 'The review did not pass'}>
            {(entry.verdict.reasons ?? []).length > 0 ? (
              <Box component="ul" m={0} pl="md">
                {entry.verdict.reasons!.map((r, i) => (
                  <li key={i}>
                    <Text size="sm">{r}</Text>
                  </li>
                ))}
              </Box>
            ) : (
              <Text size="sm">No reasons given.</Text>
            )}
          </Alert>
        )}
        {entry.approval?.by && (
          <Text size="sm">
            Approved by <Code>{entry.approval.by}</Code> {entry.approval.time ? dayjs(entry.approval.time).format('D MMM HH:mm') : ''} (revision {entry.approval.post_revision}).
          </Text>
        )}
        {entry.last_error && (
          <Alert color="red" title={`The ${entry.failed_step === 'REVIEW' ? 'review' : 'drafting'} step failed`}>
            {entry.last_error.message}
          </Alert>
        )}
        <Title order={3} size="h5">
          AI runs
        </Title>
        {!entry.drafting_execution_id && !entry.review_execution_id ? (
          <Text size="sm">No AI run yet.</Text>
        ) : (
          <Table withTableBorder>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Run</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Cost</Table.Th>
                <Table.Th>Tokens</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              <RunRow label="Drafting" runId={entry.drafting_execution_id} accountId={lookups.accountId} canRead={lookups.canReadRuns} />
              <RunRow label="Review" runId={entry.review_execution_id} accountId={lookups.accountId} canRead={lookups.canReadRuns} />
            </Table.Tbody>
          </Table>
        )}
        {post && (
          <>
            <Title order={3} size="h5">
              Who wrote the post’s fields
            </Title>
            <Table withTableBorder>
              <Table.Tbody>
                {EDITABLE_FIELDS.map((f) => (
                  <Table.Tr key={f}>
                    <Table.Td>
                      <Code>{f}</Code>
                    </Table.Td>
                    <Table.Td>
                      {provenance[f]?.startsWith('users/') ? (
                        <Badge size="sm" variant="filled" color="blue.9">
                          Yours
                        </Badge>
                      ) : null}{' '}
                      {whoWrote(f)}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </>
        )}
      </Stack>
    </Drawer>
  );
}
