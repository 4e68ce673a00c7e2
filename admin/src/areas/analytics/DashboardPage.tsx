/**
 * The website's analytics dashboard (`websites/{w}/dashboard`): its widgets on the 12-column grid,
 * each running its `analytics:query` with the page's period and comparison (local dates of the
 * site's time zone); edit mode moves, resizes, adds and removes widgets and saves the layout with
 * `If-Match`, or resets it to the default.
 */
import { useMemo, useState } from 'react';
import { Alert, Button, Card, Group, Loader, Modal, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { ApiError, data, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useRights } from '../../lib/rights';
import { COMPARE_LABELS, PRESET_LABELS, applyRange, rangeQuery, todayIn, validateRangeSearch, widgetKind, type RangeSearch } from './date-range';
import { addWidget, moveWidget, readingOrder, removeWidget, resizeWidget, resolveQuery, type LayoutWidget } from './layout';
import { WidgetView } from './WidgetView';
import './dashboard.css';

type Widget = Schemas['DashboardWidget'];
type WidgetType = Schemas['DashboardWidgetType'];

export const dashboardKey = (websiteId: string) => ['dashboard', websiteId] as const;

function RangeControls({ search, timeZone, error }: { search: RangeSearch; timeZone: string; error?: string }) {
  const navigate = useNavigate();
  const set = (patch: Partial<RangeSearch>) => void navigate({ to: '.', search: ((prev: Record<string, unknown>) => ({ ...prev, ...patch })) as never, replace: true });
  const range = search.range ?? '30d';
  const today = todayIn(timeZone);
  return (
    <Group align="flex-end" gap="sm" wrap="wrap">
      <Select
        label="Period"
        data={Object.entries(PRESET_LABELS).map(([value, label]) => ({ value, label }))}
        value={range}
        allowDeselect={false}
        onChange={(v) => v && set({ range: v as RangeSearch['range'] })}
        w={180}
      />
      {range === 'custom' && (
        <>
          <TextInput type="date" label="From" max={today} value={search.from ?? ''} onChange={(e) => set({ from: e.currentTarget.value || undefined })} error={error ? true : undefined} w={170} />
          <TextInput type="date" label="To" max={today} value={search.to ?? ''} onChange={(e) => set({ to: e.currentTarget.value || undefined })} w={170} />
        </>
      )}
      <Select
        label="Compare with"
        data={Object.entries(COMPARE_LABELS).map(([value, label]) => ({ value, label }))}
        value={search.compare ?? 'previous_period'}
        allowDeselect={false}
        onChange={(v) => v && set({ compare: v as RangeSearch['compare'] })}
        w={210}
      />
      <Text size="sm" pb={8}>
        Dates in the site’s time zone, {timeZone}.
      </Text>
      {error && (
        <Text size="sm" c="red.9" role="alert" w="100%">
          {error} Showing the last 30 days.
        </Text>
      )}
    </Group>
  );
}

function EditTools({ widget, type, onChange, widgets, name }: { widget: Widget; type?: WidgetType; widgets: Widget[]; onChange: (w: Widget[]) => void; name: string }) {
  const bounds = type?.min_size && type.max_size ? { min: type.min_size, max: type.max_size } : undefined;
  const id = widget.id!;
  // Visible words are part of each button's name (the name adds which widget), as WCAG 2.5.3 asks.
  const tools: Array<[string, string, () => Widget[]]> = [
    ['←', `Move ${name} earlier`, () => moveWidget(widgets, id, -1)],
    ['→', `Move ${name} later`, () => moveWidget(widgets, id, 1)],
    ['Narrower', `Make ${name} narrower`, () => resizeWidget(widgets, id, -1, 0, bounds)],
    ['Wider', `Make ${name} wider`, () => resizeWidget(widgets, id, 1, 0, bounds)],
    ['Shorter', `Make ${name} shorter`, () => resizeWidget(widgets, id, 0, -1, bounds)],
    ['Taller', `Make ${name} taller`, () => resizeWidget(widgets, id, 0, 1, bounds)],
  ];
  return (
    <Group gap={4} wrap="wrap">
      {tools.map(([text, label, run]) => (
        <Button key={label} variant="default" size="compact-xs" aria-label={label} title={label} onClick={() => onChange(run())}>
          {text}
        </Button>
      ))}
      <Button size="compact-xs" color="red" variant="light" onClick={() => onChange(removeWidget(widgets, id))} aria-label={`Remove ${name}`}>
        Remove
      </Button>
      <Text size="xs">
        {widget.size.width}×{widget.size.height}
      </Text>
    </Group>
  );
}

export function DashboardPage() {
  usePageTitle('Dashboard');
  const api = useApi();
  const queryClient = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canEdit = rights?.canWrite('website.analytics') ?? false;
  const search = validateRangeSearch(useSearch({ strict: false }) as Record<string, unknown>);
  const path = { params: { path: { website_id: websiteId } } };

  const analytics = useQuery({ queryKey: ['analytics', websiteId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/analytics', path)) });
  const dashboard = useQuery({ queryKey: dashboardKey(websiteId), queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/dashboard', path)) });
  const types = useQuery({
    queryKey: ['dashboard_widget_types'],
    queryFn: () => data(api.GET('/tenant-api/v1/dashboard_widget_types', { params: { query: { page_size: 100 } } })),
    staleTime: 3600_000,
  });
  const typeById = useMemo(() => new Map((types.data?.dashboard_widget_types ?? []).map((t) => [t.id, t])), [types.data]);

  const [draft, setDraft] = useState<Widget[] | null>(null);
  const [addType, setAddType] = useState<string | null>(null);
  const [confirmReset, setConfirmReset] = useState(false);
  const editing = draft !== null;

  const save = useMutation({
    mutationFn: (widgets: Widget[]) =>
      data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/dashboard', {
          params: { path: { website_id: websiteId }, header: { 'If-Match': dashboard.data!.etag } },
          // The server fills in `query`; ids and settings travel as they are.
          body: { widgets: widgets.map(({ query: _q, ...w }) => w) },
        }),
      ),
    onSuccess: (saved) => {
      queryClient.setQueryData(dashboardKey(websiteId), saved);
      setDraft(null);
    },
  });
  const reset = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/dashboard:reset', { params: { path: { website_id: websiteId }, header: { 'If-Match': dashboard.data!.etag } } })),
    onSuccess: (saved) => {
      queryClient.setQueryData(dashboardKey(websiteId), saved);
      setDraft(null);
      setConfirmReset(false);
    },
  });

  const timeZone = analytics.data?.time_zone ?? 'UTC';
  const { query: range, error: rangeError } = rangeQuery(search, timeZone);
  const widgets = readingOrder(draft ?? dashboard.data?.widgets ?? []);
  const conflict = [save.error, reset.error].some((e) => ApiError.is(e, 'ABORTED'));

  const add = () => {
    const type = addType ? typeById.get(addType) : undefined;
    if (!type || !draft) return;
    const settings = (type.default_settings ?? {}) as Record<string, unknown>;
    setDraft(addWidget<LayoutWidget & Widget>(draft as (LayoutWidget & Widget)[], { type: type.id, size: type.default_size ?? { width: 6, height: 6 }, settings, query: resolveQuery((type.query ?? {}) as Record<string, unknown>, settings) }));
    setAddType(null);
  };

  return (
    <Stack>
      <Group justify="space-between" align="flex-start">
        <div>
          <Title order={1}>Dashboard</Title>
          {dashboard.data && !editing && <Text size="sm">{dashboard.data.is_default ? 'The default layout.' : 'A layout of your own.'}</Text>}
        </div>
        {canEdit && dashboard.data && (
          <Group gap="xs">
            {editing ? (
              <>
                <Button onClick={() => save.mutate(draft!)} loading={save.isPending}>
                  Save layout
                </Button>
                <Button variant="default" onClick={() => setDraft(null)}>
                  Cancel
                </Button>
              </>
            ) : (
              <>
                <Button variant="default" onClick={() => setDraft(dashboard.data!.widgets)}>
                  Edit dashboard
                </Button>
                <Button variant="subtle" color="red" onClick={() => setConfirmReset(true)} disabled={dashboard.data.is_default}>
                  Reset to default
                </Button>
              </>
            )}
          </Group>
        )}
      </Group>
      <ApiErrorAlert error={dashboard.error ?? analytics.error} title="The dashboard could not be loaded" />
      {conflict ? (
        <Alert color="yellow" title="The dashboard changed meanwhile" role="alert">
          Someone else saved it after you opened it. Reload to see their layout, then make your change again.
          <Group mt="xs">
            <Button
              size="xs"
              variant="default"
              onClick={() => {
                save.reset();
                reset.reset();
                setDraft(null);
                void dashboard.refetch();
              }}
            >
              Reload the dashboard
            </Button>
          </Group>
        </Alert>
      ) : (
        <ApiErrorAlert error={save.error ?? reset.error} title="The layout was not saved" />
      )}
      {analytics.data && <RangeControls search={search} timeZone={timeZone} error={rangeError} />}
      {editing && (
        <Card withBorder>
          <Group align="flex-end">
            <Select
              label="Add a widget"
              placeholder="Choose a widget"
              data={(types.data?.dashboard_widget_types ?? []).map((t) => ({ value: t.id, label: `${t.display_name} (${(t.category ?? '').toLowerCase()})` }))}
              value={addType}
              onChange={setAddType}
              w={300}
            />
            <Button onClick={add} disabled={!addType || widgets.length >= 50}>
              Add
            </Button>
          </Group>
          <Text size="sm" mt="xs">
            Use the arrows on each widget to move it earlier or later, and the size buttons to change its width and height on the 12-column grid. Save to keep the layout.
          </Text>
        </Card>
      )}
      {(dashboard.isPending || analytics.isPending) && <Loader role="status" aria-label="Loading the dashboard" />}
      {dashboard.data && analytics.data && widgets.length === 0 && (
        <Alert color="gray" title="No widgets">
          {canEdit ? 'Edit the dashboard to add widgets, or reset it to the default layout.' : 'This dashboard has no widgets.'}
        </Alert>
      )}
      {analytics.data && (
        <div className="dashboard-grid">
          {widgets.map((w) => {
            const type = typeById.get(w.type);
            const name = type?.display_name ?? w.type;
            const headingId = `widget-${w.id}`;
            const query = (w.query ?? (type?.query ? resolveQuery(type.query as Record<string, unknown>, (w.settings ?? {}) as Record<string, unknown>) : undefined)) as Record<string, unknown> | undefined;
            const kind = widgetKind(query);
            return (
              <Card
                key={w.id}
                withBorder
                component="section"
                aria-labelledby={headingId}
                className="dashboard-cell"
                style={{ gridColumn: `${w.position.x + 1} / span ${w.size.width}`, gridRow: `${w.position.y + 1} / span ${w.size.height}` }}
                padding="sm"
              >
                <Group justify="space-between" mb={4} wrap="wrap" gap={4}>
                  <Title order={2} size="h5" id={headingId}>
                    {name}
                  </Title>
                  {editing && <EditTools widget={w} type={type} widgets={draft!} onChange={setDraft} name={name} />}
                </Group>
                {query ? <WidgetView websiteId={websiteId} query={applyRange(query, range, kind)} kind={kind} title={name} /> : <Text size="sm">Unknown widget type.</Text>}
              </Card>
            );
          })}
        </div>
      )}
      <Modal opened={confirmReset} onClose={() => setConfirmReset(false)} title="Reset the dashboard?" closeButtonProps={{ "aria-label": "Close" }}>
        <Stack>
          <Text>The dashboard goes back to the default widgets and layout. Your own layout is not kept.</Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmReset(false)}>
              Keep my layout
            </Button>
            <Button color="red" onClick={() => reset.mutate()} loading={reset.isPending}>
              Reset to default
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
