/**
 * The List of a collection: columns chosen from the schema, the declared filters and orders as
 * controls, `page_token` paging with `total_size`. Everything that selects what is shown (filters,
 * order, page, page size) lives in the URL, so the view is a shareable link.
 */
import { useState, type FormEvent } from 'react';
import { Alert, Button, Group, NumberInput, Select, SimpleGrid, Skeleton, Stack, Table, Text, TextInput, Title, UnstyledButton, VisuallyHidden } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearch } from '@tanstack/react-router';
import { useApi } from '../lib/session';
import { usePageTitle } from '../lib/layout/title';
import { filterControls, listColumns, listQuery, PAGE_SIZES, toggleOrder, validateListSearch, type FilterControl, type FilterState, type ListSearch } from '../lib/openapi-model/list.js';
import { parseOrderBy } from '../lib/openapi-model/declarations.js';
import { mapError } from '../lib/openapi-model/errors.js';
import { humanize } from '../lib/openapi-model/schema.js';
import type { ResourceModel } from '../lib/openapi-model/types.js';
import { call, queryKeys } from './call';
import { displayValue, fromLocalInput, toLocalInput } from './format';
import { screenPath } from './placement';
import { useReferenceOptions } from './ReferenceSelect';
import { ScreenLink, useGoToScreen } from './ScreenLink';
import type { GenericContext } from './context';

export function ListScreen({ resource, params, context }: { resource: ResourceModel; params: Record<string, string>; context: GenericContext }) {
  const api = useApi();
  const raw = useSearch({ strict: false }) as Record<string, unknown>;
  const search = validateListSearch(raw);
  const go = useGoToScreen();
  const here = screenPath(resource, params);
  const setSearch = (next: ListSearch) => void go(context.ctx, here, next as Record<string, unknown>);
  usePageTitle(resource.title);

  const query = listQuery(resource, search);
  const listParams = Object.fromEntries(resource.parentParams.map((p) => [p, params[p]!]));
  const { data, error, isPending, isFetching } = useQuery({
    queryKey: queryKeys.list(resource.key, listParams, query),
    queryFn: () => call<Record<string, unknown>>(api, resource.list!, { params: listParams, query }),
    placeholderData: keepPreviousData,
  });
  const rows = ((data?.[resource.listProperty!] as Record<string, unknown>[]) ?? []).filter(Boolean);
  const total = typeof data?.total_size === 'number' ? data.total_size : undefined;
  const next = typeof data?.next_page_token === 'string' && data.next_page_token ? data.next_page_token : undefined;
  const columns = listColumns(resource);
  const sortable = new Set(resource.declaration?.sortable ?? []);
  const [order] = parseOrderBy(search.order_by ?? resource.declaration?.defaultOrder);
  const pageSize = search.page_size ?? 25;
  const firstRow = (search.back?.length ?? 0) * pageSize + 1;

  const canCreate = !!resource.create && context.allowed(resource.create);
  const collectionVerbs = resource.verbs.filter((v) => v.on === 'collection' && context.allowed(v.endpoint));

  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-end">
        <div>
          <Title order={1}>{resource.title}</Title>
          {resource.description && (
            <Text size="sm" maw={720}>
              {resource.description}
            </Text>
          )}
        </div>
        <Group>
          {collectionVerbs.map((v) => (
            <ScreenLink key={v.name} ctx={context.ctx} splat={screenPath(resource, params, { action: v.name })}>
              {v.label}
            </ScreenLink>
          ))}
          {canCreate && (
            <ScreenLink ctx={context.ctx} splat={screenPath(resource, params, { action: 'create' })}>
              New {resource.singular.toLowerCase()}
            </ScreenLink>
          )}
        </Group>
      </Group>

      <Filters key={JSON.stringify([search.filter, search.order_by])} resource={resource} params={params} search={search} onChange={setSearch} />

      {error && (
        <Alert color="red" role="alert">
          {mapError(error).summary}
        </Alert>
      )}

      <Table.ScrollContainer minWidth={600}>
        <Table striped highlightOnHover aria-busy={isFetching} aria-describedby="list-count">
          <caption>
            <VisuallyHidden>{resource.title}</VisuallyHidden>
          </caption>
          <Table.Thead>
            <Table.Tr>
              {columns.map((c) => {
                const sorted = order?.field === c ? (order.desc ? 'descending' : 'ascending') : undefined;
                return (
                  <Table.Th key={c} scope="col" aria-sort={sorted ?? (sortable.has(c) ? 'none' : undefined)}>
                    {sortable.has(c) ? (
                      <UnstyledButton
                        onClick={() => setSearch({ ...search, order_by: toggleOrder(search.order_by, c), page_token: undefined, back: undefined })}
                        fw={600}
                        aria-label={`Sort by ${humanize(c)}`}
                      >
                        {humanize(c)} {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''}
                      </UnstyledButton>
                    ) : (
                      humanize(c)
                    )}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {isPending &&
              [0, 1, 2].map((i) => (
                <Table.Tr key={i}>
                  {columns.map((c) => (
                    <Table.Td key={c}>
                      <Skeleton height={12} />
                    </Table.Td>
                  ))}
                </Table.Tr>
              ))}
            {rows.map((row) => {
              const id = String(row.id ?? row[resource.idParam ?? ''] ?? '');
              return (
                <Table.Tr key={id || JSON.stringify(row)}>
                  {columns.map((c, i) => (
                    <Table.Td key={c}>
                      {i === 0 && resource.get && id ? (
                        <ScreenLink ctx={context.ctx} splat={screenPath(resource, params, { itemId: id })}>
                          {displayValue(row[c], resource.schema.properties?.[c])}
                        </ScreenLink>
                      ) : (
                        displayValue(row[c], resource.schema.properties?.[c])
                      )}
                    </Table.Td>
                  ))}
                </Table.Tr>
              );
            })}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
      {!isPending && rows.length === 0 && <Text>Nothing here{search.filter ? ' matches these filters' : ' yet'}.</Text>}

      <Group justify="space-between">
        <Text id="list-count" size="sm" aria-live="polite">
          {rows.length > 0 ? `${firstRow}–${firstRow + rows.length - 1}` : '0'}
          {total !== undefined ? ` of ${total}` : ''}
        </Text>
        <Group>
          <Select
            label="Per page"
            data={PAGE_SIZES.map(String)}
            value={String(pageSize)}
            onChange={(v) => setSearch({ ...search, page_size: Number(v), page_token: undefined, back: undefined })}
            allowDeselect={false}
            w={100}
          />
          <Button
            variant="default"
            disabled={!search.back?.length}
            onClick={() => {
              const back = [...(search.back ?? [])];
              const previous = back.pop();
              setSearch({ ...search, page_token: previous || undefined, back: back.length ? back : undefined });
            }}
          >
            Previous
          </Button>
          <Button variant="default" disabled={!next} onClick={() => setSearch({ ...search, page_token: next, back: [...(search.back ?? []), search.page_token ?? ''] })}>
            Next
          </Button>
        </Group>
      </Group>
    </Stack>
  );
}

/** The declared filters and orders as controls; applied on submit so typing does not refetch per key. */
function Filters({ resource, params, search, onChange }: { resource: ResourceModel; params: Record<string, string>; search: ListSearch; onChange: (s: ListSearch) => void }) {
  const controls = filterControls(resource);
  const sortable = resource.declaration?.sortable ?? [];
  const [draft, setDraft] = useState<FilterState>(search.filter ?? {});
  const [orderField, setOrderField] = useState<string | null>(parseOrderBy(search.order_by)[0]?.field ?? null);
  const [orderDir, setOrderDir] = useState<string>(parseOrderBy(search.order_by)[0]?.desc ? 'desc' : 'asc');
  if (controls.length === 0 && sortable.length === 0) return null;
  const apply = (event: FormEvent) => {
    event.preventDefault();
    const filter = Object.fromEntries(Object.entries(draft).filter(([, v]) => v !== ''));
    onChange({
      ...search,
      filter: Object.keys(filter).length ? filter : undefined,
      order_by: orderField ? (orderDir === 'desc' ? `${orderField} desc` : orderField) : undefined,
      page_token: undefined,
      back: undefined,
    });
  };
  const set = (key: string, value: string) => setDraft((d) => ({ ...d, [key]: value }));
  return (
    <form onSubmit={apply} aria-label={`Filter ${resource.title.toLowerCase()}`}>
      <SimpleGrid cols={{ base: 1, sm: 2, md: 4 }} spacing="sm">
        {controls.map((c) => (
          <FilterInput key={c.field} control={c} state={draft} set={set} params={params} />
        ))}
        {sortable.length > 0 && (
          <>
            <Select label="Order by" data={sortable.map((s) => ({ value: s, label: humanize(s) }))} value={orderField} onChange={setOrderField} clearable placeholder={`Default (${resource.declaration?.defaultOrder})`} />
            <Select label="Direction" data={[{ value: 'asc', label: 'Ascending' }, { value: 'desc', label: 'Descending' }]} value={orderDir} onChange={(v) => setOrderDir(v ?? 'asc')} allowDeselect={false} />
          </>
        )}
      </SimpleGrid>
      <Group mt="sm">
        <Button type="submit" variant="light">
          Apply
        </Button>
        <Button
          variant="subtle"
          onClick={() => {
            setDraft({});
            setOrderField(null);
            onChange({ ...search, filter: undefined, order_by: undefined, page_token: undefined, back: undefined });
          }}
        >
          Clear
        </Button>
      </Group>
    </form>
  );
}

function FilterInput({ control: c, state, set, params }: { control: FilterControl; state: FilterState; set: (k: string, v: string) => void; params: Record<string, string> }) {
  switch (c.kind) {
    case 'select':
      return <Select label={c.label} data={c.options ?? []} value={state[c.field] || null} onChange={(v) => set(c.field, v ?? '')} clearable searchable={(c.options?.length ?? 0) > 8} />;
    case 'boolean':
      return (
        <Select
          label={c.label}
          data={[
            { value: 'true', label: 'Yes' },
            { value: 'false', label: 'No' },
          ]}
          value={state[c.field] || null}
          onChange={(v) => set(c.field, v ?? '')}
          clearable
          placeholder="Any"
        />
      );
    case 'range':
      return (
        <>
          <TextInput label={`${c.label} from`} type="datetime-local" value={toLocalInput(state[`${c.field}.from`] ?? '')} onChange={(e) => set(`${c.field}.from`, fromLocalInput(e.currentTarget.value))} />
          <TextInput label={`${c.label} to`} type="datetime-local" value={toLocalInput(state[`${c.field}.to`] ?? '')} onChange={(e) => set(`${c.field}.to`, fromLocalInput(e.currentTarget.value))} />
        </>
      );
    case 'number':
      return <NumberInput label={c.label} value={state[c.field] ?? ''} onChange={(v) => set(c.field, v === '' ? '' : String(v))} />;
    default:
      if (c.reference) return <ReferenceFilter control={c} state={state} set={set} params={params} />;
      return <TextInput label={c.label} value={state[c.field] ?? ''} onChange={(e) => set(c.field, e.currentTarget.value)} />;
  }
}

function ReferenceFilter({ control: c, state, set, params }: { control: FilterControl; state: FilterState; set: (k: string, v: string) => void; params: Record<string, string> }) {
  const { data } = useReferenceOptions(c.reference?.collection, params);
  return <Select label={c.label} data={data ?? []} value={state[c.field] || null} onChange={(v) => set(c.field, v ?? '')} clearable searchable placeholder="Any" />;
}
