import { useState } from 'react';
import { Alert, Badge, Button, Group, Modal, MultiSelect, Select, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { ApiErrorAlert } from '../../lib/errors';
import { ListState, Pager, formatDate, useUrlSearch } from '../../lib/list-ui';
import { MY_WEBSITES_KEY } from '../../lib/websites';
import { myAccessKey } from '../../lib/rights';
import { guardOf } from './guards';
import { teamKeys, useAccountWebsites, useRoleOptions, useTeamAccount, type Member } from './data';
import { TeamTabs } from './TeamTabs';

const ADMIN = 'roles/administrator';

/** Members of the account: role and website limits, edited in place; remove; leave the account. */
export function MembersPage() {
  usePageTitle('Members');
  const api = useApi();
  const { accountId, canManage } = useTeamAccount();
  const [search, setSearch] = useUrlSearch<{ page_token?: string }>();
  const roles = useRoleOptions(accountId);
  const websites = useAccountWebsites(accountId);
  const me = useQuery({ queryKey: ['users', 'me'], queryFn: () => data(api.GET('/tenant-api/v1/users/{user_id}', { params: { path: { user_id: 'me' } } })) });
  const members = useQuery({
    queryKey: [...teamKeys.members(accountId), search.page_token],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/members', { params: { path: { account_id: accountId }, query: { page_token: search.page_token, page_size: 50 } } })),
  });
  const [editing, setEditing] = useState<Member>();
  const [removing, setRemoving] = useState<Member>();
  const websiteName = (id: string) => websites.data?.find((w) => w.id === id)?.label ?? id;
  const rows = members.data?.members ?? [];

  return (
    <Stack>
      <Title order={1}>Team</Title>
      <TeamTabs current="members" />
      <Text>Everyone who belongs to this account, with their role and the websites they are limited to.</Text>
      <ListState query={members} isEmpty={rows.length === 0} what="members" empty="Invite someone from the Invitations tab." />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table striped>
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Member</Table.Th>
                <Table.Th scope="col">Role</Table.Th>
                <Table.Th scope="col">Websites</Table.Th>
                <Table.Th scope="col">Joined</Table.Th>
                {canManage && <Table.Th scope="col">Actions</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((m) => {
                const isMe = me.data?.name === m.user;
                const who = m.display_name || m.email || m.id;
                return (
                  <Table.Tr key={m.id}>
                    <Table.Td>
                      <Text fw={500}>
                        {who} {isMe && <Badge variant="outline" color="gray.8">You</Badge>}
                      </Text>
                      {m.display_name && <Text size="sm">{m.email}</Text>}
                    </Table.Td>
                    <Table.Td>{roles.label(m.role)}</Table.Td>
                    <Table.Td>{m.website_ids?.length ? m.website_ids.map(websiteName).join(', ') : 'All websites'}</Table.Td>
                    <Table.Td>{formatDate(m.create_time)}</Table.Td>
                    {canManage && (
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Button size="xs" variant="default" onClick={() => setEditing(m)} aria-label={`Edit ${who}`}>
                            Edit
                          </Button>
                          {!isMe && (
                            <Button size="xs" variant="default" color="red" onClick={() => setRemoving(m)} aria-label={`Remove ${who}`}>
                              Remove
                            </Button>
                          )}
                        </Group>
                      </Table.Td>
                    )}
                  </Table.Tr>
                );
              })}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {members.data && <Pager next={members.data.next_page_token} current={search.page_token} total={members.data.total_size} noun="members" onPage={(page_token) => setSearch({ page_token })} />}
      {editing && <EditMember accountId={accountId} member={editing} roles={roles.options} websites={websites.data ?? []} onClose={() => setEditing(undefined)} />}
      {removing && <RemoveMember accountId={accountId} member={removing} onClose={() => setRemoving(undefined)} />}
      <LeaveAccount accountId={accountId} />
    </Stack>
  );
}

function EditMember({ accountId, member, roles, websites, onClose }: { accountId: string; member: Member; roles: { value: string; label: string }[]; websites: { id: string; label: string }[]; onClose: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const [role, setRole] = useState(member.role ?? 'roles/restricted');
  const [websiteIds, setWebsiteIds] = useState<string[]>(member.website_ids ?? []);
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/tenant-api/v1/accounts/{account_id}/members/{member_id}', {
          params: { path: { account_id: accountId, member_id: member.id } },
          body: { role, website_ids: role === ADMIN ? [] : websiteIds, etag: member.etag },
        }),
      ),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: teamKeys.members(accountId) });
      await qc.invalidateQueries({ queryKey: myAccessKey(accountId) });
      onClose();
    },
  });
  const guard = guardOf(save.error, 'member');
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Role and websites of ${member.display_name || member.email}`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        <Stack>
          <Select label="Role" data={roles} value={role} onChange={(v) => v && setRole(v)} allowDeselect={false} error={guard?.field === 'role' ? guard.message : undefined} />
          <MultiSelect
            label="Limit to websites"
            description={role === ADMIN ? 'Administrators hold the whole account.' : 'None chosen: every website of the account.'}
            data={websites.map((w) => ({ value: w.id, label: w.label }))}
            value={role === ADMIN ? [] : websiteIds}
            onChange={setWebsiteIds}
            disabled={role === ADMIN}
            error={guard?.field === 'website_ids' ? guard.message : undefined}
          />
          {guard && (guard.field === 'general' || guard.field === 'grants') && (
            <Alert color="red" role="alert" title="Not saved">
              {guard.message}
            </Alert>
          )}
          {!guard && <ApiErrorAlert error={save.error} title="Not saved" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={save.isPending}>
              Save
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function RemoveMember({ accountId, member, onClose }: { accountId: string; member: Member; onClose: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/accounts/{account_id}/members/{member_id}', { params: { path: { account_id: accountId, member_id: member.id } } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: teamKeys.members(accountId) });
      onClose();
    },
  });
  const guard = guardOf(remove.error, 'remove');
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Remove ${member.display_name || member.email}?`}>
      <Stack>
        <Text>They lose access to this account at once. What they wrote stays.</Text>
        {guard ? (
          <Alert color="red" role="alert" title="Not removed">
            {guard.message}
          </Alert>
        ) : (
          <ApiErrorAlert error={remove.error} title="Not removed" />
        )}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>
            Cancel
          </Button>
          <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
            Remove member
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

function LeaveAccount({ accountId }: { accountId: string }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const leave = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/accounts/{account_id}/members:leave', { params: { path: { account_id: accountId } } })),
    onSuccess: async () => {
      qc.removeQueries({ queryKey: MY_WEBSITES_KEY });
      qc.removeQueries({ queryKey: myAccessKey(accountId) });
      await navigate({ to: '/websites' });
    },
  });
  const guard = guardOf(leave.error, 'leave');
  return (
    <Stack gap="xs" mt="xl">
      <Title order={2} size="h3">
        Leave this account
      </Title>
      <Text>You stop being a member: its websites disappear from your list. What you wrote stays.</Text>
      {!open ? (
        <Group>
          <Button variant="default" color="red" onClick={() => setOpen(true)}>
            Leave account…
          </Button>
        </Group>
      ) : (
        <Group>
          <Button color="red" loading={leave.isPending} onClick={() => leave.mutate()}>
            Yes, leave this account
          </Button>
          <Button variant="default" onClick={() => setOpen(false)}>
            Stay
          </Button>
        </Group>
      )}
      {guard ? (
        <Alert color="red" role="alert" title="You are still a member">
          {guard.message}
        </Alert>
      ) : (
        <ApiErrorAlert error={leave.error} title="You are still a member" />
      )}
    </Stack>
  );
}
