/** Delete with a confirmation dialog, guarded by the etag (`If-Match`); `force` offered where the API has it. */
import { useState } from 'react';
import { Alert, Button, Checkbox, Group, Modal, Stack, Text } from '@mantine/core';
import { useApi } from '../lib/session';
import { mapError, type MappedError } from '../lib/openapi-model/errors.js';
import { listColumns } from '../lib/openapi-model/list.js';
import type { ResourceModel } from '../lib/openapi-model/types.js';
import { call } from './call';

export function DeleteButton({ resource, params, item, onDeleted }: { resource: ResourceModel; params: Record<string, string>; item: Record<string, unknown>; onDeleted: () => void }) {
  const api = useApi();
  const [open, setOpen] = useState(false);
  const [force, setForce] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<MappedError | undefined>();
  const endpoint = resource.delete!;
  const takesForce = endpoint.query.includes('force');
  const nameField = listColumns(resource, 1)[0];
  const what = String((nameField && item[nameField]) ?? item.id ?? resource.singular);
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await call(api, endpoint, { params, ifMatch: item.etag as string | undefined, ...(force && { query: { force: true } }) });
      setOpen(false);
      onDeleted();
    } catch (err) {
      setError(mapError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <Button color="red" variant="light" onClick={() => setOpen(true)}>
        Delete
      </Button>
      <Modal
        opened={open}
        onClose={() => setOpen(false)}
        title={`Delete ${resource.singular.toLowerCase()}?`}
        closeButtonProps={{ 'aria-label': 'Close' }}
        // No fade: the dialog is readable (and checkable) the moment it opens.
        transitionProps={{ duration: 0 }}
      >
        <Stack>
          <Text>
            “{what}” will be deleted. This cannot be undone.
          </Text>
          {takesForce && <Checkbox label="Also delete what it contains" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} />}
          {error && (
            <Alert color="red" role="alert">
              {error.summary}
            </Alert>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setOpen(false)} disabled={busy}>
              Keep it
            </Button>
            <Button color="red" onClick={() => void confirm()} loading={busy}>
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </>
  );
}
