/** The account's instructions (`accounts/{a}/ai_instructions`): versioned templates with `{{variables}}`. */
import { useState } from 'react';
import { Button, Card, Group, Stack, Table, TagsInput, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { quote } from '../../lib/openapi-model/list.js';
import { ListState, Pager, dateTime, useAccount, useListSearch } from './common';

type Search = { page_token?: string; q?: string };

function CreateInstruction({ accountId, onClose }: { accountId: string; onClose: () => void }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const form = useForm({ initialValues: { display_name: '', description: '', variables: [] as string[], content: '', notes: '' } });
  const [error, setError] = useState<unknown>();
  const create = useMutation({
    mutationFn: (v: typeof form.values) => data(api.POST('/tenant-api/v1/accounts/{account_id}/ai_instructions', { params: { path: { account_id: accountId } }, body: { ...v, description: v.description || null, notes: v.notes || null } })),
    onSuccess: (i) => {
      void queryClient.invalidateQueries({ queryKey: ['ai_instructions', accountId] });
      void navigate({ to: '/a/$accountId/r/ai_instructions/$instructionId', params: { accountId, instructionId: i.id } });
    },
    onError: (err) => !applyFieldErrors(form, err, ['display_name', 'description', 'variables', 'content', 'notes']) && setError(err),
  });
  return (
    <Card withBorder component="section" aria-labelledby="new-instruction">
      <Title order={2} size="h4" id="new-instruction" mb="sm">
        New instruction
      </Title>
      <form onSubmit={form.onSubmit((v) => (setError(undefined), create.mutate(v)))} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The instruction was not created" />
          <TextInput label="Name" required {...form.getInputProps('display_name')} />
          <TextInput label="Description" {...form.getInputProps('description')} />
          <TagsInput label="Variables" description="Names the text may use as {{name}}; press Enter after each." {...form.getInputProps('variables')} />
          <Textarea label="Instruction text (version 1)" required autosize minRows={5} description="{{name}} is replaced by the run’s value; other text is sent as written." {...form.getInputProps('content')} />
          <TextInput label="Notes" description="Why this version exists." {...form.getInputProps('notes')} />
          <Group>
            <Button type="submit" loading={create.isPending}>
              Create instruction
            </Button>
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </form>
    </Card>
  );
}

export function InstructionsPage() {
  usePageTitle('Instructions');
  const api = useApi();
  const { accountId, canWrite } = useAccount();
  const [search, setSearch] = useListSearch<Search>();
  const [creating, setCreating] = useState(false);
  const filter = search.q ? `display_name:${quote(search.q)}` : undefined;
  const list = useQuery({
    queryKey: ['ai_instructions', accountId, search],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/ai_instructions', { params: { path: { account_id: accountId }, query: { page_size: 25, page_token: search.page_token, filter } } })),
  });
  const rows = list.data?.ai_instructions ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Instructions</Title>
        {canWrite && !creating && <Button onClick={() => setCreating(true)}>New instruction</Button>}
      </Group>
      {creating && <CreateInstruction accountId={accountId} onClose={() => setCreating(false)} />}
      <TextInput label="Search by name" defaultValue={search.q ?? ''} onKeyDown={(e) => e.key === 'Enter' && setSearch({ q: e.currentTarget.value || undefined })} onBlur={(e) => setSearch({ q: e.currentTarget.value || undefined }, true)} w={240} />
      <ListState query={list} isEmpty={rows.length === 0} what="instructions" empty={filter ? 'No instruction matches.' : 'An instruction is the text an agent sends, with {{variables}} filled in per run.'} />
      {rows.length > 0 && (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Instruction</Table.Th>
              <Table.Th scope="col">Variables</Table.Th>
              <Table.Th scope="col">Active version</Table.Th>
              <Table.Th scope="col">Changed</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((i) => (
              <Table.Tr key={i.id}>
                <Table.Td>
                  <AnchorLink to="/a/$accountId/r/ai_instructions/$instructionId" params={{ accountId, instructionId: i.id }}>
                    {i.display_name}
                  </AnchorLink>
                  {i.description && <Text size="xs">{i.description}</Text>}
                </Table.Td>
                <Table.Td>{i.variables.join(', ') || '—'}</Table.Td>
                <Table.Td>
                  {i.active_version} of {i.latest_version}
                </Table.Td>
                <Table.Td>{dateTime(i.update_time)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {list.data && <Pager next={list.data.next_page_token} current={search.page_token} total={list.data.total_size} noun="instructions" onPage={(page_token) => setSearch({ page_token })} />}
    </Stack>
  );
}
