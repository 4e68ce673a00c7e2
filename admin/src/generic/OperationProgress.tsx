/**
 * Long work in progress: polls the Operation (`websites/{w}/operations/{o}`) until done, shows its
 * step (announced politely to screen readers) and offers `:cancel` while it runs.
 */
import { Alert, Button, Group, Progress, Stack, Text } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { useApi } from '../lib/session';
import { mapError } from '../lib/openapi-model/errors.js';
import { operationParams, operationProgress, pollDelayMs, type OperationLike } from '../lib/openapi-model/operations.js';
import { apiModel } from './api-model';
import { call } from './call';

export function OperationProgress({ operation, onDone }: { operation: OperationLike; onDone?: (op: OperationLike) => void }) {
  const api = useApi();
  const model = apiModel();
  const get = model.endpoints.get('GetOperation');
  const cancel = model.endpoints.get('CancelOperation');
  const params = operationParams(operation.name);
  const polls = useRef(0);
  const reported = useRef(false);
  const { data, error } = useQuery({
    queryKey: ['generic', 'operation', operation.name],
    enabled: !!params && !!get && !operation.done,
    initialData: operation,
    queryFn: async () => {
      polls.current += 1;
      return call<OperationLike>(api, get!, { params: params! });
    },
    refetchInterval: (q) => (q.state.data?.done ? false : pollDelayMs(polls.current)),
  });
  const cancelMutation = useMutation({ mutationFn: () => call<OperationLike>(api, cancel!, { params: params! }) });
  const op = data ?? operation;
  const progress = operationProgress(op);
  if (op.done && !reported.current) {
    reported.current = true;
    queueMicrotask(() => onDone?.(op));
  }
  return (
    <Stack gap="xs">
      <Text role="status" aria-live="polite">
        {progress.label}
      </Text>
      <Progress
        value={progress.percent ?? 100}
        animated={!progress.done}
        striped={progress.percent === undefined && !progress.done}
        color={progress.failed ? 'red' : undefined}
        aria-label={progress.label}
      />
      {!progress.done && cancel && params && !op.metadata?.cancel_requested && (
        <Group>
          <Button variant="default" size="xs" onClick={() => cancelMutation.mutate()} loading={cancelMutation.isPending}>
            Cancel
          </Button>
        </Group>
      )}
      {error && <Alert color="red">{mapError(error).summary}</Alert>}
      {cancelMutation.error && <Alert color="red">{mapError(cancelMutation.error).summary}</Alert>}
    </Stack>
  );
}
