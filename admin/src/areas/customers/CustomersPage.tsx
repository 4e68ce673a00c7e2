import { useState } from 'react';
import { Badge, Button, Group, Modal, PasswordInput, Paper, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { ListState, Pager, formatDate, useUrlSearch } from '../../lib/list-ui';
import { customerFilter, type CustomerListSearch } from './rule';
import { customerKeys, LIMITS, useCustomerSite, useGroups } from './data';
import { CustomerTabs } from './CustomerTabs';

/** The website's customers: search and the declared filters (group, tag, dates, active), kept in the URL; paging by page_token. */
export function CustomersPage() {
  usePageTitle('Customers');
  const api = useApi();
  const { websiteId, canWrite } = useCustomerSite();
  const [search, setSearch] = useUrlSearch<CustomerListSearch & Record<string, string | undefined>>();
  const groups = useGroups(websiteId);
  const filter = customerFilter(search);
  const customers = useQuery({
    queryKey: [...customerKeys.list(websiteId), filter, search.page_token],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/customers', { params: { path: { website_id: websiteId }, query: { filter, page_token: search.page_token, page_size: 50 } } })),
    placeholderData: (previous) => previous,
  });
  const [creating, setCreating] = useState(false);
  const groupName = (id: string) => groups.data?.find((g) => g.id === id)?.display_name ?? id;
  const rows = customers.data?.customers ?? [];
  const filtered = !!filter;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Customers</Title>
        {canWrite && <Button onClick={() => setCreating(true)}>New customer</Button>}
      </Group>
      <CustomerTabs current="customers" />
      <Filters key={JSON.stringify(search)} search={search} groups={(groups.data ?? []).map((g) => ({ value: g.id, label: g.display_name }))} onApply={(f) => setSearch({ ...f, page_token: undefined })} />
      <ListState
        query={customers}
        isEmpty={rows.length === 0}
        what={filtered ? 'customers match these filters' : 'customers yet'}
        empty={filtered ? 'Change or clear the filters.' : 'Visitors who register on the website show here; you can also add one with “New customer”.'}
      />
      {rows.length > 0 && (
        <Table.ScrollContainer minWidth={640}>
          <Table striped aria-label="Customers">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Email</Table.Th>
                <Table.Th scope="col">Name</Table.Th>
                <Table.Th scope="col">Tags</Table.Th>
                <Table.Th scope="col">Groups</Table.Th>
                <Table.Th scope="col">Joined</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <AnchorLink to="/w/$websiteId/r/customers/$customerId" params={{ websiteId, customerId: c.id }}>
                      {c.email}
                    </AnchorLink>
                    {c.is_active === false && (
                      <Badge ml="xs" variant="outline" color="gray.8">
                        Inactive
                      </Badge>
                    )}
                  </Table.Td>
                  <Table.Td>{c.display_name}</Table.Td>
                  <Table.Td>{(c.tags ?? []).join(', ')}</Table.Td>
                  <Table.Td>{(c.group_ids ?? []).map(groupName).join(', ')}</Table.Td>
                  <Table.Td>{formatDate(c.create_time)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {customers.data && <Pager next={customers.data.next_page_token} current={search.page_token} total={customers.data.total_size} noun={filtered ? 'customers match' : 'customers'} onPage={(page_token) => setSearch({ page_token })} />}
      {creating && <NewCustomer websiteId={websiteId} onClose={() => setCreating(false)} />}
    </Stack>
  );
}

function Filters({ search, groups, onApply }: { search: CustomerListSearch; groups: { value: string; label: string }[]; onApply: (f: CustomerListSearch) => void }) {
  const [f, setF] = useState<CustomerListSearch>({ q: search.q, group: search.group, tag: search.tag, created_from: search.created_from, created_to: search.created_to, active: search.active });
  const set = (patch: CustomerListSearch) => setF({ ...f, ...patch });
  return (
    <Paper withBorder p="sm" component="form" role="search" aria-label="Filter customers" onSubmit={(e: React.FormEvent) => { e.preventDefault(); onApply(f); }}>
      <SimpleGrid cols={{ base: 1, xs: 2, md: 3, lg: 6 }} spacing="sm">
        <TextInput label="Search" placeholder="Email or name" value={f.q ?? ''} onChange={(e) => set({ q: e.currentTarget.value })} />
        <Select label="Group" placeholder="Any group" data={groups} value={f.group ?? null} onChange={(v) => set({ group: v ?? undefined })} clearable />
        <TextInput label="Tag" maxLength={LIMITS.tag} value={f.tag ?? ''} onChange={(e) => set({ tag: e.currentTarget.value })} />
        <TextInput label="Joined from" type="date" value={f.created_from ?? ''} onChange={(e) => set({ created_from: e.currentTarget.value || undefined })} />
        <TextInput label="Joined until" type="date" value={f.created_to ?? ''} onChange={(e) => set({ created_to: e.currentTarget.value || undefined })} />
        <Select
          label="Sign-in"
          placeholder="Active or not"
          data={[
            { value: 'true', label: 'Active' },
            { value: 'false', label: 'Inactive' },
          ]}
          value={f.active ?? null}
          onChange={(v) => set({ active: (v as 'true' | 'false' | null) ?? undefined })}
          clearable
        />
      </SimpleGrid>
      <Group mt="sm" gap="xs">
        <Button type="submit" size="sm">
          Apply filters
        </Button>
        <Button variant="default" size="sm" onClick={() => onApply({})}>
          Clear
        </Button>
        <Text size="xs">Attribute values are not filterable in the API yet.</Text>
      </Group>
    </Paper>
  );
}

function NewCustomer({ websiteId, onClose }: { websiteId: string; onClose: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const form = useForm({ initialValues: { email: '', password: '', display_name: '' } });
  const create = useMutation({
    mutationFn: (v: typeof form.values) => data(api.POST('/tenant-api/v1/websites/{website_id}/customers', { params: { path: { website_id: websiteId } }, body: { ...v, display_name: v.display_name || undefined } })),
    onSuccess: async (c) => {
      await qc.invalidateQueries({ queryKey: customerKeys.list(websiteId) });
      await navigate({ to: '/w/$websiteId/r/customers/$customerId', params: { websiteId, customerId: c.id } });
    },
    onError: (err) => applyFieldErrors(form, err, ['email', 'password', 'display_name']),
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="New customer">
      <form onSubmit={form.onSubmit((v) => create.mutate(v))} noValidate>
        <Stack>
          <TextInput label="Email" type="email" required {...form.getInputProps('email')} />
          <TextInput label="Name" maxLength={LIMITS.name} {...form.getInputProps('display_name')} />
          <PasswordInput label="Password" description="At least 8 characters, with a letter and a digit." required autoComplete="new-password" {...form.getInputProps('password')} />
          {create.error !== null && Object.keys(form.errors).length === 0 && <ApiErrorAlert error={create.error} title="Not created" />}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={create.isPending}>
              Create customer
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
