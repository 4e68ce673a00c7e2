/** The Create and Edit screens, and a custom method's screen (its request form, or a confirmation). */
import { useState } from 'react';
import { Alert, Code, Skeleton, Stack, Text, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { notifications } from '@mantine/notifications';
import { usePageTitle } from '../lib/layout/title';
import { mapError } from '../lib/openapi-model/errors.js';
import type { OperationLike } from '../lib/openapi-model/operations.js';
import type { ResourceModel, Verb } from '../lib/openapi-model/types.js';
import { queryKeys } from './call';
import { useResource } from './DetailScreen';
import { OperationProgress } from './OperationProgress';
import { screenPath } from './placement';
import { ResourceForm } from './ResourceForm';
import { ScreenLink, useGoToScreen } from './ScreenLink';
import type { GenericContext } from './context';

interface Props {
  resource: ResourceModel;
  params: Record<string, string>;
  itemId?: string;
  context: GenericContext;
}

export function CreateScreen({ resource, params, context }: Props) {
  const queryClient = useQueryClient();
  const go = useGoToScreen();
  usePageTitle(`New ${resource.singular.toLowerCase()}`);
  const listPath = screenPath(resource, params);
  return (
    <Stack gap="md" maw={760}>
      <ScreenLink ctx={context.ctx} splat={listPath}>
        ← {resource.title}
      </ScreenLink>
      <Title order={1}>New {resource.singular.toLowerCase()}</Title>
      <ResourceForm
        resource={resource}
        mode="create"
        endpoint={resource.create!}
        params={{ ...context.ids, ...params }}
        submitLabel="Create"
        onCancel={() => void go(context.ctx, listPath)}
        onDone={(created) => {
          void queryClient.invalidateQueries({ queryKey: queryKeys.resource(resource.key) });
          const id = (created as Record<string, unknown> | undefined)?.id;
          notifications.show({ message: `${resource.singular} created.`, closeButtonProps: { 'aria-label': 'Dismiss' } });
          void go(context.ctx, typeof id === 'string' && resource.get ? screenPath(resource, params, { itemId: id }) : listPath);
        }}
      />
    </Stack>
  );
}

export function EditScreen({ resource, params, itemId, context }: Props) {
  const queryClient = useQueryClient();
  const go = useGoToScreen();
  const { data: item, error } = useResource(resource, params);
  usePageTitle(`Edit ${resource.singular.toLowerCase()}`);
  const detailPath = screenPath(resource, params, { itemId });
  return (
    <Stack gap="md" maw={760}>
      <ScreenLink ctx={context.ctx} splat={detailPath}>
        ← {resource.singular}
      </ScreenLink>
      <Title order={1}>Edit {resource.singular.toLowerCase()}</Title>
      {error && (
        <Alert color="red" role="alert">
          {mapError(error).summary}
        </Alert>
      )}
      {!item && !error && <Skeleton height={240} />}
      {item && (
        <ResourceForm
          resource={resource}
          mode="update"
          endpoint={resource.update!}
          params={{ ...context.ids, ...params }}
          original={item}
          submitLabel="Save"
          onCancel={() => void go(context.ctx, detailPath)}
          onDone={(updated) => {
            queryClient.setQueryData(queryKeys.item(resource.key, params), updated);
            void queryClient.invalidateQueries({ queryKey: queryKeys.resource(resource.key) });
            notifications.show({ message: 'Saved.', closeButtonProps: { 'aria-label': 'Dismiss' } });
            void go(context.ctx, detailPath);
          }}
        />
      )}
    </Stack>
  );
}

export function VerbScreen({ resource, params, itemId, context, verb }: Props & { verb: Verb }) {
  const queryClient = useQueryClient();
  const onItem = verb.on === 'resource';
  // A method guarded by If-Match needs the resource's etag: read it first.
  const needsResource = onItem && verb.endpoint.ifMatch && !!resource.get;
  const { data: item } = useResource(resource, params, needsResource);
  const [result, setResult] = useState<unknown>();
  const backPath = screenPath(resource, params, onItem && itemId !== undefined ? { itemId } : {});
  usePageTitle(`${verb.label} · ${resource.singular}`);
  return (
    <Stack gap="md" maw={760}>
      <ScreenLink ctx={context.ctx} splat={backPath}>
        ← {onItem ? resource.singular : resource.title}
      </ScreenLink>
      <Title order={1}>
        {verb.label} {onItem ? resource.singular.toLowerCase() : resource.title.toLowerCase()}
      </Title>
      {verb.endpoint.description && (
        <Text size="sm">
          {verb.endpoint.description.split('\n\n')[0]}
        </Text>
      )}
      {needsResource && !item ? (
        <Skeleton height={80} />
      ) : (
        <ResourceForm
          key={String(item?.etag ?? '')}
          resource={resource}
          mode="verb"
          endpoint={verb.endpoint}
          params={{ ...context.ids, ...params }}
          {...(item && { original: item })}
          submitLabel={verb.label}
          onDone={(answer) => {
            void queryClient.invalidateQueries({ queryKey: queryKeys.resource(resource.key) });
            setResult(answer ?? {});
          }}
        />
      )}
      {result !== undefined && <VerbResultView verb={verb} result={result} resource={resource} params={params} itemId={itemId} context={context} />}
    </Stack>
  );
}

function VerbResultView({ verb, result, resource, params, itemId, context }: Props & { verb: Verb; result: unknown }) {
  if (verb.result === 'operation') {
    return (
      <section aria-label="Progress">
        <OperationProgress operation={result as OperationLike} />
      </section>
    );
  }
  if (verb.result === 'resource') {
    return (
      <Alert color="green" role="status">
        Done.{' '}
        {resource.get && (
          <ScreenLink ctx={context.ctx} splat={screenPath(resource, params, itemId !== undefined ? { itemId } : {})}>
            See the {resource.singular.toLowerCase()}
          </ScreenLink>
        )}
      </Alert>
    );
  }
  return (
    <Stack gap="xs" role="status">
      <Text fw={600}>Done.</Text>
      {verb.result === 'other' && (
        <Code block style={{ whiteSpace: 'pre-wrap', maxHeight: 480, overflow: 'auto' }}>
          {JSON.stringify(result, null, 2)}
        </Code>
      )}
    </Stack>
  );
}
