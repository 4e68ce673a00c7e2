/**
 * Blog categories as a tree (drag and drop or keyboard: `:move`) and, for the chosen category, its
 * posts in the order the archive shows them, reordered by drag and drop (`:set_posts` with the
 * whole order; read back from `GET …/blog_categories/{c}/posts`).
 */
import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Card, Grid, Group, Loader, Modal, MultiSelect, Select, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { DndContext, KeyboardSensor, PointerSensor, closestCenter, useSensor, useSensors, type Announcements, type DragEndEvent } from '@dnd-kit/core';
import { SortableContext, arrayMove, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { listAll } from '../../lib/list-all';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';
import { SortableTree } from '../../lib/SortableTree';

type Category = Schemas['BlogCategory'];
type Post = Schemas['BlogPost'];

/** Categories nest at most 7 levels below the root. */
const MAX_CATEGORY_DEPTH = 7;

export function CategoriesScreen({ categoryId }: { categoryId?: string }) {
  usePageTitle('Blog categories');
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.blog');
  const key = ['blog_categories', websiteId];
  const categories = useQuery({
    queryKey: key,
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/blog_categories', { path: { website_id: websiteId }, query: { page_size: 100 } }),
  });
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Category>();
  const [moveError, setMoveError] = useState<unknown>();
  const [status, setStatus] = useState('');
  const selected = categories.data?.find((c) => c.id === categoryId);
  const select = (c: Category) => void navigate({ to: '/w/$websiteId/r/blog_categories/$blogCategoryId', params: { websiteId, blogCategoryId: c.id } });

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Blog categories</Title>
        {canWrite && <Button onClick={() => setCreating(true)}>New category</Button>}
      </Group>
      <Text role="status" aria-live="polite" size="sm">
        {status}
      </Text>
      <ApiErrorAlert error={categories.error} title="The categories could not be loaded" />
      <ApiErrorAlert error={moveError} title="The category was not moved" />
      {categories.isPending && <Loader role="status" aria-label="Loading the categories" />}
      {categories.data && categories.data.length === 0 && <Alert title="No category yet">Categories group posts; each has its own archive page on the site.</Alert>}
      {categories.data && categories.data.length > 0 && (
        <Grid>
          <Grid.Col span={{ base: 12, md: 5 }} miw={0}>
            <Card withBorder>
              <Title order={2} size="h4" mb="sm">
                Tree
              </Title>
              <SortableTree
                items={categories.data}
                label="Categories"
                labelOf={(c) => c.display_name}
                detailOf={(c) => `/${c.url_key}`}
                canWrite={canWrite}
                maxDepth={MAX_CATEGORY_DEPTH}
                onSelect={select}
                selectedId={selected?.id}
                actionsOf={(c) => (
                  <ActionIcon variant="subtle" color="gray" aria-label={`Edit ${c.display_name}`} onClick={() => setEditing(c)}>
                    <span aria-hidden="true">✎</span>
                  </ActionIcon>
                )}
                onMove={async (id, move) => {
                  setMoveError(undefined);
                  try {
                    const moved = await data(
                      api.POST('/tenant-api/v1/websites/{website_id}/blog_categories/{blog_category_id}:move', { params: { path: { website_id: websiteId, blog_category_id: id } }, body: move }),
                    );
                    setStatus(`${moved.display_name} moved.`);
                  } catch (err) {
                    setMoveError(err);
                    throw err;
                  } finally {
                    await qc.invalidateQueries({ queryKey: key });
                  }
                }}
              />
            </Card>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 7 }} miw={0}>
            {selected ? (
              <CategoryPosts key={selected.id} category={selected} canWrite={canWrite} />
            ) : (
              <Card withBorder>
                <Text>Choose a category to see and order its posts.</Text>
              </Card>
            )}
          </Grid.Col>
        </Grid>
      )}
      {creating && categories.data && <NewCategoryModal categories={categories.data} onClose={() => setCreating(false)} onCreated={select} />}
      {editing && (
        <EditCategoryModal
          category={editing}
          onClose={() => setEditing(undefined)}
          onDone={async (message) => {
            setStatus(message);
            await qc.invalidateQueries({ queryKey: key });
          }}
        />
      )}
    </Stack>
  );
}

function NewCategoryModal({ categories, onClose, onCreated }: { categories: Category[]; onClose: () => void; onCreated: (c: Category) => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId } = useCurrentWebsite();
  const form = useForm({ initialValues: { display_name: '', url_key: '', description: '', parent_id: null as string | null } });
  const [error, setError] = useState<unknown>();
  const submit = form.onSubmit(async (v) => {
    setError(undefined);
    try {
      const created = await data(
        api.POST('/tenant-api/v1/websites/{website_id}/blog_categories', {
          params: { path: { website_id: websiteId } },
          body: { display_name: v.display_name, ...(v.url_key && { url_key: v.url_key }), ...(v.description && { description: v.description }), ...(v.parent_id && { parent_id: v.parent_id }) },
        }),
      );
      await qc.invalidateQueries({ queryKey: ['blog_categories', websiteId] });
      onCreated(created);
      onClose();
    } catch (err) {
      if (!applyFieldErrors(form, err, ['display_name', 'url_key', 'description', 'parent_id'])) setError(err);
    }
  });
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title="New category">
      <form onSubmit={submit} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The category was not created" />
          <TextInput label="Name" required data-autofocus {...form.getInputProps('display_name')} />
          <TextInput label="URL key" description="Derived from the name when left empty." {...form.getInputProps('url_key')} />
          <Select label="Parent" placeholder="None (top level)" clearable clearButtonProps={{ 'aria-label': 'Clear' }} data={categories.map((c) => ({ value: c.id, label: c.display_name }))} {...form.getInputProps('parent_id')} />
          <Textarea label="Description" autosize minRows={2} {...form.getInputProps('description')} />
          <Button type="submit" loading={form.submitting}>
            Create category
          </Button>
        </Stack>
      </form>
    </Modal>
  );
}

/** A category's own fields, and deleting it (with its sub-categories, out of its posts, once confirmed). */
function EditCategoryModal({ category, onClose, onDone }: { category: Category; onClose: () => void; onDone: (message: string) => Promise<void> }) {
  const api = useApi();
  const navigate = useNavigate();
  const { websiteId } = useCurrentWebsite();
  const form = useForm({
    initialValues: {
      display_name: category.display_name,
      url_key: category.url_key ?? '',
      description: category.description ?? '',
      meta_title: category.meta_title ?? '',
      meta_description: category.meta_description ?? '',
    },
  });
  const [error, setError] = useState<unknown>();
  const path = { website_id: websiteId, blog_category_id: category.id };
  const submit = form.onSubmit(async (v) => {
    setError(undefined);
    try {
      const saved = await data(api.PATCH('/tenant-api/v1/websites/{website_id}/blog_categories/{blog_category_id}', { params: { path, header: { 'If-Match': category.etag } }, body: v }));
      await onDone(`${saved.display_name} saved.`);
      onClose();
    } catch (err) {
      if (!applyFieldErrors(form, err, Object.keys(v))) setError(err);
    }
  });
  const remove = async () => {
    if (!window.confirm(`Delete “${category.display_name}”? Its sub-categories go too, and its posts lose these categories (the posts stay).`)) return;
    setError(undefined);
    try {
      await api.DELETE('/tenant-api/v1/websites/{website_id}/blog_categories/{blog_category_id}', { params: { path, query: { force: true } } });
      await onDone(`${category.display_name} deleted.`);
      onClose();
      void navigate({ to: '/w/$websiteId/r/blog_categories', params: { websiteId } });
    } catch (err) {
      setError(err);
    }
  };
  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={`Edit “${category.display_name}”`}>
      <form onSubmit={submit} noValidate>
        <Stack>
          <ApiErrorAlert error={error} title="The category was not changed" />
          <TextInput label="Name" required data-autofocus {...form.getInputProps('display_name')} />
          <TextInput label="URL key" description="Its archive: /blog/category/{URL key}." {...form.getInputProps('url_key')} />
          <Textarea label="Description" autosize minRows={2} {...form.getInputProps('description')} />
          <TextInput label="Title for search engines" {...form.getInputProps('meta_title')} />
          <Textarea label="Description for search engines" autosize minRows={2} {...form.getInputProps('meta_description')} />
          <Group justify="space-between">
            <Button type="submit" loading={form.submitting}>
              Save category
            </Button>
            <Button variant="default" c="red.9" onClick={remove}>
              Delete category
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

function CategoryPosts({ category, canWrite }: { category: Category; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId } = useCurrentWebsite();
  const orderKey = ['blog_categories', websiteId, category.id, 'posts'];
  const order = useQuery({
    queryKey: orderKey,
    queryFn: () =>
      listAll(api, '/tenant-api/v1/websites/{website_id}/blog_categories/{blog_category_id}/posts', {
        path: { website_id: websiteId, blog_category_id: category.id },
        query: { page_size: 100 },
      }),
  });
  const posts = useQuery({
    queryKey: ['blog_posts', websiteId, 'all'],
    queryFn: () => listAll(api, '/tenant-api/v1/websites/{website_id}/blog_posts', { path: { website_id: websiteId }, query: { page_size: 100 } }),
  });
  const byId = new Map((posts.data ?? []).map((p) => [p.id, p]));
  const [shown, setShown] = useState<string[]>();
  const ids = shown ?? (order.data ?? []).map((p) => p.post_id);
  const [adding, setAdding] = useState<string[]>([]);
  const [status, setStatus] = useState('');
  const save = useMutation({
    mutationFn: (postIds: string[]) =>
      data(
        api.POST('/tenant-api/v1/websites/{website_id}/blog_categories/{blog_category_id}:set_posts', {
          params: { path: { website_id: websiteId, blog_category_id: category.id } },
          body: { post_ids: postIds },
        }),
      ),
    onMutate: (postIds) => setShown(postIds),
    onSuccess: () => setStatus('Order saved.'),
    onError: () => setShown(undefined),
    onSettled: async () => {
      await qc.invalidateQueries({ queryKey: orderKey });
      setShown(undefined);
    },
  });
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 4 } }), useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }));
  const titleOf = (id: string) => byId.get(id)?.title ?? id;
  const positionOf = (id: string) => ids.indexOf(id) + 1;
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${titleOf(String(active.id))}, position ${positionOf(String(active.id))} of ${ids.length}.`,
    onDragOver: ({ active, over }) => (over ? `${titleOf(String(active.id))} would take position ${positionOf(String(over.id))}.` : undefined),
    onDragEnd: ({ active, over }) => (over ? `${titleOf(String(active.id))} dropped at position ${positionOf(String(over.id))}.` : `${titleOf(String(active.id))} dropped.`),
    onDragCancel: ({ active }) => `Moving ${titleOf(String(active.id))} was cancelled.`,
  };
  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    save.mutate(arrayMove(ids, ids.indexOf(String(active.id)), ids.indexOf(String(over.id))));
  };
  const moveBy = (id: string, by: number) => {
    const at = ids.indexOf(id);
    if (at + by < 0 || at + by >= ids.length) return;
    save.mutate(arrayMove(ids, at, at + by));
  };
  const candidates = (posts.data ?? []).filter((p) => !ids.includes(p.id));

  return (
    <Card withBorder>
      <Stack>
        <Title order={2} size="h4">
          Posts in {category.display_name}
        </Title>
        <Text size="sm">The category’s archive on the site lists them in this order.</Text>
        <Text role="status" aria-live="polite" size="sm">
          {status}
        </Text>
        <ApiErrorAlert error={order.error ?? posts.error} title="The posts could not be loaded" />
        <ApiErrorAlert error={save.error} title="The order was not saved" />
        {(order.isPending || posts.isPending) && <Loader role="status" aria-label="Loading the posts" />}
        {order.data && ids.length === 0 && <Text>No post is in this category yet.</Text>}
        {order.data && posts.data && ids.length > 0 && (
          <DndContext
            sensors={sensors}
            collisionDetection={closestCenter}
            onDragEnd={onDragEnd}
            accessibility={{ announcements, screenReaderInstructions: { draggable: 'To reorder a post, press Space on its handle, then the arrow keys; Space drops it, Escape cancels.' } }}
          >
            <SortableContext items={ids} strategy={verticalListSortingStrategy}>
              <ol aria-label={`Posts of ${category.display_name}, in order`} style={{ listStyle: 'none', padding: 0, margin: 0 }}>
                {ids.map((id, index) => (
                  <PostRow
                    key={id}
                    id={id}
                    index={index}
                    count={ids.length}
                    post={byId.get(id)}
                    canWrite={canWrite && !save.isPending}
                    onMove={(by) => moveBy(id, by)}
                    onRemove={() => save.mutate(ids.filter((x) => x !== id))}
                  />
                ))}
              </ol>
            </SortableContext>
          </DndContext>
        )}
        {canWrite && posts.data && (
          <Group align="flex-end">
            <MultiSelect
              label="Add posts"
              placeholder={candidates.length ? 'Choose posts' : 'Every post is in it'}
              searchable
              data={candidates.map((p) => ({ value: p.id, label: p.title }))}
              value={adding}
              onChange={setAdding}
              style={{ flex: 1 }}
            />
            <Button
              variant="default"
              disabled={adding.length === 0}
              onClick={() => {
                save.mutate([...ids, ...adding]);
                setAdding([]);
              }}
            >
              Add
            </Button>
          </Group>
        )}
      </Stack>
    </Card>
  );
}

function PostRow({ id, index, count, post, canWrite, onMove, onRemove }: { id: string; index: number; count: number; post?: Post; canWrite: boolean; onMove: (by: number) => void; onRemove: () => void }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id, disabled: !canWrite });
  const title = post?.title ?? id;
  return (
    <li ref={setNodeRef} style={{ transform: CSS.Translate.toString(transform), transition, opacity: isDragging ? 0.6 : 1, position: 'relative', zIndex: isDragging ? 1 : undefined }}>
      <Group gap="xs" wrap="wrap" px="xs" py={6} mb={4} style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 'var(--mantine-radius-sm)', background: 'var(--mantine-color-body)' }}>
        {canWrite && (
          <ActionIcon ref={setActivatorNodeRef} variant="subtle" color="gray" aria-label={`Drag ${title}`} style={{ cursor: 'grab', touchAction: 'none' }} {...attributes} {...listeners}>
            <span aria-hidden="true">⠿</span>
          </ActionIcon>
        )}
        <Text w={28} ta="right" aria-hidden="true">
          {index + 1}.
        </Text>
        <Text style={{ flex: '1 1 8rem', minWidth: 0 }} truncate>
          {title}
        </Text>
        {post && (
          <Badge size="sm" variant="filled" color={post.state === 'PUBLISHED' ? 'teal.9' : 'gray.8'} style={{ flexShrink: 0 }}>
            {post.state}
          </Badge>
        )}
        {canWrite && (
          <Group gap={2} wrap="nowrap" ml="auto">
            <ActionIcon variant="subtle" color="gray" aria-label={`Move ${title} up`} disabled={index === 0} onClick={() => onMove(-1)}>
              <span aria-hidden="true">↑</span>
            </ActionIcon>
            <ActionIcon variant="subtle" color="gray" aria-label={`Move ${title} down`} disabled={index === count - 1} onClick={() => onMove(1)}>
              <span aria-hidden="true">↓</span>
            </ActionIcon>
            <ActionIcon variant="subtle" color="red" aria-label={`Take ${title} out of the category`} onClick={onRemove}>
              <span aria-hidden="true">✕</span>
            </ActionIcon>
          </Group>
        )}
      </Group>
    </li>
  );
}
