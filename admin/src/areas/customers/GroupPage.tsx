import { useState } from 'react';
import { Alert, Button, Group, Loader, NumberInput, SegmentedControl, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { data, waitForOperation } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { ListState, Pager, formatDate } from '../../lib/list-ui';
import { RULE_EXAMPLES, quote, ruleVerdict } from './rule';
import { customerKeys, LIMITS, useCustomerSite, type CustomerGroup } from './data';

/** A customer group (`…/customer_groups/{id}`, or `…/new`): its fields, the DYNAMIC rule editor checked live, and its members. */
export function GroupPage() {
  const { groupId } = useParams({ from: '/signed-in/w/$websiteId/r/customer_groups/$groupId' });
  const api = useApi();
  const { websiteId } = useCustomerSite();
  const isNew = groupId === 'new';
  const group = useQuery({
    queryKey: [...customerKeys.groups(websiteId), groupId],
    enabled: !isNew,
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/customer_groups/{customer_group_id}', { params: { path: { website_id: websiteId, customer_group_id: groupId } } })),
  });
  usePageTitle(isNew ? 'New group' : group.data?.display_name ?? 'Group');
  if (!isNew && group.isPending) return <Loader role="status" aria-label="Loading the group" />;
  if (!isNew && !group.data) return <ApiErrorAlert error={group.error} title="The group could not be loaded" />;
  return (
    <Stack>
      <AnchorLink to="/w/$websiteId/r/customer_groups" params={{ websiteId }}>
        ← Groups
      </AnchorLink>
      <GroupForm key={group.data?.etag ?? 'new'} group={group.data} />
      {group.data && <Members group={group.data} />}
    </Stack>
  );
}

// What the last save here said: the form remounts with the saved etag (or the new group's URL) and still says it.
let justSaved: { id: string; note: string } | undefined;

function GroupForm({ group }: { group?: CustomerGroup }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { websiteId, canWrite } = useCustomerSite();
  const [v, setVState] = useState({ display_name: group?.display_name ?? '', description: group?.description ?? '', type: group?.type ?? 'DYNAMIC', rule: group?.rule ?? '', priority: group?.priority ?? 0 });
  const [savedNote, setSavedNote] = useState(() => (group && justSaved?.id === group.id ? justSaved.note : undefined));
  const set = (patch: Partial<typeof v>) => {
    setVState({ ...v, ...patch });
    setSavedNote(undefined);
    justSaved = undefined;
  };
  const [rule] = useDebouncedValue(v.rule, 350);
  const dynamic = v.type === 'DYNAMIC';
  const path = { website_id: websiteId };

  // The API's own verdict on the rule (validate_only: checked, nothing written) and how many customers it matches now (the List's total_size).
  const check = useQuery({
    queryKey: ['customers', websiteId, 'rule-check', group?.id ?? 'new', rule],
    enabled: dynamic && rule.trim() !== '' && canWrite,
    retry: false,
    queryFn: async () => {
      const body = { display_name: v.display_name.trim() || 'Rule check', type: 'DYNAMIC' as const, rule };
      try {
        if (group) await data(api.PATCH('/tenant-api/v1/websites/{website_id}/customer_groups/{customer_group_id}', { params: { path: { ...path, customer_group_id: group.id }, query: { validate_only: true } as never }, body: { rule } }));
        else await data(api.POST('/tenant-api/v1/websites/{website_id}/customer_groups', { params: { path, query: { validate_only: true } as never }, body }));
      } catch (err) {
        return { verdict: ruleVerdict(rule, err), count: undefined };
      }
      const page = await data(api.GET('/tenant-api/v1/websites/{website_id}/customers', { params: { path, query: { filter: rule, page_size: 1 } } }));
      return { verdict: ruleVerdict(rule, undefined), count: page.total_size };
    },
  });
  const verdict = !dynamic ? undefined : rule.trim() === '' ? ruleVerdict('', undefined) : check.data?.verdict;

  const save = useMutation({
    mutationFn: async () => {
      const body = { display_name: v.display_name, description: v.description, priority: v.priority, ...(dynamic ? { rule: v.rule } : {}) };
      const saved = group
        ? await data(api.PATCH('/tenant-api/v1/websites/{website_id}/customer_groups/{customer_group_id}', { params: { path: { ...path, customer_group_id: group.id } }, body: { ...body, etag: group.etag } }))
        : await data(api.POST('/tenant-api/v1/websites/{website_id}/customer_groups', { params: { path }, body: { ...body, type: v.type } }));
      return saved;
    },
    onSuccess: async (saved) => {
      const note = saved.operation && dynamic ? 'Saved. Members follow the rule in a moment.' : 'Saved.';
      justSaved = { id: saved.id, note };
      setSavedNote(note);
      await qc.invalidateQueries({ queryKey: customerKeys.groups(websiteId) });
      if (!group) await navigate({ to: '/w/$websiteId/r/customer_groups/$groupId', params: { websiteId, groupId: saved.id }, replace: true });
      if (saved.operation) {
        // Members are recomputed in the background; show them once that is done.
        await waitForOperation(api, saved.operation).catch(() => undefined);
        await qc.invalidateQueries({ queryKey: customerKeys.list(websiteId) });
      }
    },
  });
  const remove = useMutation({
    mutationFn: () => api.DELETE('/tenant-api/v1/websites/{website_id}/customer_groups/{customer_group_id}', { params: { path: { ...path, customer_group_id: group!.id } } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: customerKeys.groups(websiteId) });
      await navigate({ to: '/w/$websiteId/r/customer_groups', params: { websiteId } });
    },
  });
  const [confirm, setConfirm] = useState(false);
  const errors = fieldErrorsOf(save.error);
  const readOnly = !canWrite;
  const ruleError = errors.rule ?? (verdict?.state === 'invalid' ? verdict.message : undefined);

  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      noValidate
    >
      <Stack>
        <Title order={1}>{group ? group.display_name : 'New group'}</Title>
        <SimpleGrid cols={{ base: 1, sm: 2 }}>
          <TextInput label="Name" required maxLength={LIMITS.name} description={`Unique on the website, at most ${LIMITS.name} characters.`} value={v.display_name} onChange={(e) => set({ display_name: e.currentTarget.value })} error={errors.display_name} readOnly={readOnly} />
          <NumberInput label="Priority" description="Higher wins when a customer is in several groups with their own page version." value={v.priority} onChange={(n) => set({ priority: typeof n === 'number' ? n : 0 })} error={errors.priority} readOnly={readOnly} allowDecimal={false} />
        </SimpleGrid>
        <Textarea label="Description" maxLength={LIMITS.description} description={`At most ${LIMITS.description} characters.`} autosize minRows={1} value={v.description} onChange={(e) => set({ description: e.currentTarget.value })} error={errors.description} readOnly={readOnly} />
        <Stack gap={4}>
          <Text fw={500} size="sm" id="kind-label">
            Kind {group && '(fixed once created)'}
          </Text>
          <SegmentedControl
            aria-labelledby="kind-label"
            w="fit-content"
            disabled={!!group || readOnly}
            value={v.type}
            onChange={(t) => set({ type: t as 'MANUAL' | 'DYNAMIC' })}
            data={[
              { value: 'DYNAMIC', label: 'Dynamic: by rule' },
              { value: 'MANUAL', label: 'Manual: chosen by hand' },
            ]}
          />
        </Stack>
        {dynamic && (
          <Stack gap="xs">
            <Textarea
              label="Rule"
              description={`Which customers belong, written like the customers list filter over email, tags and create_time (at most ${LIMITS.rule} characters). For example tags:"vip" AND email:"@example.com".`}
              maxLength={LIMITS.rule}
              autosize
              minRows={2}
              styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
              value={v.rule}
              onChange={(e) => set({ rule: e.currentTarget.value })}
              error={ruleError}
              readOnly={readOnly}
              spellCheck={false}
            />
            {!readOnly && (
              <Group gap="xs">
                <Text size="sm">Start from:</Text>
                {RULE_EXAMPLES.map((ex) => (
                  <Button key={ex.label} size="compact-xs" variant="default" onClick={() => set({ rule: ex.rule })}>
                    {ex.label}
                  </Button>
                ))}
              </Group>
            )}
            <div aria-live="polite">
              {v.rule.trim() === '' && <Text size="sm">Without a rule the group has no members.</Text>}
              {v.rule.trim() !== '' && (check.isFetching || rule !== v.rule) && (
                <Group gap="xs">
                  <Loader size="xs" />
                  <Text size="sm">Checking the rule…</Text>
                </Group>
              )}
              {v.rule === rule && !check.isFetching && verdict?.state === 'valid' && (
                <Text size="sm" fw={600}>
                  Valid rule: matches {check.data?.count === 1 ? '1 customer' : `${check.data?.count ?? 0} customers`} now.
                </Text>
              )}
              {verdict?.state === 'unknown' && <Text size="sm">{verdict.message}</Text>}
            </div>
          </Stack>
        )}
        {Object.keys(errors).length === 0 && <ApiErrorAlert error={save.error} title="Not saved" />}
        {savedNote && (
          <Alert color="green" role="status" title={savedNote} />
        )}
        {canWrite && (
          <Group>
            <Button type="submit" loading={save.isPending}>
              {group ? 'Save group' : 'Create group'}
            </Button>
            {group &&
              (confirm ? (
                <>
                  <Text size="sm">Customers leave the group; pages' versions for it go.</Text>
                  <Button color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                    Delete group
                  </Button>
                  <Button variant="default" onClick={() => setConfirm(false)}>
                    Keep
                  </Button>
                </>
              ) : (
                <Button variant="default" color="red" onClick={() => setConfirm(true)}>
                  Delete…
                </Button>
              ))}
          </Group>
        )}
        <ApiErrorAlert error={remove.error} title="Not deleted" />
      </Stack>
    </form>
  );
}

function Members({ group }: { group: CustomerGroup }) {
  const api = useApi();
  const { websiteId } = useCustomerSite();
  const [pageToken, setPageToken] = useState<string>();
  const filter = `group_ids:${quote(group.id)}`;
  const members = useQuery({
    queryKey: [...customerKeys.list(websiteId), filter, pageToken],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/customers', { params: { path: { website_id: websiteId }, query: { filter, page_token: pageToken, page_size: 50 } } })),
  });
  const rows = members.data?.customers ?? [];
  return (
    <Stack gap="xs" mt="lg">
      <Title order={2} size="h3">
        Members
      </Title>
      <ListState query={members} isEmpty={rows.length === 0} what="members" empty={group.type === 'DYNAMIC' ? 'No customer matches the rule (members follow a change in a moment).' : 'Add customers to this group from their page.'} />
      {rows.length > 0 && (
        <Table aria-label="Members of the group">
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Email</Table.Th>
              <Table.Th scope="col">Name</Table.Th>
              <Table.Th scope="col">Joined</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((c) => (
              <Table.Tr key={c.id}>
                <Table.Td>
                  <AnchorLink to="/w/$websiteId/r/customers/$customerId" params={{ websiteId, customerId: c.id }}>
                    {c.email}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>{c.display_name}</Table.Td>
                <Table.Td>{formatDate(c.create_time)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {members.data && <Pager next={members.data.next_page_token} current={pageToken} total={members.data.total_size} noun="members" onPage={setPageToken} />}
    </Stack>
  );
}
