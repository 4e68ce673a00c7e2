/**
 * The media library: folders as a tree (create, rename, move with `:move`, delete), the files of a
 * folder as a grid or a list, search, drag-and-drop multi-file upload with progress and an error
 * per refused file, details with alt text and title editing and the transformed-variant URLs.
 */
import { useMemo, useRef, useState } from 'react';
import {
  Alert,
  Anchor,
  Badge,
  Box,
  Button,
  CopyButton,
  Drawer,
  Grid,
  Group,
  Image,
  Modal,
  NavLink,
  Paper,
  Progress,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Textarea,
  Title,
  UnstyledButton,
  VisuallyHidden,
} from '@mantine/core';
import { useDebouncedCallback } from '@mantine/hooks';
import { useInfiniteQuery, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, errorMessage, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { EmptyState, Loading, useCanWrite } from '../pages/editor/common';
import { listMedia, mediaFilter, mediaKey, thumbnailUrl, type Media, type MediaFolder } from './media-query';
import { formatBytes, uploadMedia } from './upload';

export interface LibrarySearch {
  folder?: string;
  q?: string;
  layout?: 'grid' | 'list';
}

interface UploadRow {
  key: string;
  name: string;
  size: number;
  progress: number;
  state: 'uploading' | 'done' | 'refused';
  error?: string;
}

export function MediaLibrary({ websiteId, search }: { websiteId: string; search: LibrarySearch }) {
  usePageTitle('Media library');
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const canWrite = useCanWrite('website.media');
  const setSearch = (next: Partial<LibrarySearch>) => void navigate({ to: '.', search: ((prev: LibrarySearch) => ({ ...prev, ...next })) as never, replace: true });
  const folderId = search.folder === 'root' ? null : search.folder;
  const filter = mediaFilter({ folderId, search: search.q });

  const folders = useQuery({
    queryKey: [...mediaKey(websiteId), 'folders'],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/media_folders', { params: { path: { website_id: websiteId }, query: { page_size: 100 } as never } })),
  });
  const list = useInfiniteQuery({
    queryKey: [...mediaKey(websiteId), 'list', filter],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => listMedia(api, websiteId, filter, pageParam),
    getNextPageParam: (last) => last.next_page_token || undefined,
  });
  const items = (list.data?.pages ?? []).flatMap((p) => p.media);
  const [selected, setSelected] = useState<Media | undefined>();
  const [uploads, setUploads] = useState<UploadRow[]>([]);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const [q, setQ] = useState(search.q ?? '');
  const searchLater = useDebouncedCallback((v: string) => setSearch({ q: v || undefined }), 300);
  const folderList = folders.data?.media_folders ?? [];
  const currentFolder = folderList.find((f) => f.id === folderId);

  const upload = async (files: File[]) => {
    const rows = files.map((f, i) => ({ key: `${Date.now()}-${i}-${f.name}`, name: f.name, size: f.size, progress: 0, state: 'uploading' as const }));
    setUploads((u) => [...rows, ...u]);
    const update = (key: string, patch: Partial<UploadRow>) => setUploads((u) => u.map((r) => (r.key === key ? { ...r, ...patch } : r)));
    // Two at a time: progress stays readable, and the server is not flooded.
    const queue = files.map((file, i) => ({ file, key: rows[i].key }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { file, key } = next;
        try {
          await uploadMedia(api, websiteId, file, { folderId: folderId ?? undefined, onProgress: (p) => update(key, { progress: p }) });
          update(key, { state: 'done', progress: 1 });
        } catch (err) {
          const fields = fieldErrorsOf(err);
          update(key, { state: 'refused', error: fields.file ?? errorMessage(err) });
        }
      }
    };
    await Promise.all([worker(), worker()]);
    await queryClient.invalidateQueries({ queryKey: mediaKey(websiteId) });
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Media library</Title>
        {canWrite && (
          <>
            <Button onClick={() => fileInput.current?.click()}>Upload files</Button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              aria-label="Files to upload"
              onChange={(e) => {
                const files = [...(e.currentTarget.files ?? [])];
                e.currentTarget.value = '';
                if (files.length) void upload(files);
              }}
            />
          </>
        )}
      </Group>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 3 }}>
          <FolderTree websiteId={websiteId} folders={folderList} loading={folders.isLoading} error={folders.error} value={search.folder} onChange={(f) => setSearch({ folder: f })} canWrite={canWrite} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9 }}>
          <Stack>
            <Group align="flex-end" wrap="wrap">
              <TextInput
                label="Search file names"
                value={q}
                onChange={(e) => {
                  setQ(e.currentTarget.value);
                  searchLater(e.currentTarget.value);
                }}
                style={{ flex: '1 1 220px' }}
              />
              <SegmentedControl
                aria-label="Layout"
                value={search.layout ?? 'grid'}
                onChange={(v) => setSearch({ layout: v === 'list' ? 'list' : undefined })}
                data={[
                  { value: 'grid', label: 'Grid' },
                  { value: 'list', label: 'List' },
                ]}
              />
            </Group>
            {canWrite && (
              <Box
                role="region"
                aria-label="Drop files to upload"
                onDragOver={(e) => {
                  e.preventDefault();
                  setDragging(true);
                }}
                onDragLeave={() => setDragging(false)}
                onDrop={(e) => {
                  e.preventDefault();
                  setDragging(false);
                  const files = [...e.dataTransfer.files];
                  if (files.length) void upload(files);
                }}
                p="md"
                style={{
                  border: `2px dashed var(--mantine-color-${dragging ? 'blue-7' : 'gray-5'})`,
                  borderRadius: 8,
                  background: dragging ? 'var(--mantine-color-blue-0)' : undefined,
                  textAlign: 'center',
                }}
              >
                <Text size="sm">
                  Drop files here to upload them {currentFolder ? `into “${currentFolder.display_name}”` : folderId === null ? 'outside every folder' : 'to the library'}, or{' '}
                  <Anchor component="button" type="button" onClick={() => fileInput.current?.click()}>
                    choose files
                  </Anchor>
                  .
                </Text>
              </Box>
            )}
            {uploads.length > 0 && <UploadList rows={uploads} onClear={() => setUploads((u) => u.filter((r) => r.state === 'uploading'))} />}
            <ApiErrorAlert error={list.error} title="The library could not be read" />
            {list.isLoading && <Loading label="Loading the library…" />}
            {list.data && items.length === 0 && (
              <EmptyState title={search.q ? 'No file matches the search.' : currentFolder ? 'This folder is empty.' : 'The library is empty.'}>
                {canWrite && !search.q && <Text size="sm">Upload images by dropping them above.</Text>}
              </EmptyState>
            )}
            {items.length > 0 &&
              ((search.layout ?? 'grid') === 'grid' ? (
                <SimpleGrid cols={{ base: 2, sm: 3, lg: 5 }} role="list" aria-label="Files">
                  {items.map((m) => (
                    <Box role="listitem" key={m.id}>
                      <UnstyledButton
                        onClick={() => setSelected(m)}
                        style={{ display: 'block', width: '100%', border: '1px solid var(--mantine-color-gray-4)', borderRadius: 6, padding: 6 }}
                      >
                        {m.is_image ? (
                          <Image src={thumbnailUrl(m, 320)} alt="" h={120} fit="contain" />
                        ) : (
                          <Box h={120} style={{ display: 'grid', placeItems: 'center' }}>
                            <Text size="sm">{m.mime_type}</Text>
                          </Box>
                        )}
                        <Text size="xs" truncate mt={4}>
                          <VisuallyHidden>Details of </VisuallyHidden>
                          {m.original_filename ?? m.filename}
                        </Text>
                        {m.is_image && !m.alt_text && (
                          <Badge size="xs" color="#8a3c00" variant="filled">
                            No alt text
                          </Badge>
                        )}
                      </UnstyledButton>
                    </Box>
                  ))}
                </SimpleGrid>
              ) : (
                <Table striped highlightOnHover>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>File</Table.Th>
                      <Table.Th>Type</Table.Th>
                      <Table.Th>Size</Table.Th>
                      <Table.Th>Alt text</Table.Th>
                      <Table.Th>Uploaded</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {items.map((m) => (
                      <Table.Tr key={m.id}>
                        <Table.Td>
                          <Anchor component="button" type="button" onClick={() => setSelected(m)}>
                            {m.original_filename ?? m.filename}
                          </Anchor>
                        </Table.Td>
                        <Table.Td>{m.mime_type}</Table.Td>
                        <Table.Td>{formatBytes(m.file_size)}</Table.Td>
                        <Table.Td>{m.alt_text || '—'}</Table.Td>
                        <Table.Td>{new Date(m.create_time).toLocaleString()}</Table.Td>
                      </Table.Tr>
                    ))}
                  </Table.Tbody>
                </Table>
              ))}
            {list.hasNextPage && (
              <Button variant="default" onClick={() => void list.fetchNextPage()} loading={list.isFetchingNextPage} style={{ alignSelf: 'center' }}>
                Show more
              </Button>
            )}
          </Stack>
        </Grid.Col>
      </Grid>
      <Drawer closeButtonProps={{ 'aria-label': 'Close' }} opened={!!selected} onClose={() => setSelected(undefined)} position="right" size="lg" title="File details">
        {selected && (
          <MediaDetails
            key={selected.id}
            websiteId={websiteId}
            media={selected}
            folders={folderList}
            canWrite={canWrite}
            onChanged={(m) => {
              setSelected(m);
              void queryClient.invalidateQueries({ queryKey: mediaKey(websiteId) });
            }}
            onDeleted={() => {
              setSelected(undefined);
              void queryClient.invalidateQueries({ queryKey: mediaKey(websiteId) });
            }}
          />
        )}
      </Drawer>
    </Stack>
  );
}

function UploadList({ rows, onClear }: { rows: UploadRow[]; onClear(): void }) {
  return (
    <Paper withBorder p="sm">
      <Group justify="space-between" mb="xs">
        <Title order={2} size="h5">
          Uploads
        </Title>
        <Button size="compact-xs" variant="subtle" onClick={onClear}>
          Clear finished
        </Button>
      </Group>
      <Stack gap="xs" role="list" aria-label="Uploads">
        {rows.map((r) => (
          <Box key={r.key} role="listitem" aria-label={r.name}>
            <Group justify="space-between" gap="xs">
              <Text size="sm" truncate style={{ flex: 1 }}>
                {r.name} <Text span size="xs">({formatBytes(r.size)})</Text>
              </Text>
              <Text size="sm" fw={600} c={r.state === 'refused' ? 'red.9' : r.state === 'done' ? '#1e6b34' : undefined}>
                {r.state === 'uploading' ? `${Math.round(r.progress * 100)}%` : r.state === 'done' ? 'Uploaded' : 'Refused'}
              </Text>
            </Group>
            {r.state !== 'refused' && <Progress value={r.progress * 100} size="sm" aria-label={`Upload of ${r.name}`} color={r.state === 'done' ? 'green.8' : 'blue.7'} />}
            {r.state === 'refused' && (
              <Alert color="red" p={6} role="alert" aria-label={`${r.name} was refused`}>
                <Text size="sm">
                  {r.name}: {r.error}
                </Text>
              </Alert>
            )}
          </Box>
        ))}
      </Stack>
    </Paper>
  );
}

/** The public transformed reads worth copying: widths for `srcset`, a square thumbnail, WebP. */
export function variantUrls(media: Media): { label: string; url: string }[] {
  if (!media.url || !media.is_image) return [];
  const sep = media.url.includes('?') ? '&' : '?';
  const at = (q: string) => `${media.url}${sep}${q}`;
  return [
    { label: 'Original', url: media.url },
    { label: 'Width 320', url: at('w=320') },
    { label: 'Width 640', url: at('w=640') },
    { label: 'Width 1280', url: at('w=1280') },
    { label: 'Square thumbnail 200×200', url: at('w=200&h=200&crop=1') },
    { label: 'WebP, width 800', url: at('w=800&fmt=webp') },
  ];
}

function MediaDetails({
  websiteId,
  media,
  folders,
  canWrite,
  onChanged,
  onDeleted,
}: {
  websiteId: string;
  media: Media;
  folders: MediaFolder[];
  canWrite: boolean;
  onChanged(m: Media): void;
  onDeleted(): void;
}) {
  const api = useApi();
  const [alt, setAlt] = useState(media.alt_text ?? '');
  const [title, setTitle] = useState(media.title ?? '');
  const [folder, setFolder] = useState<string>(media.folder_id ?? '');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const errors = fieldErrorsOf(error);
  const path = { website_id: websiteId, media_id: media.id };
  const dirty = alt !== (media.alt_text ?? '') || title !== (media.title ?? '') || folder !== (media.folder_id ?? '');
  const save = async () => {
    setBusy(true);
    setError(undefined);
    setSaved(false);
    try {
      const updated = await data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/media/{media_id}', {
          params: { path, header: { 'If-Match': `"${media.etag.replace(/"/g, '')}"` } as never },
          body: { alt_text: alt, title, folder_id: folder || null } as never,
        }),
      );
      setSaved(true);
      onChanged(updated);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      {media.is_image ? <Image src={thumbnailUrl(media, 800)} alt={media.alt_text ?? ''} mah={320} fit="contain" /> : <Text>{media.mime_type}</Text>}
      <Table>
        <Table.Tbody>
          <Table.Tr>
            <Table.Th>File</Table.Th>
            <Table.Td>{media.original_filename}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Type</Table.Th>
            <Table.Td>{media.mime_type}</Table.Td>
          </Table.Tr>
          <Table.Tr>
            <Table.Th>Size</Table.Th>
            <Table.Td>
              {formatBytes(media.file_size)}
              {media.is_image && media.width ? `, ${media.width} × ${media.height} px` : ''}
            </Table.Td>
          </Table.Tr>
        </Table.Tbody>
      </Table>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Stack gap="sm">
          <Textarea label="Alt text" description="What the image shows, for people who cannot see it." value={alt} onChange={(e) => setAlt(e.currentTarget.value)} error={errors.alt_text} readOnly={!canWrite} autosize minRows={2} />
          <TextInput label="Title" value={title} onChange={(e) => setTitle(e.currentTarget.value)} error={errors.title} readOnly={!canWrite} />
          <Select
            label="Folder"
            data={[{ value: '', label: 'No folder (library root)' }, ...folders.map((f) => ({ value: f.id, label: `${'— '.repeat(f.level ?? 0)}${f.display_name}` }))]}
            value={folder}
            onChange={(v) => setFolder(v ?? '')}
            readOnly={!canWrite}
            allowDeselect={false}
          />
          <ApiErrorAlert error={Object.keys(errors).length ? undefined : error} title="Not saved" />
          {saved && !dirty && (
            <Text size="sm" role="status">
              Saved.
            </Text>
          )}
          {canWrite && (
            <Group justify="space-between">
              <Button
                color="red"
                variant="outline"
                onClick={async () => {
                  try {
                    await api.DELETE('/tenant-api/v1/websites/{website_id}/media/{media_id}', { params: { path } });
                    onDeleted();
                  } catch (err) {
                    setError(err);
                  }
                }}
              >
                Delete file
              </Button>
              <Button type="submit" loading={busy} disabled={!dirty}>
                Save details
              </Button>
            </Group>
          )}
        </Stack>
      </form>
      {media.is_image && (
        <Stack gap="xs">
          <Title order={3} size="h5">
            Transformed variants
          </Title>
          {variantUrls(media).map((v) => (
            <Group key={v.label} gap="xs" wrap="nowrap">
              <Text size="sm" w={190}>
                {v.label}
              </Text>
              <Anchor href={v.url} target="_blank" rel="noreferrer" size="sm" style={{ flex: 1, minWidth: 0, overflowWrap: 'anywhere' }}>
                {v.url}
              </Anchor>
              <CopyButton value={v.url}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="default" onClick={copy} aria-label={`Copy the ${v.label} address`}>
                    {copied ? 'Copied' : 'Copy'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
}

function FolderTree({
  websiteId,
  folders,
  loading,
  error,
  value,
  onChange,
  canWrite,
}: {
  websiteId: string;
  folders: MediaFolder[];
  loading: boolean;
  error: unknown;
  value: string | undefined;
  onChange(folder: string | undefined): void;
  canWrite: boolean;
}) {
  const [dialog, setDialog] = useState<{ mode: 'new' | 'rename' | 'move'; folder?: MediaFolder } | undefined>();
  const sorted = useMemo(() => [...folders].sort((a, b) => String(a.path).localeCompare(String(b.path))), [folders]);
  const current = folders.find((f) => f.id === value);
  return (
    <Paper withBorder p="xs">
      <Title order={2} size="h5" mb="xs">
        Folders
      </Title>
      <nav aria-label="Folders">
        <NavLink label="All files" active={value === undefined} onClick={() => onChange(undefined)} component="button" />
        <NavLink label="Not in a folder" active={value === 'root'} onClick={() => onChange('root')} component="button" />
        {sorted.map((f) => (
          <NavLink
            key={f.id}
            label={f.display_name}
            active={value === f.id}
            onClick={() => onChange(f.id)}
            component="button"
            pl={12 + 16 * (f.level ?? 0)}
            aria-current={value === f.id ? 'true' : undefined}
          />
        ))}
      </nav>
      {loading && <Loading label="Loading folders…" />}
      <ApiErrorAlert error={error} />
      {canWrite && (
        <Stack gap={4} mt="xs">
          <Button size="xs" variant="default" onClick={() => setDialog({ mode: 'new' })}>
            {current ? `New folder in “${current.display_name}”` : 'New folder'}
          </Button>
          {current && (
            <Group gap={4} grow>
              <Button size="xs" variant="default" onClick={() => setDialog({ mode: 'rename', folder: current })}>
                Rename
              </Button>
              <Button size="xs" variant="default" onClick={() => setDialog({ mode: 'move', folder: current })}>
                Move
              </Button>
            </Group>
          )}
        </Stack>
      )}
      <FolderDialog
        websiteId={websiteId}
        folders={sorted}
        dialog={dialog}
        parent={current}
        onClose={() => setDialog(undefined)}
        onDeleted={() => {
          setDialog(undefined);
          onChange(undefined);
        }}
      />
    </Paper>
  );
}

function FolderDialog({
  websiteId,
  folders,
  dialog,
  parent,
  onClose,
  onDeleted,
}: {
  websiteId: string;
  folders: MediaFolder[];
  dialog: { mode: 'new' | 'rename' | 'move'; folder?: MediaFolder } | undefined;
  parent: MediaFolder | undefined;
  onClose(): void;
  onDeleted(): void;
}) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [after, setAfter] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [lastDialog, setLastDialog] = useState(dialog);
  // While the modal closes (animated), it keeps showing the dialog it had.
  const [shown, setShown] = useState(dialog);
  if (dialog !== lastDialog) {
    setLastDialog(dialog);
    if (dialog) {
      setShown(dialog);
      setName(dialog.mode === 'rename' ? (dialog.folder?.display_name ?? '') : '');
      setTarget(dialog.folder?.parent_id ?? '');
      setAfter('');
      setError(undefined);
    }
  }
  const folder = shown?.folder;
  // A folder cannot move into itself or below itself.
  const targets = folders.filter((f) => !folder || !String(f.path).split('/').includes(folder.id));
  const siblings = folders.filter((f) => (f.parent_id ?? '') === target && f.id !== folder?.id);
  const path = { website_id: websiteId };
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      await queryClient.invalidateQueries({ queryKey: mediaKey(websiteId) });
      onClose();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const errors = fieldErrorsOf(error);
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={!!dialog} onClose={onClose} title={shown?.mode === 'new' ? 'New folder' : shown?.mode === 'rename' ? 'Rename folder' : `Move “${folder?.display_name}”`}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (shown?.mode === 'new')
            void run(() => data(api.POST('/tenant-api/v1/websites/{website_id}/media_folders', { params: { path }, body: { display_name: name, ...(parent ? { parent_id: parent.id } : {}) } as never })));
          else if (shown?.mode === 'rename' && folder)
            void run(() => data(api.PATCH('/tenant-api/v1/websites/{website_id}/media_folders/{media_folder_id}', { params: { path: { ...path, media_folder_id: folder.id } }, body: { display_name: name } as never })));
          else if (shown?.mode === 'move' && folder)
            void run(() =>
              data(
                api.POST('/tenant-api/v1/websites/{website_id}/media_folders/{media_folder_id}:move', {
                  params: { path: { ...path, media_folder_id: folder.id } },
                  body: { parent_id: target || null, after_id: after || null, etag: folder.etag } as never,
                }),
              ),
            );
        }}
      >
        <Stack>
          {shown?.mode !== 'move' && <TextInput label="Folder name" value={name} onChange={(e) => setName(e.currentTarget.value)} error={errors.display_name} required data-autofocus />}
          {shown?.mode === 'new' && <Text size="sm">{parent ? `Inside “${parent.display_name}”.` : 'At the top level.'}</Text>}
          {shown?.mode === 'move' && (
            <>
              <Select
                label="Move into"
                data={[{ value: '', label: 'Top level' }, ...targets.map((f) => ({ value: f.id, label: `${'— '.repeat(f.level ?? 0)}${f.display_name}` }))]}
                value={target}
                onChange={(v) => {
                  setTarget(v ?? '');
                  setAfter('');
                }}
                allowDeselect={false}
              />
              <Select
                label="Position"
                data={[{ value: '', label: 'First' }, ...siblings.map((f) => ({ value: f.id, label: `After “${f.display_name}”` }))]}
                value={after}
                onChange={(v) => setAfter(v ?? '')}
                allowDeselect={false}
              />
            </>
          )}
          <ApiErrorAlert error={Object.keys(errors).length ? undefined : error} />
          <Group justify="space-between">
            {shown?.mode === 'rename' && folder ? (
              <Button
                color="red"
                variant="outline"
                onClick={() =>
                  void run(async () => {
                    await api.DELETE('/tenant-api/v1/websites/{website_id}/media_folders/{media_folder_id}', { params: { path: { ...path, media_folder_id: folder.id } } });
                    onDeleted();
                  })
                }
              >
                Delete folder
              </Button>
            ) : (
              <span />
            )}
            <Button type="submit" loading={busy}>
              {shown?.mode === 'new' ? 'Create folder' : shown?.mode === 'rename' ? 'Rename' : 'Move'}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
