import { useState } from 'react';
import { Button, Group, Stack, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { ListState } from '../../lib/list-ui';
import { SortableList } from './SortableList';
import { LIMITS, afterIdOf, customerKeys, useAttributes, useCustomerSite, useSections, type Section } from './data';
import { CustomerTabs } from './CustomerTabs';

/** Attribute sections (headings of the customer form): created, renamed, ordered by drag and drop, deleted. */
export function SectionsPage() {
  usePageTitle('Attribute sections');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, canWrite } = useCustomerSite();
  const sections = useSections(websiteId);
  const attributes = useAttributes(websiteId);
  const list = sections.data ?? [];
  const key = customerKeys.sections(websiteId);
  const path = { website_id: websiteId };
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/customer_attribute_groups', { params: { path }, body: { display_name: name } })),
    onSuccess: async () => {
      setName('');
      await qc.invalidateQueries({ queryKey: key });
    },
  });
  const move = useMutation({
    mutationFn: ({ id, after_id }: { id: string; after_id: string | null; ids: string[] }) =>
      data(api.POST('/tenant-api/v1/websites/{website_id}/customer_attribute_groups/{attribute_group_id}:move', { params: { path: { ...path, attribute_group_id: id } }, body: { after_id } })),
    onMutate: ({ ids }) => qc.setQueryData<Section[]>(key, (old) => (old ? ids.map((id) => old.find((s) => s.id === id)!).filter(Boolean) : old)),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  const full = list.length >= LIMITS.sections;
  const createErrors = fieldErrorsOf(create.error);
  const countIn = (id: string) => (attributes.data ?? []).filter((a) => a.group_id === id).length;

  return (
    <Stack>
      <Title order={1}>Attribute sections</Title>
      <CustomerTabs current="customer_attribute_groups" />
      <Text>
        Headings the customer form groups attributes under ({list.length} of at most {LIMITS.sections}). Attributes without a section show under “Details”, first.
      </Text>
      {canWrite && (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
          noValidate
        >
          <Group align="flex-end">
            <TextInput label="New section" required maxLength={LIMITS.name} description={`At most ${LIMITS.name} characters.`} value={name} onChange={(e) => setName(e.currentTarget.value)} error={createErrors.display_name} disabled={full} />
            <Button type="submit" loading={create.isPending} disabled={full}>
              Add section
            </Button>
          </Group>
          {full && <Text size="sm">A website has at most {LIMITS.sections} sections.</Text>}
          {!createErrors.display_name && <ApiErrorAlert error={create.error} title="Not added" />}
        </form>
      )}
      <ApiErrorAlert error={move.error} title="Not moved" />
      <ListState query={sections} isEmpty={list.length === 0} what="sections yet" empty="Every attribute shows under “Details” until you add sections." />
      {list.length > 0 && (
        <SortableList items={list} label={(s) => s.display_name} disabled={!canWrite} onMove={(ids, index) => move.mutate({ id: ids[index], after_id: afterIdOf(ids, index), ids })} render={(s) => <SectionRow websiteId={websiteId} section={s} count={countIn(s.id)} canWrite={canWrite} />} />
      )}
    </Stack>
  );
}

function SectionRow({ websiteId, section, count, canWrite }: { websiteId: string; section: Section; count: number; canWrite: boolean }) {
  const api = useApi();
  const qc = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(section.display_name);
  const [confirm, setConfirm] = useState(false);
  const params = { path: { website_id: websiteId, attribute_group_id: section.id } };
  const done = async () => {
    await qc.invalidateQueries({ queryKey: customerKeys.sections(websiteId) });
    await qc.invalidateQueries({ queryKey: customerKeys.attributes(websiteId) });
  };
  const rename = useMutation({
    mutationFn: () => data(api.PATCH('/tenant-api/v1/websites/{website_id}/customer_attribute_groups/{attribute_group_id}', { params, body: { display_name: name, etag: section.etag } })),
    onSuccess: async () => {
      setEditing(false);
      await done();
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/customer_attribute_groups/{attribute_group_id}', { params }),
    onSuccess: done,
  });
  if (editing)
    return (
      <form
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate();
        }}
      >
        <Group align="flex-end" gap="xs">
          <TextInput label={`Name of ${section.display_name}`} maxLength={LIMITS.name} value={name} onChange={(e) => setName(e.currentTarget.value)} error={fieldErrorsOf(rename.error).display_name} />
          <Button size="xs" type="submit" loading={rename.isPending}>
            Save
          </Button>
          <Button size="xs" variant="default" onClick={() => setEditing(false)}>
            Cancel
          </Button>
        </Group>
      </form>
    );
  return (
    <Group justify="space-between" wrap="wrap" gap="xs">
      <div>
        <Text fw={600}>{section.display_name}</Text>
        <Text size="sm">{count === 1 ? '1 attribute' : `${count} attributes`}</Text>
      </div>
      {canWrite && (
        <Group gap="xs">
          {confirm ? (
            <>
              <Text size="sm">Its attributes move to “Details”.</Text>
              <Button size="xs" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                Delete section
              </Button>
              <Button size="xs" variant="default" onClick={() => setConfirm(false)}>
                Keep
              </Button>
            </>
          ) : (
            <>
              <Button size="xs" variant="default" onClick={() => setEditing(true)} aria-label={`Rename ${section.display_name}`}>
                Rename
              </Button>
              <Button size="xs" variant="default" color="red" onClick={() => setConfirm(true)} aria-label={`Delete ${section.display_name}`}>
                Delete
              </Button>
            </>
          )}
        </Group>
      )}
      <ApiErrorAlert error={remove.error} title="Not deleted" />
    </Group>
  );
}
