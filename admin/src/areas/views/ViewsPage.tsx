/**
 * The website's views (locales): URL prefix, name, language, which is the default and each one's
 * fallback chain; create and edit (If-Match), make default, delete (forced: the API then detaches
 * what points at the view, and posts visible only in it go back to DRAFT), open the site in a view.
 */
import { useState } from 'react';
import { Anchor, Badge, Button, Card, Group, Modal, Stack, Table, Text, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data } from '../../lib/api';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { ListState } from '../../lib/list-ui';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { ViewForm, type View, type ViewValues } from './ViewForm';

const NEW: ViewValues = { display_name: '', locale: '', url_prefix: '', fallback_view_id: '', is_active: true };

/** Names along the fallback chain (the API refuses cycles; the guard only stops a stale list looping). */
function chainOf(view: View, byId: Map<string, View>): string[] {
  const names: string[] = [];
  const seen = new Set([view.id]);
  for (let at = view.fallback_view_id; at && !seen.has(at); at = byId.get(at)?.fallback_view_id) {
    seen.add(at);
    names.push(byId.get(at)?.display_name ?? at);
  }
  return names;
}

export function ViewsPage() {
  usePageTitle('Views');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.views');
  const key = ['views', websiteId];
  const path = { website_id: websiteId };
  // At most 50 per website (MAX_VIEWS_PER_WEBSITE): one page holds them all.
  const list = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/views', { params: { path, query: { page_size: 50 } } })) });
  const site = useQuery({ queryKey: ['website', websiteId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}', { params: { path } })) });
  const [editing, setEditing] = useState<View | 'new'>();
  const [deleting, setDeleting] = useState<View>();
  const refresh = () => qc.invalidateQueries({ queryKey: key });
  const body = (v: ViewValues) => ({ display_name: v.display_name, locale: v.locale.trim(), url_prefix: v.url_prefix.trim() || undefined, fallback_view_id: v.fallback_view_id || undefined, is_active: v.is_active });
  const save = useMutation({
    mutationFn: async (v: ViewValues) => {
      if (editing === 'new') return data(api.POST('/tenant-api/v1/websites/{website_id}/views', { params: { path }, body: body(v) }));
      const view = editing!;
      return data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/views/{view_id}', {
          params: { path: { ...path, view_id: view.id }, query: { update_mask: 'display_name,locale,url_prefix,fallback_view_id,is_active' }, header: { 'If-Match': view.etag } },
          // An emptied prefix is null: the API then restores the default (empty for the default view, else the language).
          body: { ...body(v), url_prefix: v.url_prefix.trim() || null, fallback_view_id: v.fallback_view_id || null } as never,
        }),
      );
    },
    onSuccess: async () => {
      setEditing(undefined);
      await refresh();
    },
  });
  const makeDefault = useMutation({
    mutationFn: (v: View) => data(api.POST('/tenant-api/v1/websites/{website_id}/views/{view_id}:make_default', { params: { path: { ...path, view_id: v.id } } })),
    onSuccess: refresh,
  });
  const remove = useMutation({
    mutationFn: (v: View) => api.DELETE('/tenant-api/v1/websites/{website_id}/views/{view_id}', { params: { path: { ...path, view_id: v.id }, query: { force: true }, header: { 'If-Match': v.etag } } }),
    onSuccess: async () => {
      setDeleting(undefined);
      await refresh();
    },
  });
  const views = list.data?.views ?? [];
  const byId = new Map(views.map((v) => [v.id, v]));
  const siteUrl = site.data?.website_url;
  const start = (v: View | 'new') => {
    save.reset();
    setEditing(v);
  };

  return (
    <Stack maw={1100}>
      <Group justify="space-between">
        <Title order={1}>Views</Title>
        {canWrite && !editing && <Button onClick={() => start('new')}>New view</Button>}
      </Group>
      <Text size="sm">Each view is a language of the website under its own URL prefix. Where a view has no text of its own, its fallback view’s shows, then that one’s fallback, and so on.</Text>
      {editing && (
        <Card withBorder>
          <Stack>
            <Title order={2} size="h4">
              {editing === 'new' ? 'New view' : `Edit ${editing.display_name}`}
            </Title>
            <ViewForm
              key={editing === 'new' ? 'new' : editing.id}
              initial={editing === 'new' ? NEW : { display_name: editing.display_name, locale: editing.locale, url_prefix: editing.url_prefix ?? '', fallback_view_id: editing.fallback_view_id ?? '', is_active: editing.is_active }}
              views={views}
              selfId={editing === 'new' ? undefined : editing.id}
              isDefault={editing !== 'new' && editing.is_default}
              submitLabel={editing === 'new' ? 'Create view' : 'Save view'}
              pending={save.isPending}
              error={save.error}
              onSubmit={(v) => save.mutate(v)}
              onCancel={() => setEditing(undefined)}
            />
          </Stack>
        </Card>
      )}
      <ApiErrorAlert error={makeDefault.error} title="The view did not become the default" />
      <ListState query={list} isEmpty={views.length === 0} what="views" empty="The website has no views yet; provisioning creates the default one." />
      {views.length > 0 && (
        <Table striped withTableBorder aria-label="Views">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Prefix</Table.Th>
              <Table.Th>Name</Table.Th>
              <Table.Th>Language</Table.Th>
              <Table.Th>Falls back to</Table.Th>
              <Table.Th>State</Table.Th>
              <Table.Th>Actions</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {views.map((v) => {
              const chain = chainOf(v, byId);
              return (
                <Table.Tr key={v.id}>
                  <Table.Td>{v.url_prefix ? `/${v.url_prefix}/` : '/'}</Table.Td>
                  <Table.Td>{v.display_name}</Table.Td>
                  <Table.Td>{v.locale}</Table.Td>
                  <Table.Td>{chain.length ? chain.join(' → ') : '—'}</Table.Td>
                  <Table.Td>
                    <Group gap="xs">
                      {v.is_default && (
                        <Badge color="blue.9" variant="filled">
                          Default
                        </Badge>
                      )}
                      {!v.is_active && (
                        <Badge color="gray.8" variant="filled">
                          Off
                        </Badge>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td>
                    <Group gap="xs" wrap="nowrap">
                      {siteUrl && v.is_active && (
                        <Anchor href={`${siteUrl}/${v.url_prefix ?? ''}`} target="_blank" rel="noopener" size="sm" aria-label={`Open site in ${v.display_name}`}>
                          Open site
                        </Anchor>
                      )}
                      {canWrite && (
                        <>
                          <Button size="xs" variant="default" onClick={() => start(v)} aria-label={`Edit ${v.display_name}`}>
                            Edit
                          </Button>
                          {!v.is_default && v.is_active && (
                            <Button size="xs" variant="default" loading={makeDefault.isPending && makeDefault.variables?.id === v.id} onClick={() => makeDefault.mutate(v)} aria-label={`Make default: ${v.display_name}`}>
                              Make default
                            </Button>
                          )}
                          {!v.is_default && (
                            <Button
                              size="xs"
                              color="red"
                              variant="outline"
                              onClick={() => {
                                remove.reset();
                                setDeleting(v);
                              }}
                              aria-label={`Delete ${v.display_name}`}
                            >
                              Delete
                            </Button>
                          )}
                        </>
                      )}
                    </Group>
                  </Table.Td>
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      )}
      <Modal opened={!!deleting} onClose={() => setDeleting(undefined)} title={`Delete the view ${deleting?.display_name ?? ''}?`} closeButtonProps={{ 'aria-label': 'Close' }} transitionProps={{ duration: 0 }}>
        <Stack>
          <Text size="sm">Text of pages, blocks and settings written for this view goes with it. Views that fall back to it lose their fallback.</Text>
          <Text size="sm">Blog posts visible only in this view go back to draft, so they do not suddenly show in every view.</Text>
          <ApiErrorAlert error={remove.error} title="The view was not deleted" />
          <Group>
            <Button color="red" loading={remove.isPending} onClick={() => deleting && remove.mutate(deleting)}>
              Delete view
            </Button>
            <Button variant="default" onClick={() => setDeleting(undefined)}>
              Cancel
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
