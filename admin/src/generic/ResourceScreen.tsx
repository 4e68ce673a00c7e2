/**
 * The generated screens' route component (`/w/$websiteId/g/$` and `/a/$accountId/g/$`; also `…/r/$` for collections without a purpose-built screen): reads the
 * path below `r/` into a resource and an action of the model and shows the matching screen.
 */
import { Alert, Text, Title } from '@mantine/core';
import { useParams } from '@tanstack/react-router';
import { usePageTitle } from '../lib/layout/title';
import { apiModel } from './api-model';
import { useGenericContext } from './context';
import { DetailScreen } from './DetailScreen';
import { CreateScreen, EditScreen, VerbScreen } from './FormScreen';
import { ListScreen } from './ListScreen';
import { resolveScreen } from './placement';

export function ResourceScreen() {
  const { _splat } = useParams({ strict: false }) as { _splat?: string };
  const context = useGenericContext();
  const screen = resolveScreen(apiModel(), context.ctx, _splat ?? '');
  if (!screen) return <Unknown />;
  const { resource, itemId, action } = screen;
  const params = { ...context.ids, ...screen.params };
  const props = { resource, params, context, ...(itemId !== undefined && { itemId }) };
  // Remount per resource and item: forms and lists start fresh on navigation.
  const key = `${resource.key}|${itemId ?? ''}|${action ?? ''}`;
  if (action === 'create') return context.allowed(resource.create) ? <CreateScreen key={key} {...props} /> : <NotAllowed />;
  if (action === 'edit') return context.allowed(resource.update) ? <EditScreen key={key} {...props} /> : <NotAllowed />;
  if (action) {
    const verb = resource.verbs.find((v) => v.name === action)!;
    return context.allowed(verb.endpoint) ? <VerbScreen key={key} {...props} verb={verb} /> : <NotAllowed />;
  }
  if (resource.kind === 'collection' && itemId === undefined) return <ListScreen key={key} {...props} />;
  return <DetailScreen key={key} {...props} />;
}

function Unknown() {
  usePageTitle('Not found');
  return (
    <>
      <Title order={1}>Not found</Title>
      <Text mt="md">There is no such screen.</Text>
    </>
  );
}

function NotAllowed() {
  usePageTitle('Not allowed');
  return (
    <Alert color="yellow" role="alert" title="Not allowed">
      Your role does not allow this.
    </Alert>
  );
}
