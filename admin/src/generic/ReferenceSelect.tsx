/**
 * A picker of the resources a reference field names (`tag_ids` → the website's blog tags): the
 * first 100 of the referenced collection, searchable by their name; an id the page does not hold
 * (older, or not readable) stays selectable under its id.
 */
import { MultiSelect, Select } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useApi } from '../lib/session';
import type { FormField, FormValue } from '../lib/openapi-model/form.js';
import { listColumns } from '../lib/openapi-model/list.js';
import { apiModel } from './api-model';
import { call, queryKeys } from './call';

interface Props {
  field: FormField;
  value: FormValue;
  onChange: (value: FormValue) => void;
  params: Record<string, string>;
  label: string;
  description?: string;
  error?: string;
  required?: boolean;
  readOnly?: boolean;
  disabled?: boolean;
  onBlur?: () => void;
}

/** Options of a reference picker: `{value: id, label: name}`. */
export function useReferenceOptions(collectionKey: string | undefined, params: Record<string, string>) {
  const api = useApi();
  const target = collectionKey ? apiModel().byKey.get(collectionKey) : undefined;
  const targetParams = Object.fromEntries((target?.parentParams ?? []).map((p) => [p, params[p] ?? '']));
  const ready = !!target?.list && Object.values(targetParams).every((v) => v !== '');
  const query = { page_size: 100 };
  return useQuery({
    queryKey: queryKeys.list(collectionKey ?? '', targetParams, query),
    enabled: ready,
    staleTime: 30_000,
    queryFn: async () => {
      const page = await call<Record<string, unknown>>(api, target!.list!, { params: targetParams, query });
      const items = (page[target!.listProperty!] as Record<string, unknown>[]) ?? [];
      const labelField = listColumns(target!, 1)[0] ?? 'id';
      return items.map((item) => {
        const id = String(item.id ?? item[target!.idParam ?? 'id'] ?? '');
        const name = item[labelField];
        return { value: id, label: name && name !== id ? `${String(name)}` : id };
      });
    },
  });
}

export function ReferenceSelect({ field, value, onChange, params, ...input }: Props) {
  const { data, isLoading } = useReferenceOptions(field.reference?.collection, params);
  const options = [...(data ?? [])];
  const chosen = Array.isArray(value) ? value : typeof value === 'string' && value ? [value] : [];
  for (const id of chosen) if (!options.some((o) => o.value === id)) options.push({ value: id, label: id });
  const placeholder = isLoading ? 'Loading…' : options.length === 0 ? 'Nothing to choose yet' : undefined;
  if (field.reference?.many) {
    return <MultiSelect {...input} data={options} value={chosen} onChange={(v) => onChange(v)} searchable clearable placeholder={placeholder} nothingFoundMessage="No match" />;
  }
  return (
    <Select
      {...input}
      data={options}
      value={chosen[0] ?? null}
      onChange={(v) => onChange(v ?? '')}
      searchable
      clearable={!field.required}
      placeholder={placeholder}
      nothingFoundMessage="No match"
    />
  );
}
