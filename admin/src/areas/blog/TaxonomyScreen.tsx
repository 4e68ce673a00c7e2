/** Tags and authors: a list with post counts' links, and a form (name, URL key, description or bio, an author's avatar). */
import { useState } from 'react';
import { Button, Group, Modal, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { rest } from '../pages/editor/rest';
import { ConfirmDelete, EmptyState, Loading, useCanWrite } from '../pages/editor/common';
import { MediaField } from '../media/ImagePicker';
import type { Values } from '../pages/editor/use-content-doc';

type Kind = 'blog_tags' | 'blog_authors';
const CONFIG = {
  blog_tags: { title: 'Tags', noun: 'tag', text: 'description', textLabel: 'Description', filterKey: 'tag', idParam: 'blog_tag_id' },
  blog_authors: { title: 'Authors', noun: 'author', text: 'bio', textLabel: 'Biography', filterKey: 'author', idParam: 'blog_author_id' },
} as const;

export function TaxonomyScreen({ kind, websiteId }: { kind: Kind; websiteId: string }) {
  const c = CONFIG[kind];
  usePageTitle(c.title);
  const api = useApi();
  const canWrite = useCanWrite('website.blog');
  const list = useQuery({
    queryKey: [kind, websiteId, 'all'],
    queryFn: async () =>
      ((await rest<Values>(api, 'GET', `/tenant-api/v1/websites/{website_id}/${kind}` as never, { path: { website_id: websiteId }, query: { page_size: 100, order_by: 'display_name' } }))[kind] ?? []) as Values[],
  });
  const [editing, setEditing] = useState<Values | 'new'>();
  const rows = list.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>{c.title}</Title>
        {canWrite && <Button onClick={() => setEditing('new')}>New {c.noun}</Button>}
      </Group>
      <ApiErrorAlert error={list.error} title={`The ${c.title.toLowerCase()} could not be listed`} />
      {list.isLoading && <Loading label={`Loading ${c.title.toLowerCase()}…`} />}
      {list.data && rows.length === 0 && (
        <EmptyState title={`No ${c.title.toLowerCase()} yet.`}>{canWrite && <Button onClick={() => setEditing('new')}>Add the first {c.noun}</Button>}</EmptyState>
      )}
      {rows.length > 0 && (
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Name</Table.Th>
              <Table.Th>URL key</Table.Th>
              <Table.Th>{c.textLabel}</Table.Th>
              <Table.Th>Posts</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r) => (
              <Table.Tr key={String(r.id)}>
                <Table.Td>
                  {canWrite ? (
                    <Button variant="subtle" size="compact-sm" onClick={() => setEditing(r)}>
                      {String(r.display_name)}
                    </Button>
                  ) : (
                    String(r.display_name)
                  )}
                </Table.Td>
                <Table.Td>{String(r.url_key ?? '')}</Table.Td>
                <Table.Td>
                  <Text size="sm" lineClamp={2}>
                    {String(r[c.text] ?? '')}
                  </Text>
                </Table.Td>
                <Table.Td>
                  <AnchorLink to="/w/$websiteId/r/blog_posts" params={{ websiteId }} search={{ [c.filterKey]: String(r.id) } as never}>
                    Posts with this {c.noun}
                  </AnchorLink>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={!!editing} onClose={() => setEditing(undefined)} title={editing === 'new' ? `New ${c.noun}` : `Edit ${c.noun}`}>
        {editing && <TaxonomyForm kind={kind} websiteId={websiteId} item={editing === 'new' ? undefined : editing} onDone={() => setEditing(undefined)} />}
      </Modal>
    </Stack>
  );
}

function TaxonomyForm({ kind, websiteId, item, onDone }: { kind: Kind; websiteId: string; item?: Values; onDone(): void }) {
  const c = CONFIG[kind];
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState(String(item?.display_name ?? ''));
  const [urlKey, setUrlKey] = useState(String(item?.url_key ?? ''));
  const [text, setText] = useState(String(item?.[c.text] ?? ''));
  const [avatar, setAvatar] = useState<string | null>((item?.avatar_media_id as string | undefined) ?? null);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = fieldErrorsOf(error);
  const collection = `/tenant-api/v1/websites/{website_id}/${kind}` as never;
  const one = `/tenant-api/v1/websites/{website_id}/${kind}/{${c.idParam}}` as never;
  const path = { website_id: websiteId, ...(item ? { [c.idParam]: String(item.id) } : {}) };
  const done = async () => {
    await queryClient.invalidateQueries({ queryKey: [kind, websiteId] });
    onDone();
  };
  const submit = async () => {
    setBusy(true);
    setError(undefined);
    const body: Values = { display_name: name, [c.text]: text, ...(urlKey ? { url_key: urlKey } : {}), ...(kind === 'blog_authors' ? { avatar_media_id: avatar ?? undefined } : {}) };
    try {
      if (item) await rest(api, 'PATCH', one, { path, body, ifMatch: String(item.etag) });
      else await rest(api, 'POST', collection, { path, body });
      await done();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Stack>
        <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.display_name} required data-autofocus />
        <TextInput label="URL key" description="Empty: derived from the name." value={urlKey} onChange={(e) => setUrlKey(e.currentTarget.value)} error={errors.url_key} />
        <Textarea label={c.textLabel} value={text} onChange={(e) => setText(e.currentTarget.value)} error={errors[c.text]} autosize minRows={3} />
        {kind === 'blog_authors' && <MediaField websiteId={websiteId} label="Avatar" value={avatar} onChange={(id) => setAvatar(id)} />}
        <ApiErrorAlert error={Object.keys(errors).length ? undefined : error} title="Not saved" />
        <Group justify="space-between">
          {item ? (
            <ConfirmDelete
              what={`this ${c.noun}`}
              onConfirm={async () => {
                await rest(api, 'DELETE', one, { path, ifMatch: String(item.etag) });
                await done();
              }}
            />
          ) : (
            <span />
          )}
          <Button type="submit" loading={busy}>
            Save {c.noun}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

