/**
 * Pages and blocks lists: search by title, active/inactive, visible in a view; the filters live
 * in the URL (a list view is a shareable link). "New" asks for a title and opens the editor.
 */
import { useState } from 'react';
import { Badge, Button, Group, Modal, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { rest } from './editor/rest';
import type { ContentKind } from './editor/kinds';
import { useViews, viewLabel } from './editor/views';
import { EmptyState, Loading, useCanWrite } from './editor/common';
import type { Values } from './editor/use-content-doc';

import { contentListFilter, type ListSearch } from './list-search';

export type { ListSearch };

export function ContentList({ kind, websiteId, search }: { kind: ContentKind; websiteId: string; search: ListSearch }) {
  const api = useApi();
  const navigate = useNavigate();
  const canWrite = useCanWrite(kind.section);
  const isPage = kind.collection === 'cms_pages';
  const plural = isPage ? 'Pages' : 'Blocks';
  usePageTitle(plural);
  const views = useViews(websiteId);
  const filter = contentListFilter(search);
  const list = useInfiniteQuery({
    queryKey: [kind.collection, websiteId, 'list', filter],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      rest<Values & { next_page_token?: string; total_size?: number }>(api, 'GET', `/tenant-api/v1/websites/{website_id}/${kind.collection}` as never, {
        path: { website_id: websiteId },
        query: { page_size: 50, filter, page_token: pageParam, order_by: 'update_time desc' },
      }),
    getNextPageParam: (last) => last.next_page_token || undefined,
  });
  const rows = (list.data?.pages ?? []).flatMap((p) => (p[kind.collection] as Values[] | undefined) ?? []);
  const total = list.data?.pages[0]?.total_size;
  const [q, setQ] = useState(search.q ?? '');
  const setSearch = (next: Partial<ListSearch>) => void navigate({ to: '.', search: ((prev: ListSearch) => ({ ...prev, ...next })) as never, replace: true });
  const searchLater = useDebouncedCallback((value: string) => setSearch({ q: value || undefined }), 300);
  const [creating, setCreating] = useState(false);
  const viewName = (id: string) => views.data?.find((v) => v.id === id)?.display_name ?? id;
  const filtered = !!filter;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>{plural}</Title>
        {canWrite && <Button onClick={() => setCreating(true)}>New {kind.noun}</Button>}
      </Group>
      <Group align="flex-end" wrap="wrap">
        <TextInput
          label="Search titles"
          value={q}
          onChange={(e) => {
            setQ(e.currentTarget.value);
            searchLater(e.currentTarget.value);
          }}
          placeholder={`Title of the ${kind.noun}`}
          style={{ flex: '1 1 220px' }}
        />
        <Select
          label="State"
          data={[
            { value: '', label: 'Active and inactive' },
            { value: 'true', label: 'Active' },
            { value: 'false', label: 'Inactive' },
          ]}
          value={search.active ?? ''}
          onChange={(v) => setSearch({ active: (v || undefined) as ListSearch['active'] })}
          allowDeselect={false}
          w={200}
        />
        <Select
          label="Restricted to view"
          data={[{ value: '', label: 'Any view' }, ...(views.data ?? []).map((v) => ({ value: v.id, label: viewLabel(v) }))]}
          value={search.view ?? ''}
          onChange={(v) => setSearch({ view: v || undefined })}
          allowDeselect={false}
          w={240}
        />
      </Group>
      <ApiErrorAlert error={list.error} title={`The ${plural.toLowerCase()} could not be listed`} />
      {list.isLoading && <Loading label={`Loading ${plural.toLowerCase()}…`} />}
      {list.data && rows.length === 0 && (
        <EmptyState title={filtered ? `No ${kind.noun} matches these filters.` : `No ${plural.toLowerCase()} yet.`}>
          {filtered ? (
            <Button variant="default" onClick={() => { setQ(''); setSearch({ q: undefined, active: undefined, view: undefined }); }}>
              Clear the filters
            </Button>
          ) : (
            canWrite && <Button onClick={() => setCreating(true)}>Write the first {kind.noun}</Button>
          )}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <>
          {total !== undefined && <Text size="sm">{total === 1 ? `1 ${kind.noun}` : `${total} ${plural.toLowerCase()}`}</Text>}
          <Table striped highlightOnHover>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Title</Table.Th>
                <Table.Th>{isPage ? 'URL key' : 'Identifier'}</Table.Th>
                <Table.Th>State</Table.Th>
                <Table.Th>Views</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {rows.map((r) => (
                <Table.Tr key={String(r.id)}>
                  <Table.Td>
                    <AnchorLink
                      to={isPage ? '/w/$websiteId/r/cms_pages/$pageId' : '/w/$websiteId/r/cms_blocks/$blockId'}
                      params={isPage ? ({ websiteId, pageId: String(r.id) } as never) : ({ websiteId, blockId: String(r.id) } as never)}
                    >
                      {String(r.title || 'Untitled')}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>{String(isPage ? r.url_key : r.identifier)}</Table.Td>
                  <Table.Td>
                    <Badge color={r.is_active ? '#1e6b34' : 'gray.7'} variant="filled">
                      {r.is_active ? 'Active' : 'Inactive'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{((r.visible_view_ids as string[]) ?? []).length ? (r.visible_view_ids as string[]).map(viewName).join(', ') : 'Every view'}</Table.Td>
                  <Table.Td>{new Date(String(r.update_time)).toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          {list.hasNextPage && (
            <Button variant="default" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage} style={{ alignSelf: 'center' }}>
              Show more
            </Button>
          )}
        </>
      )}
      <NewContentModal kind={kind} websiteId={websiteId} opened={creating} onClose={() => setCreating(false)} />
    </Stack>
  );
}

function NewContentModal({ kind, websiteId, opened, onClose }: { kind: ContentKind; websiteId: string; opened: boolean; onClose(): void }) {
  const api = useApi();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [title, setTitle] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = fieldErrorsOf(error);
  const isBlock = kind.collection === 'cms_blocks';
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const created = await rest<Values & { id: string }>(api, 'POST', `/tenant-api/v1/websites/{website_id}/${kind.collection}` as never, {
        path: { website_id: websiteId },
        body: isBlock ? { title, identifier } : { title },
      });
      await queryClient.invalidateQueries({ queryKey: [kind.collection, websiteId] });
      onClose();
      setTitle('');
      setIdentifier('');
      if (kind.collection === 'cms_pages') void navigate({ to: '/w/$websiteId/r/cms_pages/$pageId', params: { websiteId, pageId: created.id } });
      else if (kind.collection === 'cms_blocks') void navigate({ to: '/w/$websiteId/r/cms_blocks/$blockId', params: { websiteId, blockId: created.id } });
      else void navigate({ to: '/w/$websiteId/r/blog_posts/$postId', params: { websiteId, postId: created.id } });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title={`New ${kind.noun}`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <Stack>
          <TextInput label="Title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={errors.title} required data-autofocus />
          {isBlock && (
            <TextInput
              label="Identifier"
              description="Lowercase letters, digits, “_”, “-”, “.”; placed in content as a block."
              value={identifier}
              onChange={(e) => setIdentifier(e.currentTarget.value)}
              error={errors.identifier}
              required
            />
          )}
          <ApiErrorAlert error={Object.keys(errors).length ? undefined : error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" loading={busy}>
              Create and edit
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export { NewContentModal };
