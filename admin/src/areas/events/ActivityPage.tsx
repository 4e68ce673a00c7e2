/**
 * Activity: the website's events, newest first (type filter, time range and page in the URL), each
 * with its time in the person's zone, type, resource (linked to its screen while it exists), actor,
 * and the event's `data` on demand.
 */
import { Fragment, useState } from 'react';
import { Button, Code, Group, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { data, paginate, type Schemas } from '../../lib/api';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { formatDateTime, ListState, Pager, useUrlSearch } from '../../lib/list-ui';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { eventTypeOptions, useEventTypes } from '../webhooks/data';
import { adminSplatOf, eventsFilter, isoOfLocalInput, localInputOf, type ActivitySearch } from './filter';

type Event = Schemas['Event'];

export function ActivityPage() {
  usePageTitle('Activity');
  const api = useApi();
  const { websiteId, entry } = useCurrentWebsite();
  const names = useMemberNames(entry?.account.id);
  const [search, setSearch] = useUrlSearch<ActivitySearch & Record<string, string | undefined>>();
  const types = useEventTypes();
  const filter = eventsFilter(search);
  const list = useQuery({
    queryKey: ['events', websiteId, filter, search.page_token],
    queryFn: () =>
      data(
        api.GET('/tenant-api/v1/websites/{website_id}/events', {
          params: { path: { website_id: websiteId }, query: { page_size: 50, ...(filter && { filter }), ...(search.page_token && { page_token: search.page_token }) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const [open, setOpen] = useState<string>();
  const rows = list.data?.events ?? [];
  const filtered = !!filter;

  return (
    <Stack maw={1200}>
      <Title order={1}>Activity</Title>
      <Text size="sm">Changes made to this website in the last 30 days, newest first: what you may read of them.</Text>
      <Group align="flex-end">
        <Select
          label="Event type"
          placeholder="Every type"
          searchable
          clearable
          data={eventTypeOptions(types.data).filter((g) => g.group !== 'Everything')}
          value={search.type ?? null}
          onChange={(v) => setSearch({ type: v ?? undefined })}
          nothingFoundMessage={types.isPending ? 'Loading the event types…' : 'No such event type'}
          w={320}
        />
        <TextInput label="From" type="datetime-local" value={localInputOf(search.from)} onChange={(e) => setSearch({ from: isoOfLocalInput(e.currentTarget.value) })} />
        <TextInput label="To" type="datetime-local" value={localInputOf(search.to)} onChange={(e) => setSearch({ to: isoOfLocalInput(e.currentTarget.value) })} />
        {filtered && (
          <Button variant="default" onClick={() => setSearch({ type: undefined, from: undefined, to: undefined })}>
            Clear filters
          </Button>
        )}
      </Group>
      <ListState
        query={list}
        isEmpty={rows.length === 0}
        what="events"
        empty={filtered ? 'No event matches these filters.' : 'Nothing has changed on this website in the last 30 days (or nothing you may read).'}
      />
      {rows.length > 0 && (
        <Table withTableBorder striped aria-label="Events">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Time</Table.Th>
              <Table.Th>Type</Table.Th>
              <Table.Th>Resource</Table.Th>
              <Table.Th>By</Table.Th>
              <Table.Th>Data</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((e) => {
              const expanded = open === e.id;
              return (
                <Fragment key={e.id}>
                  <Table.Tr>
                    <Table.Td>
                      <time dateTime={e.occur_time}>{formatDateTime(e.occur_time)}</time>
                    </Table.Td>
                    <Table.Td>{e.type}</Table.Td>
                    <Table.Td style={{ wordBreak: 'break-all' }}>
                      <ResourceCell event={e} websiteId={websiteId} />
                    </Table.Td>
                    <Table.Td>{actorOf(e, names.data)}</Table.Td>
                    <Table.Td>
                      <Button size="compact-xs" variant="default" aria-expanded={expanded} aria-controls={`event-${e.id}`} onClick={() => setOpen(expanded ? undefined : e.id)} aria-label={`${expanded ? 'Hide' : 'Show'} the data of ${e.type} at ${formatDateTime(e.occur_time)}`}>
                        {expanded ? 'Hide' : 'Show'}
                      </Button>
                    </Table.Td>
                  </Table.Tr>
                  {expanded && (
                    <Table.Tr id={`event-${e.id}`}>
                      <Table.Td colSpan={5}>
                        <Code block>{JSON.stringify(e.previous ? { data: e.data, previous: e.previous } : e.data ?? {}, null, 2)}</Code>
                      </Table.Td>
                    </Table.Tr>
                  )}
                </Fragment>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <Pager next={list.data?.next_page_token || undefined} current={search.page_token} total={list.data?.total_size} noun="events" onPage={(t) => setSearch({ page_token: t })} />
    </Stack>
  );
}

function ResourceCell({ event, websiteId }: { event: Event; websiteId: string }) {
  const splat = adminSplatOf(event.resource, websiteId, event.type);
  const title = typeof event.data?.title === 'string' ? event.data.title : typeof event.data?.display_name === 'string' ? event.data.display_name : undefined;
  const label = title ? `${title} (${event.collection})` : (event.resource ?? '—');
  if (!splat) return <>{label}</>;
  return (
    <AnchorLink to="/w/$websiteId/r/$" params={{ websiteId, _splat: splat }}>
      {label}
    </AnchorLink>
  );
}

/** users/{id} → the member's name or email, where the member may list the account's members (else the id shows). */
function useMemberNames(accountId: string | undefined) {
  const api = useApi();
  const rights = useRights(accountId);
  return useQuery({
    queryKey: ['team', accountId, 'members', 'names'],
    enabled: !!accountId && !!rights?.canRead('account.members'),
    staleTime: 60_000,
    queryFn: async () => {
      const out = new Map<string, string>();
      for await (const m of paginate(api, '/tenant-api/v1/accounts/{account_id}/members', { path: { account_id: accountId! } })) if (m.user) out.set(m.user, m.display_name || m.email || m.user);
      return out;
    },
  });
}

function actorOf(e: Event, names: Map<string, string> | undefined): string {
  const a = e.actor;
  if (!a || a.type === 'SYSTEM') return a?.agent ? `System (AI ${a.agent})` : 'System';
  const who = a.user ? (names?.get(a.user) ?? a.user.replace(/^users\//, 'user ')) : 'a user';
  return [who, a.role && `as ${a.role.replace(/^(accounts\/[^/]+\/)?(account_)?roles\//, '')}`, a.agent && `via ${a.agent}`].filter(Boolean).join(' ');
}
