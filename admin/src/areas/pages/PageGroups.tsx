/**
 * Customer-group versions of a page (`cms_pages/{p}/groups`): members of the chosen customer
 * groups read this version instead of the page; the highest priority wins when several match.
 * Fields left empty show the page's own value.
 */
import { useState } from 'react';
import { Badge, Button, Group, Modal, MultiSelect, NumberInput, Stack, Switch, Table, Text, TextInput, Title, VisuallyHidden } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { RichTextEditor } from './editor/RichTextEditor';
import { EmptyState, Loading } from './editor/common';
import { rest } from './editor/rest';

type PageGroup = Schemas['CmsPageGroup'];

export function PageGroups({ websiteId, pageId, canWrite }: { websiteId: string; pageId: string; canWrite: boolean }) {
  const api = useApi();
  const key = ['cms_pages', websiteId, pageId, 'groups'];
  const versions = useQuery({
    queryKey: key,
    queryFn: () => rest<{ groups?: PageGroup[] }>(api, 'GET', '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/groups', { path: { website_id: websiteId, cms_page_id: pageId }, query: { page_size: 100 } }),
  });
  const groups = useQuery({
    queryKey: ['customer_groups', websiteId],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/customer_groups', { params: { path: { website_id: websiteId }, query: { page_size: 100 } as never } })),
  });
  const [editing, setEditing] = useState<PageGroup | 'new' | undefined>();
  const groupName = (id: string) => groups.data?.customer_groups.find((g) => g.id === id)?.display_name ?? id;
  const list = [...(versions.data?.groups ?? [])].sort((a, b) => b.priority - a.priority);
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2} size="h3">
          Customer-group versions
        </Title>
        {canWrite && <Button onClick={() => setEditing('new')}>Add a version</Button>}
      </Group>
      <Text size="sm">Visitors signed in as members of the chosen groups read the version instead of the page; the highest priority wins when several match.</Text>
      {versions.isLoading && <Loading label="Loading versions…" />}
      <ApiErrorAlert error={versions.error} />
      {versions.data && list.length === 0 && <EmptyState title="No customer-group versions: everybody reads the page." />}
      {list.length > 0 && (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Priority</Table.Th>
              <Table.Th>Customer groups</Table.Th>
              <Table.Th>Title</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>
                <VisuallyHidden>Actions</VisuallyHidden>
              </Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>{v.priority}</Table.Td>
                <Table.Td>{v.customer_group_ids.map(groupName).join(', ')}</Table.Td>
                <Table.Td>{v.title ?? '(the page’s)'}</Table.Td>
                <Table.Td>
                  <Badge color={v.is_active ? '#1e6b34' : 'gray.7'} variant="filled">
                    {v.is_active ? 'Active' : 'Inactive'}
                  </Badge>
                </Table.Td>
                <Table.Td>
                  {canWrite && (
                    <Button size="compact-sm" variant="default" onClick={() => setEditing(v)} aria-label={`Edit the version for ${v.customer_group_ids.map(groupName).join(', ')}`}>
                      Edit
                    </Button>
                  )}
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={!!editing} onClose={() => setEditing(undefined)} title={editing === 'new' ? 'New customer-group version' : 'Customer-group version'} size="xl">
        {editing && (
          <VersionForm
            websiteId={websiteId}
            pageId={pageId}
            version={editing === 'new' ? undefined : editing}
            groupOptions={(groups.data?.customer_groups ?? []).map((g) => ({ value: g.id, label: g.display_name }))}
            onDone={() => {
              setEditing(undefined);
              void versions.refetch();
            }}
          />
        )}
      </Modal>
    </Stack>
  );
}

function VersionForm({ websiteId, pageId, version, groupOptions, onDone }: { websiteId: string; pageId: string; version?: PageGroup; groupOptions: { value: string; label: string }[]; onDone(): void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [values, setValues] = useState({
    customer_group_ids: version?.customer_group_ids ?? [],
    priority: version?.priority ?? 0,
    title: version?.title ?? '',
    content: version?.content ?? '',
    is_active: version?.is_active ?? true,
  });
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = fieldErrorsOf(error);
  const path = { website_id: websiteId, cms_page_id: pageId };
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    const body = { ...values, title: values.title || undefined, content: values.content || undefined };
    try {
      if (version)
        await rest(api, 'PATCH', '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/groups/{cms_page_group_id}', { path: { ...path, cms_page_group_id: version.id }, body, ifMatch: version.etag });
      else await rest(api, 'POST', '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/groups', { path, body });
      await queryClient.invalidateQueries({ queryKey: ['cms_pages', websiteId, pageId] });
      onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      <MultiSelect
        label="Customer groups"
        data={groupOptions}
        value={values.customer_group_ids}
        onChange={(v) => setValues({ ...values, customer_group_ids: v })}
        error={errors.customer_group_ids}
        placeholder={groupOptions.length ? 'Choose groups' : 'The website has no customer groups yet'}
      />
      <NumberInput label="Priority" description="Higher wins." value={values.priority} onChange={(v) => setValues({ ...values, priority: Number(v) || 0 })} error={errors.priority} />
      <TextInput label="Title" description="Empty: the page’s title." value={values.title} onChange={(e) => setValues({ ...values, title: e.currentTarget.value })} error={errors.title} />
      <Stack gap={4}>
        <Text size="sm" fw={500}>
          Content (empty: the page’s)
        </Text>
        <RichTextEditor label="Version content" value={values.content} onChange={(c) => setValues((v) => ({ ...v, content: c }))} resetKey={version?.id ?? 'new'} websiteId={websiteId} />
      </Stack>
      <Switch label="Active" checked={values.is_active} onChange={(e) => setValues({ ...values, is_active: e.currentTarget.checked })} />
      <ApiErrorAlert error={Object.keys(errors).length ? undefined : error} />
      <Group justify="space-between">
        {version ? (
          <Button
            color="red"
            variant="outline"
            onClick={async () => {
              try {
                await rest(api, 'DELETE', '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}/groups/{cms_page_group_id}', { path: { ...path, cms_page_group_id: version.id }, ifMatch: version.etag });
                onDone();
              } catch (err) {
                setError(err);
              }
            }}
          >
            Delete this version
          </Button>
        ) : (
          <span />
        )}
        <Button onClick={submit} loading={busy}>
          Save version
        </Button>
      </Group>
    </Stack>
  );
}
