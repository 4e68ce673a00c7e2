/**
 * Menus and their items as a tree (Shopify's menu editor): pick a menu, drag its entries (or move
 * them with the keyboard) to reorder and nest them, add entries that point at a page (searched by
 * title) or at a typed URL, edit and remove them. Every move is one `items/{id}:move`.
 */
import { useEffect, useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Card, Checkbox, Group, Loader, Modal, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { SortableTree } from '../../lib/SortableTree';

type Menu = Schemas['NavigationMenu'];
type Item = Schemas['NavigationItem'];

/** Items nest at most 4 levels below the top (level 0 to 4). */
const MAX_ITEM_DEPTH = 4;

export function NavigationScreen({ menuId }: { menuId?: string }) {
  usePageTitle('Menus');
  const api = useApi();
  const navigate = useNavigate();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.navigation');
  const menus = useQuery({
    queryKey: ['navigation_menus', websiteId],
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/navigation_menus', { path: { website_id: websiteId }, query: { page_size: 100 } }),
  });
  const [creating, setCreating] = useState(false);
  const current = menus.data?.find((m) => m.id === menuId) ?? menus.data?.[0];
  const select = (id: string) => void navigate({ to: '/w/$websiteId/r/navigation_menus/$navigationMenuId', params: { websiteId, navigationMenuId: id } });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Menus</Title>
        {canWrite && (
          <Button variant="default" onClick={() => setCreating(true)}>
            New menu
          </Button>
        )}
      </Group>
      <ApiErrorAlert error={menus.error} title="The menus could not be loaded" />
      {menus.isPending && <Loader role="status" aria-label="Loading the menus" />}
      {menus.data && menus.data.length === 0 && (
        <Alert title="No menu yet">A menu is a list of links the site shows (the main menu in the header, the footer menu). {canWrite ? 'Create one to start.' : ''}</Alert>
      )}
      {menus.data && menus.data.length > 0 && current && (
        <>
          {menus.data.length > 1 && (
            <SegmentedControl
              aria-label="Menu"
              value={current.id}
              onChange={select}
              data={menus.data.map((m) => ({ value: m.id, label: `${m.display_name} (${m.identifier})` }))}
              style={{ alignSelf: 'flex-start' }}
            />
          )}
          <MenuEditor key={current.id} menu={current} canWrite={canWrite} />
        </>
      )}
      {creating && <NewMenuModal onClose={() => setCreating(false)} onCreated={(m) => select(m.id)} />}
    </Stack>
  );
}

function NewMenuModal({ onClose, onCreated, menu: editing }: { onClose: () => void; onCreated: (menu: Menu) => void; menu?: Menu }) {
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId } = useCurrentWebsite();
  const form = useForm({ initialValues: { display_name: editing?.display_name ?? '', identifier: editing?.identifier ?? '' } });
  const [error, setError] = useState<unknown>();
  const submit = form.onSubmit(async (values) => {
    setError(undefined);
    try {
      const menu = editing
        ? await data(
            api.PATCH('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}', {
              params: { path: { website_id: websiteId, navigation_menu_id: editing.id }, header: { 'If-Match': editing.etag } },
              body: values,
            }),
          )
        : await data(api.POST('/tenant-api/v1/websites/{website_id}/navigation_menus', { params: { path: { website_id: websiteId } }, body: values }));
      await qc.invalidateQueries({ queryKey: ['navigation_menus', websiteId] });
      onCreated(menu);
      onClose();
    } catch (err) {
      if (!applyFieldErrors(form, err, ['display_name', 'identifier'])) setError(err);
    }
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={editing ? `Rename “${editing.display_name}”` : 'New menu'}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The menu was not created" />
          <TextInput label="Name" required {...form.getInputProps('display_name')} />
          <TextInput label="Identifier" description="How the theme places it: main, footer…" required {...form.getInputProps('identifier')} />
          <Button type="submit" loading={form.submitting}>
            {editing ? 'Save menu' : 'Create menu'}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}

function MenuEditor({ menu, canWrite }: { menu: Menu; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId } = useCurrentWebsite();
  const key = ['navigation_items', websiteId, menu.id];
  const path = { website_id: websiteId, navigation_menu_id: menu.id };
  const items = useQuery({
    queryKey: key,
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}/items', { path, query: { page_size: 100 } }),
  });
  const pageIds = [...new Set((items.data ?? []).map((i) => i.cms_page_id).filter((id): id is string => !!id))];
  const pages = useQuery({
    queryKey: ['cms_pages', websiteId, 'titles', pageIds],
    enabled: pageIds.length > 0,
    queryFn: async () => {
      const found = await Promise.all(
        pageIds.map((id) => data(api.GET('/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', { params: { path: { website_id: websiteId, cms_page_id: id } } })).catch(() => undefined)),
      );
      return new Map(found.filter((p) => !!p).map((p) => [p!.id, p!.title]));
    },
  });
  const [editing, setEditing] = useState<Item | 'new'>();
  const [moveError, setMoveError] = useState<unknown>();
  const [renaming, setRenaming] = useState(false);
  const navigate = useNavigate();
  const deleteMenu = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}', { params: { path, header: { 'If-Match': menu.etag } } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['navigation_menus', websiteId] });
      void navigate({ to: '/w/$websiteId/r/navigation_menus', params: { websiteId } });
    },
  });
  const [status, setStatus] = useState('');
  const remove = useMutation({
    mutationFn: (item: Item) => api.DELETE('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}/items/{navigation_item_id}', { params: { path: { ...path, navigation_item_id: item.id } } }),
    onSuccess: (_r, item) => {
      setStatus(`${item.label} removed.`);
      return qc.invalidateQueries({ queryKey: key });
    },
  });
  const targetOf = (item: Item) => (item.cms_page_id ? `Page: ${pages.data?.get(item.cms_page_id) ?? item.cms_page_id}` : (item.url ?? ''));

  return (
    <Card withBorder padding="md">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h3">
            {menu.display_name}
          </Title>
          {canWrite && (
            <Group gap="xs">
              <Button variant="default" onClick={() => setRenaming(true)}>
                Rename menu
              </Button>
              <Button
                variant="default"
                c="red.9"
                onClick={async () => {
                  if (!window.confirm(`Delete the menu “${menu.display_name}” with all its entries?`)) return;
                  await deleteMenu.mutateAsync().catch(() => undefined);
                }}
              >
                Delete menu
              </Button>
              <Button onClick={() => setEditing('new')}>Add entry</Button>
            </Group>
          )}
        </Group>
        <Text role="status" aria-live="polite" size="sm">
          {status}
        </Text>
        <ApiErrorAlert error={items.error} title="The entries could not be loaded" />
        <ApiErrorAlert error={moveError} title="The entry was not moved" />
        <ApiErrorAlert error={remove.error} title="The entry was not removed" />
        <ApiErrorAlert error={deleteMenu.error} title="The menu was not deleted" />
        {items.isPending && <Loader role="status" aria-label="Loading the entries" />}
        {items.data && items.data.length === 0 && <Text>This menu has no entries yet.</Text>}
        {items.data && items.data.length > 0 && (
          <SortableTree
            items={items.data}
            label={`Entries of ${menu.display_name}`}
            labelOf={(i) => i.label}
            detailOf={(i) => (
              <>
                {targetOf(i)}
                {!i.is_active && (
                  <Badge ml="xs" size="sm" color="gray.8" variant="filled">
                    Hidden
                  </Badge>
                )}
              </>
            )}
            canWrite={canWrite}
            maxDepth={MAX_ITEM_DEPTH}
            onMove={async (id, move) => {
              setMoveError(undefined);
              try {
                const moved = await data(
                  api.POST('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}/items/{navigation_item_id}:move', {
                    params: { path: { ...path, navigation_item_id: id } },
                    body: move,
                  }),
                );
                setStatus(`${moved.label} moved.`);
              } catch (err) {
                setMoveError(err);
                throw err;
              } finally {
                await qc.invalidateQueries({ queryKey: key });
              }
            }}
            actionsOf={(i) => (
              <>
                <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${i.label}`} onClick={() => setEditing(i)}>
                  <span aria-hidden="true">✎</span>
                </ActionIcon>
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`Remove ${i.label}`}
                  onClick={() => {
                    if (window.confirm(`Remove “${i.label}” and its sub-entries from the menu?`)) remove.mutate(i);
                  }}
                >
                  <span aria-hidden="true">✕</span>
                </ActionIcon>
              </>
            )}
          />
        )}
      </Stack>
      {renaming && (
        <NewMenuModal
          menu={menu}
          onClose={() => setRenaming(false)}
          onCreated={(m) => {
            setStatus(`${m.display_name} saved.`);
          }}
        />
      )}
      {editing && (
        <ItemModal
          menu={menu}
          item={editing === 'new' ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onSaved={async (saved) => {
            setStatus(`${saved.label} saved.`);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
    </Card>
  );
}

/** A page picker: pages found by title as one types (the API's `title` filter). */
export function PageSelect({ value, onChange, error, label = 'Page' }: { value: string | null; onChange: (id: string | null) => void; error?: React.ReactNode; label?: string }) {
  const api = useApi();
  const { websiteId } = useCurrentWebsite();
  const [search, setSearch] = useState('');
  const [query] = useDebouncedValue(search, 250);
  const found = useQuery({
    queryKey: ['cms_pages', websiteId, 'search', query],
    queryFn: async () =>
      (
        await data(
          api.GET('/tenant-api/v1/websites/{website_id}/cms_pages', {
            params: { path: { website_id: websiteId }, query: { page_size: 20, ...(query.trim() ? { filter: `title:${JSON.stringify(query.trim())}` } : {}) } },
          }),
        )
      ).cms_pages,
  });
  const chosen = useQuery({
    queryKey: ['cms_pages', websiteId, value],
    enabled: !!value,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', { params: { path: { website_id: websiteId, cms_page_id: value! } } })),
  });
  const options = new Map<string, string>();
  if (chosen.data) options.set(chosen.data.id, `${chosen.data.title} (/${chosen.data.url_key})`);
  for (const p of found.data ?? []) options.set(p.id, `${p.title} (/${p.url_key})`);
  return (
    <Select
      label={label}
      placeholder="Search pages by title"
      searchable
      clearable
      clearButtonProps={{ 'aria-label': 'Clear' }}
      required
      value={value}
      onChange={onChange}
      onSearchChange={setSearch}
      searchValue={search}
      // The server searched already: show what it found.
      filter={({ options: o }) => o}
      data={[...options].map(([v, l]) => ({ value: v, label: l }))}
      nothingFoundMessage={found.isFetching ? 'Searching…' : 'No page with that title'}
      error={error}
    />
  );
}

function ItemModal({ menu, item, onClose, onSaved }: { menu: Menu; item?: Item; onClose: () => void; onSaved: (item: Item) => Promise<void> }) {
  const api = useApi();
  const { websiteId } = useCurrentWebsite();
  const [kind, setKind] = useState<'page' | 'url'>(item?.url ? 'url' : 'page');
  const form = useForm({
    initialValues: { label: item?.label ?? '', cms_page_id: item?.cms_page_id ?? (null as string | null), url: item?.url ?? '', open_in_new_tab: item?.open_in_new_tab ?? false, is_active: item?.is_active ?? true },
  });
  const [error, setError] = useState<unknown>();
  useEffect(() => form.clearErrors(), [kind]); // eslint-disable-line react-hooks/exhaustive-deps
  const submit = form.onSubmit(async (v) => {
    setError(undefined);
    const target = kind === 'page' ? { cms_page_id: v.cms_page_id, url: null } : { url: v.url, cms_page_id: null };
    const body = { label: v.label, open_in_new_tab: v.open_in_new_tab, is_active: v.is_active, ...target };
    const path = { website_id: websiteId, navigation_menu_id: menu.id };
    try {
      const saved = item
        ? await data(
            api.PATCH('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}/items/{navigation_item_id}', {
              params: { path: { ...path, navigation_item_id: item.id }, header: { 'If-Match': item.etag } },
              body,
            }),
          )
        : await data(api.POST('/tenant-api/v1/websites/{website_id}/navigation_menus/{navigation_menu_id}/items', { params: { path }, body }));
      await onSaved(saved);
      onClose();
    } catch (err) {
      if (!applyFieldErrors(form, err, ['label', 'cms_page_id', 'url', 'open_in_new_tab', 'is_active'])) setError(err);
    }
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={item ? `Edit “${item.label}”` : `New entry in ${menu.display_name}`}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The entry was not saved" />
          <TextInput label="Label" required data-autofocus {...form.getInputProps('label')} />
          <SegmentedControl
            aria-label="Links to"
            value={kind}
            onChange={(v) => setKind(v as 'page' | 'url')}
            data={[
              { value: 'page', label: 'A page' },
              { value: 'url', label: 'A URL' },
            ]}
          />
          {kind === 'page' ? (
            <PageSelect value={form.values.cms_page_id} onChange={(id) => form.setFieldValue('cms_page_id', id)} error={form.errors.cms_page_id} />
          ) : (
            <TextInput label="URL" description="https://…, /a-path, #fragment, mailto: or tel:" required {...form.getInputProps('url')} />
          )}
          <Checkbox label="Open in a new tab" {...form.getInputProps('open_in_new_tab', { type: 'checkbox' })} />
          <Checkbox label="Shown in the menu" {...form.getInputProps('is_active', { type: 'checkbox' })} />
          <Button type="submit" loading={form.submitting}>
            {item ? 'Save entry' : 'Add entry'}
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}
