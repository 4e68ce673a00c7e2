/** Small pieces the content screens share: the website (address, time zone), write rights, a delete with confirmation, loading and empty states. */
import { useState, type ReactNode } from 'react';
import { Button, Center, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../../lib/session';
import { useRights } from '../../../lib/rights';
import { useCurrentWebsite } from '../../../lib/layout/WebsiteShell';
import { ApiErrorAlert } from '../../../lib/errors';

export function useWebsite(websiteId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['websites', websiteId],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: websiteId } } })),
    staleTime: 60_000,
  });
}

/** Whether the member may write `section` of the current website (false while the rights load: write controls appear once known). */
export function useCanWrite(section: string): boolean {
  const { websiteId, entry } = useCurrentWebsite();
  return useRights(entry?.account.id, websiteId)?.canWrite(section) ?? false;
}

export function Loading({ label }: { label: string }) {
  return (
    <Center p="xl" role="status" aria-live="polite">
      <Group gap="sm">
        <Loader size="sm" />
        <Text>{label}</Text>
      </Group>
    </Center>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <Stack align="center" p="xl" gap="xs" style={{ border: '1px dashed var(--mantine-color-gray-5)', borderRadius: 8 }}>
      <Text fw={600}>{title}</Text>
      {children}
    </Stack>
  );
}

export function ConfirmDelete({ what, onConfirm, label = 'Delete' }: { what: string; onConfirm(): Promise<unknown>; label?: string }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  return (
    <>
      <Button color="red" variant="outline" onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={open} onClose={() => setOpen(false)} title={`Delete ${what}?`}>
        <Stack>
          <Text>This cannot be undone.</Text>
          <ApiErrorAlert error={error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)}>
              Keep it
            </Button>
            <Button
              color="red"
              loading={busy}
              onClick={async () => {
                setBusy(true);
                setError(undefined);
                try {
                  await onConfirm();
                  setOpen(false);
                } catch (err) {
                  setError(err);
                } finally {
                  setBusy(false);
                }
              }}
            >
              Delete {what}
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
