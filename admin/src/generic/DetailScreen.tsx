/**
 * One resource: its fields (references as links), Edit, Delete, its custom methods and the
 * collections nested under it. A singleton is shown the same way, with its form in place of Edit.
 */
import { Alert, Badge, Code, Group, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useApi } from '../lib/session';
import { usePageTitle } from '../lib/layout/title';
import { mapError } from '../lib/openapi-model/errors.js';
import { humanize } from '../lib/openapi-model/schema.js';
import { listColumns } from '../lib/openapi-model/list.js';
import { AI_RUN_FINAL_STATES } from '../lib/openapi-model/operations.js';
import type { ResourceModel } from '../lib/openapi-model/types.js';
import { apiModel } from './api-model';
import { call, queryKeys } from './call';
import { DeleteButton } from './DeleteButton';
import { displayValue, isBlock } from './format';
import { placement, screenPath } from './placement';
import { ResourceForm } from './ResourceForm';
import { ScreenLink, useGoToScreen } from './ScreenLink';
import type { GenericContext } from './context';

/** Reads one resource (an item of a collection, or a singleton), polling while an AI run works. */
export function useResource(resource: ResourceModel, params: Record<string, string>, enabled = true) {
  const api = useApi();
  return useQuery({
    queryKey: queryKeys.item(resource.key, params),
    enabled: enabled && !!resource.get,
    queryFn: () => call<Record<string, unknown>>(api, resource.get!, { params }),
    refetchInterval: (q) => {
      const state = q.state.data?.state;
      return resource.id === 'ai_executions' && typeof state === 'string' && !AI_RUN_FINAL_STATES.has(state) ? 2000 : false;
    },
  });
}

export function DetailScreen({ resource, params, itemId, context }: { resource: ResourceModel; params: Record<string, string>; itemId?: string; context: GenericContext }) {
  const { data: item, error, isPending } = useResource(resource, params);
  const queryClient = useQueryClient();
  const go = useGoToScreen();
  const nameField = listColumns(resource, 1)[0];
  const name = item && nameField && item[nameField] ? String(item[nameField]) : (itemId ?? resource.title);
  usePageTitle(resource.kind === 'singleton' ? resource.title : `${name} · ${resource.title}`);
  const parentListPath = resource.kind === 'collection' ? screenPath(resource, params) : undefined;
  const isSingleton = resource.kind === 'singleton';
  const canEdit = !!resource.update && context.allowed(resource.update);
  const verbs = resource.verbs.filter((v) => v.on === 'resource' && context.allowed(v.endpoint));

  if (error) {
    return (
      <Alert color="red" role="alert" title={`Could not open this ${resource.singular.toLowerCase()}`}>
        {mapError(error).summary}
      </Alert>
    );
  }
  return (
    <Stack gap="md">
      {parentListPath && (
        <ScreenLink ctx={context.ctx} splat={parentListPath}>
          ← {resource.title}
        </ScreenLink>
      )}
      <Group justify="space-between" align="flex-start">
        <div>
          <Text size="sm">
            {resource.singular}
          </Text>
          <Title order={1}>{isSingleton ? resource.title : name}</Title>
          {typeof item?.state === 'string' && <Badge mt={4}>{humanize(item.state)}</Badge>}
        </div>
        <Group>
          {!isSingleton && canEdit && (
            <ScreenLink ctx={context.ctx} splat={screenPath(resource, params, { itemId, action: 'edit' })}>
              Edit
            </ScreenLink>
          )}
          {verbs.map((v) => (
            <ScreenLink key={v.name} ctx={context.ctx} splat={screenPath(resource, params, { ...(itemId !== undefined && { itemId }), action: v.name })}>
              {v.label}
            </ScreenLink>
          ))}
          {!isSingleton && item && resource.delete && context.allowed(resource.delete) && (
            <DeleteButton
              resource={resource}
              params={params}
              item={item}
              onDeleted={() => {
                void queryClient.invalidateQueries({ queryKey: queryKeys.resource(resource.key) });
                void go(context.ctx, parentListPath!);
              }}
            />
          )}
        </Group>
      </Group>
      {isPending && <Skeleton height={160} />}
      {item && isSingleton && canEdit && resource.update?.requestSchema ? (
        <ResourceForm
          key={String(item.etag ?? '')}
          resource={resource}
          mode="update"
          endpoint={resource.update}
          params={{ ...context.ids, ...params }}
          original={item}
          submitLabel="Save"
          onDone={(updated) => queryClient.setQueryData(queryKeys.item(resource.key, params), updated)}
        />
      ) : (
        item && <Fields resource={resource} item={item} context={context} params={params} />
      )}
      {item && !isSingleton && <Children resource={resource} params={params} itemId={itemId!} context={context} />}
    </Stack>
  );
}

/** The fields of a resource as a two-column table; references link to what they name. */
function Fields({ resource, item, context, params }: { resource: ResourceModel; item: Record<string, unknown>; context: GenericContext; params: Record<string, string> }) {
  const props = resource.schema.properties ?? {};
  const names = [...Object.keys(props).filter((n) => n in item), ...Object.keys(item).filter((n) => !(n in props))];
  return (
    <Table withTableBorder variant="vertical" aria-label={`${resource.singular} fields`}>
      <Table.Tbody>
        {names.map((n) => (
          <Table.Tr key={n}>
            <Table.Th scope="row" w={220}>
              {humanize(n)}
            </Table.Th>
            <Table.Td>
              <FieldValue resource={resource} name={n} value={item[n]} context={context} params={params} />
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function FieldValue({ resource, name, value, context, params }: { resource: ResourceModel; name: string; value: unknown; context: GenericContext; params: Record<string, string> }) {
  const ref = resource.references[name];
  const target = ref ? apiModel().byKey.get(ref.collection) : undefined;
  if (target && value && target.get) {
    const ids = (Array.isArray(value) ? value : [value]).map(String);
    const where = placement(target);
    // Links only within the same context; a website's link to an account's resource stays text.
    if (where.context === context.ctx.kind) {
      const targetParams = { ...context.ids, ...params };
      try {
        return (
          <Group gap="xs">
            {ids.map((id) => (
              <ScreenLink key={id} ctx={context.ctx} splat={screenPath(target, targetParams, { itemId: id })}>
                {id}
              </ScreenLink>
            ))}
          </Group>
        );
      } catch {
        // A nested target whose parent id is not known here: show the ids.
      }
    }
  }
  if (isBlock(value)) {
    return (
      <Code block style={{ whiteSpace: 'pre-wrap', maxHeight: 320, overflow: 'auto' }}>
        {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
      </Code>
    );
  }
  return <>{displayValue(value, resource.schema.properties?.[name])}</>;
}

/** Collections nested under this resource (a post's revisions and views, a menu's items). */
function Children({ resource, params, itemId, context }: { resource: ResourceModel; params: Record<string, string>; itemId: string; context: GenericContext }) {
  const model = apiModel();
  const children = resource.children.map((k) => model.byKey.get(k)!).filter((c) => c.list && context.allowed(c.list));
  if (children.length === 0) return null;
  const childParams = { ...params, [resource.idParam!]: itemId };
  return (
    <nav aria-label="Nested collections">
      <Group>
        {children.map((c) => (
          <ScreenLink key={c.key} ctx={context.ctx} splat={screenPath(c, childParams)}>
            {c.title}
          </ScreenLink>
        ))}
      </Group>
    </nav>
  );
}
