/**
 * Per-view editing: the views of the website, the switch between the resource itself ("every
 * view") and one view's overlay, and each overridable field shown as inherited (from the
 * resource or from the view's fallback chain) or overridden here, with "reset to inherited".
 */
import type { ReactNode } from 'react';
import { Badge, Button, Group, Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../../lib/session';
import { rest } from './rest';
import type { ContentKind } from './kinds';
import { useContentDoc, type ContentDoc, type Values, type Version } from './use-content-doc';

export type View = Schemas['View'];

export function useViews(websiteId: string) {
  const api = useApi();
  return useQuery({
    queryKey: ['views', websiteId],
    queryFn: async () =>
      (await data(api.GET('/tenant-api/v1/websites/{website_id}/views', { params: { path: { website_id: websiteId }, query: { page_size: 100 } as never } }))).views,
    staleTime: 60_000,
  });
}

export const viewLabel = (v: View) => `${v.display_name} (${v.locale}${v.is_default ? ', default' : ''})`;

/** Where a view's pages live on the site: `{website_url}/{url_prefix}/`. */
export function siteUrl(websiteUrl: string | undefined, view: View | undefined, path: string): string | undefined {
  if (!websiteUrl) return undefined;
  const prefix = view?.url_prefix ? `${view.url_prefix}/` : '';
  return `${websiteUrl.replace(/\/$/, '')}/${prefix}${path.replace(/^\//, '')}`;
}

export function ViewSwitcher({ views, value, onChange }: { views: View[] | undefined; value: string | undefined; onChange(viewId: string | undefined): void }) {
  const options = [{ value: '', label: 'Every view (the content itself)' }, ...(views ?? []).map((v) => ({ value: v.id, label: `Only ${viewLabel(v)}` }))];
  return (
    <Select
      label="Editing"
      description={value ? 'Changes here apply to this view only; other fields show what it inherits.' : 'Changes apply to every view that does not override them.'}
      data={options}
      value={value ?? ''}
      onChange={(v) => onChange(v || undefined)}
      allowDeselect={false}
      maw={420}
    />
  );
}

/** The overlay of one view, as an editable document, and what the view inherits where it does not override. */
export function useOverlayEditing(opts: { kind: ContentKind; websiteId: string; id: string; view: View | undefined; views: View[]; item: Values | undefined }) {
  const { kind, websiteId, id, view, views, item } = opts;
  const api = useApi();
  const path = { website_id: websiteId, [kind.idParam]: id, view_id: view?.id ?? '' };
  const overlay = useQuery({
    queryKey: [kind.collection, websiteId, id, 'overlay', view?.id],
    enabled: !!view,
    // The page's overlays listed (one per view at most), not the view's read: a view without an
    // overlay yet is the normal case, not a failed (404) request.
    queryFn: async (): Promise<Version> => {
      const list = await rest<{ views?: (Values & { id: string; etag: string })[] }>(api, 'GET', kind.overlays, { path, query: { page_size: 100 } });
      const o = list.views?.find((v) => v.id === view!.id);
      return o ? { etag: o.etag, values: o } : { etag: undefined, values: { overridden: [] } };
    },
  });
  const fallbackId = view?.fallback_view_id;
  const inheritedQuery = useQuery({
    queryKey: [kind.collection, websiteId, id, 'resolve', fallbackId],
    enabled: !!view && !!fallbackId,
    queryFn: () => rest<Values & { field_sources?: Record<string, string> }>(api, 'POST', kind.resolve, { path: { website_id: websiteId, [kind.idParam]: id }, body: { view_id: fallbackId } }),
  });
  const inherited: Values | undefined = fallbackId ? inheritedQuery.data : item;
  const sources = (fallbackId ? inheritedQuery.data?.field_sources : undefined) ?? {};
  const sourceOf = (field: string): string => {
    const source = sources[field];
    const viewId = source?.startsWith('views/') ? source.slice('views/'.length) : undefined;
    const from = viewId ? views.find((v) => v.id === viewId) : undefined;
    return from ? `the ${from.display_name} view` : `the ${kind.noun} itself`;
  };
  const doc = useContentDoc({
    key: `${kind.collection}/${id}@${view?.id ?? ''}`,
    fields: [...kind.overridable, 'overridden'],
    loaded: view ? overlay.data : undefined,
    write: async (changes, etag, all) => {
      const overridden = (all.overridden as string[] | undefined) ?? [];
      const body: Values = { overridden };
      for (const f of kind.overridable) if (f in changes && overridden.includes(f)) body[f] = changes[f];
      // A field overridden but never written yet needs its value (every listed field must have one).
      for (const f of overridden) if (!(f in body) && (all[f] === undefined || all[f] === null)) body[f] = inherited?.[f] ?? '';
      const saved = await rest<Values & { etag: string }>(api, 'PATCH', kind.overlay, { path, query: { allow_missing: true }, body, ifMatch: etag });
      return { etag: saved.etag, values: saved };
    },
  });
  return { doc, inherited, sourceOf, loading: overlay.isLoading || (!!fallbackId && inheritedQuery.isLoading), error: overlay.error ?? inheritedQuery.error };
}

/** One overridable field in a view: its status, and the control showing the view's value. */
export function OverridableField({
  field,
  label,
  doc,
  inherited,
  sourceOf,
  readOnly,
  children,
}: {
  field: string;
  label: string;
  doc: ContentDoc;
  inherited: Values | undefined;
  sourceOf(field: string): string;
  readOnly?: boolean;
  children(value: unknown, onChange: (value: unknown) => void): ReactNode;
}) {
  const overridden = ((doc.values.overridden as string[] | undefined) ?? []).includes(field);
  const value = overridden ? doc.values[field] : inherited?.[field];
  const onChange = (v: unknown) => {
    const list = (doc.values.overridden as string[] | undefined) ?? [];
    doc.setMany({ [field]: v, overridden: list.includes(field) ? list : [...list, field] });
  };
  return (
    <Stack gap={4} data-field={field}>
      <Group gap="xs">
        {overridden ? (
          <Badge color="violet" variant="filled" size="sm">
            {label}: overridden in this view
          </Badge>
        ) : (
          <Badge color="gray" variant="outline" size="sm" styles={{ label: { color: 'var(--mantine-color-gray-9)' } }}>
            {label}: inherited from {sourceOf(field)}
          </Badge>
        )}
        {overridden && !readOnly && (
          <Button
            size="compact-xs"
            variant="subtle"
            onClick={() => doc.set('overridden', ((doc.values.overridden as string[]) ?? []).filter((f) => f !== field))}
            aria-label={`Reset to inherited: ${label}`}
          >
            Reset to inherited
          </Button>
        )}
      </Group>
      {children(value, onChange)}
      {!overridden && !readOnly && <Text size="xs">Typing here overrides it in this view.</Text>}
    </Stack>
  );
}
