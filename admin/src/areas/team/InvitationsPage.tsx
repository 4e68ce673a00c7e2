import { useState } from 'react';
import { Alert, Badge, Button, Group, MultiSelect, Paper, SegmentedControl, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { ListState, Pager, formatDateTime, useUrlSearch } from '../../lib/list-ui';
import { guardOf } from './guards';
import { teamKeys, useAccountWebsites, useRoleOptions, useTeamAccount, type Invitation } from './data';
import { TeamTabs } from './TeamTabs';

// `state` is not filterable in the API (it turns EXPIRED with the clock): the page is narrowed here.
const STATE_FILTERS = [
  { value: 'OPEN', label: 'Open (pending or expired)' },
  { value: 'ALL', label: 'All' },
];

/** "in 6 days", "2 hours ago": when an invitation's link stops (or stopped) working. */
export function relative(iso: string | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const ms = new Date(iso).getTime() - now;
  const abs = Math.abs(ms);
  const [n, unit] = abs >= 86_400_000 ? [Math.round(abs / 86_400_000), 'day'] : abs >= 3_600_000 ? [Math.round(abs / 3_600_000), 'hour'] : [Math.max(1, Math.round(abs / 60_000)), 'minute'];
  const text = `${n} ${unit}${n === 1 ? '' : 's'}`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

/** Invite by address with a role and websites; invitations with their state and expiry; `:resend`, `:revoke`. */
export function InvitationsPage() {
  usePageTitle('Invitations');
  const api = useApi();
  const qc = useQueryClient();
  const { accountId, canManage } = useTeamAccount();
  const [search, setSearch] = useUrlSearch<{ state?: string; page_token?: string }>();
  const state = search.state === 'ALL' ? 'ALL' : 'OPEN';
  const roles = useRoleOptions(accountId);
  const invitations = useQuery({
    queryKey: [...teamKeys.invitations(accountId), search.page_token],
    queryFn: () =>
      data(
        api.GET('/tenant-api/v1/accounts/{account_id}/invitations', {
          params: { path: { account_id: accountId }, query: { page_token: search.page_token, page_size: 100 } },
        }),
      ),
  });
  const [rowError, setRowError] = useState<{ id: string; err: unknown; action: 'resend' | 'revoke' }>();
  const [resent, setResent] = useState<string>();
  const act = useMutation({
    mutationFn: ({ inv, action }: { inv: Invitation; action: 'resend' | 'revoke' }) =>
      action === 'resend'
        ? data(api.POST('/tenant-api/v1/accounts/{account_id}/invitations/{invitation_id}:resend', { params: { path: { account_id: accountId, invitation_id: inv.id } } }))
        : data(api.POST('/tenant-api/v1/accounts/{account_id}/invitations/{invitation_id}:revoke', { params: { path: { account_id: accountId, invitation_id: inv.id } } })),
    onMutate: () => {
      setRowError(undefined);
      setResent(undefined);
    },
    onError: (err, { inv, action }) => setRowError({ id: inv.id, err, action }),
    onSuccess: (_, { inv, action }) => {
      if (action === 'resend') setResent(inv.id);
      return qc.invalidateQueries({ queryKey: teamKeys.invitations(accountId) });
    },
  });
  const rows = (invitations.data?.invitations ?? []).filter((i) => state === 'ALL' || i.state === 'PENDING' || i.state === 'EXPIRED');

  return (
    <Stack>
      <Title order={1}>Team</Title>
      <TeamTabs current="invitations" />
      {canManage && <InviteForm accountId={accountId} roles={roles.options} />}
      <Title order={2} size="h3">
        Invitations
      </Title>
      <SegmentedControl
        aria-label="Invitation state"
        data={STATE_FILTERS}
        value={state}
        onChange={(v) => setSearch({ state: v === 'OPEN' ? undefined : v })}
        w="fit-content"
      />
      <ListState query={invitations} isEmpty={rows.length === 0} what={state === 'ALL' ? 'invitations' : 'open invitations'} empty="Invitations waiting for an answer show here." />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Address</Table.Th>
                <Table.Th scope="col">Role</Table.Th>
                <Table.Th scope="col">State</Table.Th>
                <Table.Th scope="col">Link expires</Table.Th>
                {canManage && <Table.Th scope="col">Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((inv) => {
                const open = inv.state === 'PENDING' || inv.state === 'EXPIRED';
                const guard = rowError?.id === inv.id ? guardOf(rowError.err, rowError.action === 'resend' ? 'resend' : 'invite') : undefined;
                return (
                  <Table.Tr key={inv.id}>
                    <Table.Td>
                      {inv.email}
                      {resent === inv.id && (
                        <Text size="sm" role="status">
                          Sent again: the new link is valid 7 days, the earlier one no longer works.
                        </Text>
                      )}
                      {rowError?.id === inv.id && (
                        <Text size="sm" c="red.9" role="alert">
                          {guard?.message ?? (rowError.err instanceof Error ? rowError.err.message : 'Failed.')}
                        </Text>
                      )}
                    </Table.Td>
                    <Table.Td>{roles.label(inv.role)}</Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color={inv.state === 'PENDING' ? 'blue.9' : inv.state === 'ACCEPTED' ? 'green.9' : 'gray.8'}>
                        {inv.state}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {inv.state === 'ACCEPTED' ? `Accepted ${formatDateTime(inv.accept_time)}` : <span title={formatDateTime(inv.expire_time)}>{relative(inv.expire_time)}</span>}
                    </Table.Td>
                    {canManage && (
                      <Table.Td>
                        {open && (
                          <Group gap="xs" wrap="nowrap">
                            <Button size="xs" variant="default" aria-label={`Resend the invitation to ${inv.email}`} onClick={() => act.mutate({ inv, action: 'resend' })} loading={act.isPending && act.variables?.inv.id === inv.id && act.variables.action === 'resend'}>
                              Resend
                            </Button>
                            {inv.state === 'PENDING' && (
                              <Button size="xs" variant="default" color="red" aria-label={`Revoke the invitation to ${inv.email}`} onClick={() => act.mutate({ inv, action: 'revoke' })} loading={act.isPending && act.variables?.inv.id === inv.id && act.variables.action === 'revoke'}>
                                Revoke
                              </Button>
                            )}
                          </Group>
                        )}
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {invitations.data && <Pager next={invitations.data.next_page_token} current={search.page_token} total={invitations.data.total_size} noun="invitations" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}

function InviteForm({ accountId, roles }: { accountId: string; roles: { value: string; label: string }[] }) {
  const api = useApi();
  const qc = useQueryClient();
  const websites = useAccountWebsites(accountId);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('roles/editor');
  const [websiteIds, setWebsiteIds] = useState<string[]>([]);
  const [sent, setSent] = useState<string>();
  const invite = useMutation({
    mutationFn: () =>
      data(
        api.POST('/tenant-api/v1/accounts/{account_id}/invitations', {
          params: { path: { account_id: accountId } },
          body: { email: email.trim(), role, website_ids: role === 'roles/administrator' ? [] : websiteIds },
        }),
      ),
    onMutate: () => setSent(undefined),
    onSuccess: async (inv) => {
      setSent(inv.email);
      setEmail('');
      setWebsiteIds([]);
      await qc.invalidateQueries({ queryKey: teamKeys.invitations(accountId) });
    },
  });
  const guard = guardOf(invite.error, 'invite');
  const fields = fieldErrorsOf(invite.error);
  return (
    <Paper withBorder p="md">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          invite.mutate();
        }}
        noValidate
      >
        <Stack>
          <Title order={2} size="h3">
            Invite someone
          </Title>
          <Text size="sm">They get a mail with a link, valid for 7 days, to join with the role and websites chosen here.</Text>
          {sent && (
            <Alert color="green" title="Invitation sent" role="status">
              A link was mailed to {sent}.
            </Alert>
          )}
          <Group align="flex-start" grow preventGrowOverflow={false} wrap="wrap">
            <TextInput label="Email address" type="email" required value={email} onChange={(e) => setEmail(e.currentTarget.value)} error={guard?.field === 'email' ? guard.message : fields.email} miw={220} />
            <Select label="Role" data={roles} value={role} onChange={(v) => v && setRole(v)} allowDeselect={false} error={guard?.field === 'role' ? guard.message : undefined} miw={180} />
            <MultiSelect
              label="Limit to websites"
              description="None chosen: every website."
              data={(websites.data ?? []).map((w) => ({ value: w.id, label: w.label }))}
              value={websiteIds}
              onChange={setWebsiteIds}
              disabled={role === 'roles/administrator'}
              error={guard?.field === 'website_ids' ? guard.message : undefined}
              miw={220}
            />
          </Group>
          {guard?.field === 'general' || guard?.field === 'grants' ? (
            <Alert color="red" role="alert" title="Not sent">
              {guard.message}
            </Alert>
          ) : (
            !guard && !fields.email && <ApiErrorAlert error={invite.error} title="Not sent" />
          )}
          <Group>
            <Button type="submit" loading={invite.isPending}>
              Send invitation
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}
