import { useState } from 'react';
import { ActionIcon, Alert, Badge, Button, Checkbox, Group, Modal, NumberInput, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { ListState } from '../../lib/list-ui';
import { SortableList } from './SortableList';
import { ATTRIBUTE_TYPES, LIMITS, afterIdOf, customerKeys, useAttributes, useCustomerSite, useSections, type Attribute } from './data';
import { CustomerTabs } from './CustomerTabs';

const typeLabel = (t: string | undefined) => ATTRIBUTE_TYPES.find((x) => x.value === t)?.label ?? t ?? '';
const KEY_PATTERN = /^[a-z][a-z0-9_]{0,63}$/;

/** The fields customers carry: ordered by drag and drop, edited with their type's limits. */
export function AttributesPage() {
  usePageTitle('Customer attributes');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, canWrite } = useCustomerSite();
  const attributes = useAttributes(websiteId);
  const sections = useSections(websiteId);
  const [editing, setEditing] = useState<Attribute | 'new'>();
  const move = useMutation({
    mutationFn: ({ id, after_id }: { id: string; after_id: string | null; ids: string[] }) =>
      data(api.POST('/tenant-api/v1/websites/{website_id}/customer_attributes/{attribute_id}:move', { params: { path: { website_id: websiteId, attribute_id: id } }, body: { after_id } })),
    onMutate: ({ ids }) => {
      // Shown in the new order at once; the server's order comes back with the refetch.
      qc.setQueryData<Attribute[]>(customerKeys.attributes(websiteId), (old) => (old ? ids.map((id) => old.find((a) => a.id === id)!).filter(Boolean) : old));
    },
    onSettled: () => qc.invalidateQueries({ queryKey: customerKeys.attributes(websiteId) }),
  });
  const list = attributes.data ?? [];
  const sectionName = (id: string | undefined) => (id ? sections.data?.find((s) => s.id === id)?.display_name : undefined) ?? 'Details';
  const full = list.length >= LIMITS.attributes;

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Customer attributes</Title>
        {canWrite && (
          <Button onClick={() => setEditing('new')} disabled={full}>
            New attribute
          </Button>
        )}
      </Group>
      <CustomerTabs current="customer_attributes" />
      <Text>
        Fields added to every customer of this website, in the order forms show them ({list.length} of at most {LIMITS.attributes}).{canWrite && ' Drag a field by its handle, or focus the handle and use Space and the arrow keys, to reorder.'}
      </Text>
      <ApiErrorAlert error={move.error} title="Not moved" />
      <ListState query={attributes} isEmpty={list.length === 0} what="attributes yet" empty="Add one with “New attribute”: a birthday, a customer number, a preferred shop…" />
      {list.length > 0 && (
        <SortableList
          items={list}
          label={(a) => a.display_name}
          disabled={!canWrite}
          onMove={(ids, index) => move.mutate({ id: ids[index], after_id: afterIdOf(ids, index), ids })}
          render={(a) => (
            <Group justify="space-between" wrap="wrap" gap="xs">
              <div>
                <Text fw={600}>{a.display_name}</Text>
                <Text size="sm">
                  <code>{a.key}</code> · {typeLabel(a.type)} · {sectionName(a.group_id)}
                </Text>
              </div>
              <Group gap={4}>
                {a.is_required && <Badge variant="outline" color="blue.9">Required</Badge>}
                {a.show_in_registration && <Badge variant="outline" color="blue.9">At registration</Badge>}
                {a.is_active === false && <Badge variant="outline" color="gray.8">Inactive</Badge>}
                {canWrite && (
                  <Button size="xs" variant="default" onClick={() => setEditing(a)} aria-label={`Edit ${a.display_name}`}>
                    Edit
                  </Button>
                )}
              </Group>
            </Group>
          )}
        />
      )}
      {editing && <AttributeEditor websiteId={websiteId} attribute={editing === 'new' ? undefined : editing} sections={(sections.data ?? []).map((s) => ({ value: s.id, label: s.display_name }))} onClose={() => setEditing(undefined)} />}
    </Stack>
  );
}

interface Option {
  value: string;
  display_name: string;
}

function AttributeEditor({ websiteId, attribute, sections, onClose }: { websiteId: string; attribute?: Attribute; sections: { value: string; label: string }[]; onClose: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const isNew = !attribute;
  const [v, setV] = useState({
    key: attribute?.key ?? '',
    display_name: attribute?.display_name ?? '',
    description: attribute?.description ?? '',
    type: attribute?.type ?? 'TEXT',
    group_id: attribute?.group_id ?? '',
    is_required: attribute?.is_required ?? false,
    show_in_registration: attribute?.show_in_registration ?? false,
    is_active: attribute?.is_active ?? true,
    min_length: attribute?.min_length as number | undefined,
    max_length: attribute?.max_length as number | undefined,
    min_value: attribute?.min_value as number | undefined,
    max_value: attribute?.max_value as number | undefined,
    options: (attribute?.options ?? []).map((o) => ({ value: o.value, display_name: o.display_name })) as Option[],
  });
  const set = (patch: Partial<typeof v>) => setV({ ...v, ...patch });
  const isText = v.type === 'TEXT' || v.type === 'TEXTAREA';
  const isSelect = v.type === 'SELECT' || v.type === 'MULTISELECT';
  const maxLengthCap = v.type === 'TEXT' ? LIMITS.textMax : LIMITS.textareaMax;
  const save = useMutation({
    mutationFn: () => {
      const body = {
        display_name: v.display_name,
        description: v.description,
        group_id: v.group_id || null,
        is_required: v.is_required,
        show_in_registration: v.show_in_registration,
        is_active: v.is_active,
        min_length: isText ? (v.min_length ?? null) : null,
        max_length: isText ? (v.max_length ?? null) : null,
        min_value: v.type === 'NUMBER' ? (v.min_value ?? null) : null,
        max_value: v.type === 'NUMBER' ? (v.max_value ?? null) : null,
        options: isSelect ? v.options : null,
      };
      const path = { website_id: websiteId };
      if (isNew) return data(api.POST('/tenant-api/v1/websites/{website_id}/customer_attributes', { params: { path }, body: { ...body, key: v.key, type: v.type } as never }));
      return data(api.PATCH('/tenant-api/v1/websites/{website_id}/customer_attributes/{attribute_id}', { params: { path: { ...path, attribute_id: attribute.id } }, body: { ...body, etag: attribute.etag } as never }));
    },
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: customerKeys.attributes(websiteId) });
      onClose();
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/customer_attributes/{attribute_id}', { params: { path: { website_id: websiteId, attribute_id: attribute!.id } } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: customerKeys.attributes(websiteId) });
      onClose();
    },
  });
  const [confirmDelete, setConfirmDelete] = useState(false);
  const errors = fieldErrorsOf(save.error);
  const optionError = Object.entries(errors).find(([f]) => f.startsWith('options'))?.[1];
  const keyProblem = isNew && v.key && !KEY_PATTERN.test(v.key) ? 'A lowercase letter, then up to 63 lowercase letters, digits or underscores.' : undefined;

  return (
    <Modal opened onClose={onClose} closeButtonProps={{ 'aria-label': 'Close' }} title={isNew ? 'New attribute' : `Attribute ${attribute.display_name}`} size="lg">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        noValidate
      >
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Label" required maxLength={LIMITS.name} description={`At most ${LIMITS.name} characters.`} value={v.display_name} onChange={(e) => set({ display_name: e.currentTarget.value })} error={errors.display_name} />
            <TextInput
              label="Key"
              required
              maxLength={64}
              description={isNew ? 'How the API and templates name it; fixed once created.' : 'Fixed once created.'}
              value={v.key}
              readOnly={!isNew}
              onChange={(e) => set({ key: e.currentTarget.value })}
              error={keyProblem ?? errors.key}
            />
            <Select label="Type" required data={ATTRIBUTE_TYPES} value={v.type} onChange={(t) => t && set({ type: t as typeof v.type })} disabled={!isNew} description={isNew ? 'Fixed once created.' : 'Fixed once created.'} error={errors.type} allowDeselect={false} />
            <Select label="Section" data={[{ value: '', label: 'Details (default section)' }, ...sections]} value={v.group_id} onChange={(g) => set({ group_id: g ?? '' })} error={errors.group_id} allowDeselect={false} />
          </SimpleGrid>
          <Textarea label="Description" maxLength={LIMITS.description} description={`At most ${LIMITS.description} characters.`} autosize minRows={2} value={v.description} onChange={(e) => set({ description: e.currentTarget.value })} error={errors.description} />
          {isText && (
            <SimpleGrid cols={2}>
              <NumberInput label="Shortest" min={0} max={maxLengthCap} value={v.min_length ?? ''} onChange={(n) => set({ min_length: typeof n === 'number' ? n : undefined })} error={errors.min_length} />
              <NumberInput label="Longest" min={1} max={maxLengthCap} description={`At most ${maxLengthCap} (the default).`} value={v.max_length ?? ''} onChange={(n) => set({ max_length: typeof n === 'number' ? n : undefined })} error={errors.max_length} />
            </SimpleGrid>
          )}
          {v.type === 'NUMBER' && (
            <SimpleGrid cols={2}>
              <NumberInput label="Smallest value" value={v.min_value ?? ''} onChange={(n) => set({ min_value: typeof n === 'number' ? n : undefined })} error={errors.min_value} />
              <NumberInput label="Largest value" value={v.max_value ?? ''} onChange={(n) => set({ max_value: typeof n === 'number' ? n : undefined })} error={errors.max_value} />
            </SimpleGrid>
          )}
          {isSelect && (
            <Stack gap="xs">
              <Text fw={500} size="sm" id="options-label">
                Options ({v.options.length} of 1 to {LIMITS.options}; values unique)
              </Text>
              {v.options.map((o, i) => (
                <Group key={i} gap="xs" align="flex-end" wrap="nowrap">
                  <TextInput label={`Value ${i + 1}`} value={o.value} onChange={(e) => set({ options: v.options.map((x, j) => (j === i ? { ...x, value: e.currentTarget.value } : x)) })} style={{ flex: 1 }} error={errors[`options[${i}].value`]} />
                  <TextInput label={`Shown as ${i + 1}`} value={o.display_name} onChange={(e) => set({ options: v.options.map((x, j) => (j === i ? { ...x, display_name: e.currentTarget.value } : x)) })} style={{ flex: 1 }} error={errors[`options[${i}].display_name`]} />
                  <ActionIcon variant="default" size="lg" aria-label={`Remove option ${i + 1}`} onClick={() => set({ options: v.options.filter((_, j) => j !== i) })}>
                    <span aria-hidden="true">×</span>
                  </ActionIcon>
                </Group>
              ))}
              <Group>
                <Button size="xs" variant="default" disabled={v.options.length >= LIMITS.options} onClick={() => set({ options: [...v.options, { value: '', display_name: '' }] })}>
                  Add option
                </Button>
              </Group>
              {optionError && (
                <Text size="sm" c="red.9" role="alert">
                  {optionError}
                </Text>
              )}
            </Stack>
          )}
          <Group>
            <Checkbox label="Required" checked={v.is_required} onChange={(e) => set({ is_required: e.currentTarget.checked })} />
            <Checkbox label="Asked at registration" checked={v.show_in_registration} onChange={(e) => set({ show_in_registration: e.currentTarget.checked })} />
            <Checkbox label="Active" description="Off: removed from forms, values kept." checked={v.is_active} onChange={(e) => set({ is_active: e.currentTarget.checked })} />
          </Group>
          {Object.keys(errors).length === 0 && <ApiErrorAlert error={save.error} title="Not saved" />}
          {!isNew && confirmDelete && (
            <Alert color="red" title="Delete this attribute?">
              Its value is removed from every customer. Turning it inactive keeps the values instead.
              <Group mt="xs">
                <Button size="xs" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                  Delete with its values
                </Button>
                <Button size="xs" variant="default" onClick={() => setConfirmDelete(false)}>
                  Keep it
                </Button>
              </Group>
            </Alert>
          )}
          <ApiErrorAlert error={remove.error} title="Not deleted" />
          <Group justify="space-between">
            {!isNew ? (
              <Button variant="default" color="red" onClick={() => setConfirmDelete(true)}>
                Delete…
              </Button>
            ) : (
              <span />
            )}
            <Group>
              <Button variant="default" onClick={onClose}>
                Cancel
              </Button>
              <Button type="submit" loading={save.isPending} disabled={!!keyProblem}>
                {isNew ? 'Create attribute' : 'Save attribute'}
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
