/**
 * The editorial backlog: topics waiting for a slot, highest priority first (`:refill` books them in
 * that order), with their state; add a topic, change its priority or state, remove it.
 */
import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Card, Group, Loader, Modal, NumberInput, SegmentedControl, Select, Stack, Table, TagsInput, Text, TextInput, Textarea, Title, VisuallyHidden } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { EditorialTabs } from './EditorialTabs';

type Item = Schemas['EditorialBacklogItem'];
const STATES: Record<NonNullable<Item['state']>, { label: string; color: string }> = {
  PROPOSED: { label: 'Proposed', color: 'violet.9' },
  READY: { label: 'Ready', color: 'blue.9' },
  SCHEDULED: { label: 'Scheduled', color: 'cyan.9' },
  USED: { label: 'Used', color: 'gray.8' },
  DISCARDED: { label: 'Discarded', color: 'gray.8' },
};

export function BacklogScreen() {
  usePageTitle('Editorial backlog');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.editorial');
  const [show, setShow] = useState<'open' | 'all'>('open');
  const key = ['editorial_backlog_items', websiteId];
  const items = useQuery({
    queryKey: key,
    queryFn: () =>
      listAll(api, '/tenant-api/v1/websites/{website_id}/editorial_backlog_items', { path: { website_id: websiteId }, query: { page_size: 100, order_by: 'priority desc' } }),
  });
  const categories = useQuery({ queryKey: ['blog_categories', websiteId], queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/blog_categories', { path: { website_id: websiteId }, query: { page_size: 100 } }) });
  const categoryName = new Map((categories.data ?? []).map((c) => [c.id, c.display_name]));
  const [editing, setEditing] = useState<Item | 'new'>();
  const [status, setStatus] = useState('');
  const patch = useMutation({
    mutationFn: ({ item, body }: { item: Item; body: { priority?: number; state?: 'PROPOSED' | 'READY' | 'DISCARDED' } }) =>
      data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/editorial_backlog_items/{editorial_backlog_item_id}', {
          params: { path: { website_id: websiteId, editorial_backlog_item_id: item.id }, header: { 'If-Match': item.etag } },
          body,
        }),
      ),
    onSuccess: (saved) => setStatus(`${saved.topic} saved.`),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  const remove = useMutation({
    mutationFn: (item: Item) => api.DELETE('/tenant-api/v1/websites/{website_id}/editorial_backlog_items/{editorial_backlog_item_id}', { params: { path: { website_id: websiteId, editorial_backlog_item_id: item.id } } }),
    onSuccess: (_r, item) => setStatus(`${item.topic} removed.`),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  const shown = (items.data ?? []).filter((i) => show === 'all' || i.state === 'PROPOSED' || i.state === 'READY' || i.state === 'SCHEDULED');

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Editorial backlog</Title>
        {canWrite && <Button onClick={() => setEditing('new')}>Add a topic</Button>}
      </Group>
      <EditorialTabs current="backlog" />
      <Group justify="space-between">
        <SegmentedControl
          aria-label="Show"
          value={show}
          onChange={(v) => setShow(v as 'open' | 'all')}
          data={[
            { value: 'open', label: 'Open topics' },
            { value: 'all', label: 'All, with used and discarded' },
          ]}
        />
        <Text role="status" aria-live="polite" size="sm">
          {status}
        </Text>
      </Group>
      <ApiErrorAlert error={items.error} title="The backlog could not be loaded" />
      <ApiErrorAlert error={patch.error ?? remove.error} title="The topic was not changed" />
      {items.isPending && <Loader role="status" aria-label="Loading the backlog" />}
      {items.data && shown.length === 0 && <Alert title="Nothing waiting">Add topics to write about; filling the calendar books the highest priority first.</Alert>}
      {shown.length > 0 && (
        <Card withBorder padding={0}>
          <Table.ScrollContainer minWidth={640}>
            <Table verticalSpacing="xs" highlightOnHover>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th w={130}>Priority</Table.Th>
                  <Table.Th>Topic</Table.Th>
                  <Table.Th>Category</Table.Th>
                  <Table.Th>State</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {shown.map((item) => (
                  <Table.Tr key={item.id}>
                    <Table.Td>
                      {canWrite ? (
                        <NumberInput
                          aria-label={`Priority of ${item.topic}`}
                          size="xs"
                          min={0}
                          max={100}
                          defaultValue={item.priority}
                          key={`${item.id}-${item.etag}`}
                          onBlur={(e) => {
                            const v = Number(e.currentTarget.value);
                            if (Number.isInteger(v) && v !== item.priority) patch.mutate({ item, body: { priority: v } });
                          }}
                        />
                      ) : (
                        item.priority
                      )}
                    </Table.Td>
                    <Table.Td>
                      <Text fw={500}>{item.topic}</Text>
                      {item.keywords.length > 0 && <Text size="xs">Keywords: {item.keywords.join(', ')}</Text>}
                      {item.proposed_by?.includes('/ai_executions/') && <Text size="xs">Proposed by an AI run</Text>}
                    </Table.Td>
                    <Table.Td>{item.category_id ? (categoryName.get(item.category_id) ?? item.category_id) : '—'}</Table.Td>
                    <Table.Td>
                      <Badge variant="filled" color={STATES[item.state ?? 'READY'].color}>
                        {STATES[item.state ?? 'READY'].label}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      {canWrite && (
                        <Group gap={4} wrap="nowrap" justify="flex-end">
                          {item.state === 'PROPOSED' && (
                            <Button size="compact-xs" variant="default" onClick={() => patch.mutate({ item, body: { state: 'READY' } })}>
                              Accept
                            </Button>
                          )}
                          {(item.state === 'PROPOSED' || item.state === 'READY') && (
                            <Button size="compact-xs" variant="default" onClick={() => patch.mutate({ item, body: { state: 'DISCARDED' } })}>
                              Discard
                            </Button>
                          )}
                          {item.state === 'DISCARDED' && (
                            <Button size="compact-xs" variant="default" onClick={() => patch.mutate({ item, body: { state: 'READY' } })}>
                              Restore
                            </Button>
                          )}
                          <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${item.topic}`} onClick={() => setEditing(item)}>
                            <span aria-hidden="true">✎</span>
                          </ActionIcon>
                          <ActionIcon
                            variant="subtle"
                            color="red"
                            aria-label={`Remove ${item.topic}`}
                            onClick={() => {
                              if (window.confirm(`Remove “${item.topic}” from the backlog?`)) remove.mutate(item);
                            }}
                          >
                            <span aria-hidden="true">✕</span>
                          </ActionIcon>
                        </Group>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Card>
      )}
      {editing && (
        <ItemModal
          item={editing === 'new' ? undefined : editing}
          categories={(categories.data ?? []).map((c) => ({ value: c.id, label: c.display_name }))}
          onClose={() => setEditing(undefined)}
          onSaved={async (saved) => {
            setStatus(`${saved.topic} saved.`);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
    </Stack>
  );
}

function ItemModal({ item, categories, onClose, onSaved }: { item?: Item; categories: Array<{ value: string; label: string }>; onClose: () => void; onSaved: (i: Item) => Promise<void> }) {
  const api = useApi();
  const { websiteId } = useCurrentWebsite();
  const form = useForm({
    initialValues: { topic: item?.topic ?? '', brief: item?.brief ?? '', keywords: item?.keywords ?? ([] as string[]), priority: item?.priority ?? 50, category_id: item?.category_id ?? (null as string | null) },
  });
  const [error, setError] = useState<unknown>();
  const submit = form.onSubmit(async (v) => {
    setError(undefined);
    try {
      const saved = item
        ? await data(
            api.PATCH('/tenant-api/v1/websites/{website_id}/editorial_backlog_items/{editorial_backlog_item_id}', {
              params: { path: { website_id: websiteId, editorial_backlog_item_id: item.id }, header: { 'If-Match': item.etag } },
              body: v,
            }),
          )
        : await data(api.POST('/tenant-api/v1/websites/{website_id}/editorial_backlog_items', { params: { path: { website_id: websiteId } }, body: v }));
      await onSaved(saved);
      onClose();
    } catch (err) {
      if (!applyFieldErrors(form, err, ['topic', 'brief', 'keywords', 'priority', 'category_id'])) setError(err);
    }
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={item ? 'Edit the topic' : 'New topic'}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The topic was not saved" />
          <TextInput label="Topic" required data-autofocus {...form.getInputProps('topic')} />
          <Textarea label="Brief" description="Angle, audience, points to make." autosize minRows={3} {...form.getInputProps('brief')} />
          <TagsInput label="Keywords" description="Press Enter after each." {...form.getInputProps('keywords')} />
          <NumberInput label="Priority" description="0 (some day) to 100 (next)." min={0} max={100} {...form.getInputProps('priority')} />
          <Select label="Category" placeholder="None" clearable clearButtonProps={{ 'aria-label': 'Clear' }} data={categories} {...form.getInputProps('category_id')} />
          <Button type="submit" loading={form.submitting}>
            {item ? 'Save topic' : 'Add topic'}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
