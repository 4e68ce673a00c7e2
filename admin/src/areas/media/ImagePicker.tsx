/**
 * The image picker every editor uses (page and post bodies, feature images; the theme's logo and
 * favicon): choose an image of the website's media library, or upload one on the spot.
 *
 *   <ImagePicker websiteId={id} opened={open} onClose={…} onPick={(media) => …} />
 *   <MediaField websiteId={id} label="Feature image" value={mediaId} onChange={(id, media) => …} />
 */
import { useState } from 'react';
import { Alert, Box, Button, FileButton, Group, Image, Loader, Modal, Progress, SimpleGrid, Stack, Text, TextInput, UnstyledButton } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert, errorMessage } from '../../lib/errors';
import { listMedia, mediaFilter, mediaKey, thumbnailUrl, type Media } from './media-query';
import { uploadMedia } from './upload';

interface PickerProps {
  websiteId: string;
  opened: boolean;
  onClose(): void;
  onPick(media: Media): void;
  title?: string;
  /** false: the caller puts focus back itself (the rich-text editor, into its text). */
  returnFocus?: boolean;
  /** Called once the dialog has gone (after its exit transition). */
  onClosed?(): void;
}

export function ImagePicker({ websiteId, opened, onClose, onClosed, onPick, title = 'Choose an image', returnFocus = true }: PickerProps) {
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title={title} size="xl" returnFocus={returnFocus} onExitTransitionEnd={onClosed}>
      {opened && <PickerBody websiteId={websiteId} onPick={onPick} />}
    </Modal>
  );
}

function PickerBody({ websiteId, onPick }: { websiteId: string; onPick(media: Media): void }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search, 250);
  const filter = mediaFilter({ imagesOnly: true, search: debounced });
  const list = useQuery({ queryKey: [...mediaKey(websiteId), 'picker', filter], queryFn: () => listMedia(api, websiteId, filter) });
  const [progress, setProgress] = useState<number | undefined>();
  const [uploadError, setUploadError] = useState<unknown>();

  const upload = async (file: File | null) => {
    if (!file) return;
    setUploadError(undefined);
    setProgress(0);
    try {
      const media = await uploadMedia(api, websiteId, file, { onProgress: setProgress });
      await queryClient.invalidateQueries({ queryKey: mediaKey(websiteId) });
      if (!media.is_image) throw new Error(`${file.name} is not an image the site can show (${media.mime_type}); it was added to the library.`);
      onPick(media);
    } catch (err) {
      setUploadError(err);
    } finally {
      setProgress(undefined);
    }
  };

  const items = list.data?.media ?? [];
  return (
    <Stack>
      <Group align="flex-end">
        <TextInput label="Search images" placeholder="File name" value={search} onChange={(e) => setSearch(e.currentTarget.value)} style={{ flex: 1 }} data-autofocus />
        <FileButton onChange={upload} accept="image/*">
          {(props) => (
            <Button {...props} variant="default" loading={progress !== undefined}>
              Upload an image
            </Button>
          )}
        </FileButton>
      </Group>
      {progress !== undefined && <Progress value={progress * 100} aria-label="Upload progress" />}
      {uploadError !== undefined && (
        <Alert color="red" role="alert" title="The image was not added">
          {errorMessage(uploadError)}
        </Alert>
      )}
      {list.isLoading && (
        <Group justify="center" p="lg">
          <Loader size="sm" aria-label="Loading images" />
        </Group>
      )}
      <ApiErrorAlert error={list.error} title="The library could not be read" />
      {list.data && items.length === 0 && <Text>{debounced ? 'No image matches.' : 'The library has no images yet: upload one.'}</Text>}
      <SimpleGrid cols={{ base: 2, sm: 4 }} role="list" aria-label="Images">
        {items.map((m) => (
          <Box key={m.id} role="listitem">
            <UnstyledButton
              onClick={() => onPick(m)}
              aria-label={`Use ${m.original_filename ?? m.filename}${m.alt_text ? ` (${m.alt_text})` : ''}`}
              style={{ display: 'block', width: '100%', border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, padding: 4 }}
            >
              <Image src={thumbnailUrl(m, 240)} alt="" h={110} fit="contain" />
              <Text size="xs" truncate mt={4}>
                {m.original_filename ?? m.filename}
              </Text>
            </UnstyledButton>
          </Box>
        ))}
      </SimpleGrid>
    </Stack>
  );
}

/** A media reference on a form (feature image, logo…): the chosen image, "Choose", "Remove". */
export function MediaField({
  websiteId,
  label,
  value,
  onChange,
  readOnly,
}: {
  websiteId: string;
  label: string;
  value: string | undefined | null;
  onChange(mediaId: string | null, media?: Media): void;
  readOnly?: boolean;
}) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const media = useQuery({
    queryKey: [...mediaKey(websiteId), 'one', value],
    enabled: !!value,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/media/{media_id}', { params: { path: { website_id: websiteId, media_id: value! } } })),
  });
  const id = `media-field-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <Stack gap={4} role="group" aria-labelledby={id}>
      <Text id={id} size="sm" fw={500}>
        {label}
      </Text>
      {value && media.data && <Image src={thumbnailUrl(media.data, 480)} alt={media.data.alt_text ?? ''} maw={240} radius="sm" />}
      {value && media.isError && <Text size="sm">The image could not be read ({errorMessage(media.error)}).</Text>}
      {!value && <Text size="sm">No image chosen.</Text>}
      {!readOnly && (
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => setOpen(true)}>
            {value ? `Change ${label.toLowerCase()}` : `Choose ${label.toLowerCase()}`}
          </Button>
          {value && (
            <Button size="xs" variant="subtle" color="red" onClick={() => onChange(null)}>
              Remove {label.toLowerCase()}
            </Button>
          )}
        </Group>
      )}
      <ImagePicker
        websiteId={websiteId}
        opened={open}
        title={`Choose ${label.toLowerCase()}`}
        onClose={() => setOpen(false)}
        onPick={(m) => {
          setOpen(false);
          onChange(m.id, m);
        }}
      />
    </Stack>
  );
}
