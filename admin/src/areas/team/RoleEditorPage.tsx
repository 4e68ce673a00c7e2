import { useMemo, useState } from 'react';
import { Alert, Badge, Box, Button, Checkbox, Group, List, Loader, Paper, SimpleGrid, Stack, Table, Text, TextInput, Textarea, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useParams } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { usePageTitle } from '../../lib/layout/title';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { buildTree, coverage, describe, exceeding, flatten, toggle, type Grant } from './permission-tree';
import { guardOf } from './guards';
import { teamKeys, useBuiltInRoles, usePermissions, useTeamAccount } from './data';

/** A built-in role, read-only: `/a/{a}/r/roles/{id}`. */
export function BuiltInRolePage() {
  const { roleId } = useParams({ from: '/signed-in/a/$accountId/r/roles/$roleId' });
  const roles = useBuiltInRoles();
  const role = roles.data?.find((r) => r.id === roleId);
  usePageTitle(role?.display_name ?? 'Role');
  if (roles.isPending) return <Loader role="status" aria-label="Loading the role" />;
  if (!role) return <ApiErrorAlert error={roles.error ?? new Error('No such role.')} title="The role could not be loaded" />;
  return (
    <RoleForm
      key={role.id}
      title={role.display_name ?? role.id}
      initial={{ display_name: role.display_name ?? role.id, description: role.description ?? '', grants: (role.grants ?? []) as Grant[] }}
      readOnlyReason={role.id === 'restricted' ? 'Built in and read-only: a restricted member holds only the grants of their own membership.' : 'Built in and read-only. Define a role of your own to choose other sections.'}
    />
  );
}

/** An account role (`/a/{a}/r/account_roles/{id}`) or a new one (`…/new`): the permission-tree editor. */
export function AccountRolePage() {
  const { accountId, roleId } = useParams({ from: '/signed-in/a/$accountId/r/account_roles/$roleId' });
  const api = useApi();
  const isNew = roleId === 'new';
  const role = useQuery({
    queryKey: [...teamKeys.roles(accountId), roleId],
    enabled: !isNew,
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}/account_roles/{account_role_id}', { params: { path: { account_id: accountId, account_role_id: roleId } } })),
  });
  usePageTitle(isNew ? 'New role' : role.data?.display_name ?? 'Role');
  if (!isNew && role.isPending) return <Loader role="status" aria-label="Loading the role" />;
  if (!isNew && !role.data) return <ApiErrorAlert error={role.error} title="The role could not be loaded" />;
  const r = role.data;
  return (
    <RoleForm
      key={r?.etag ?? 'new'}
      title={isNew ? 'New role' : r!.display_name}
      roleId={isNew ? undefined : roleId}
      etag={r?.etag}
      initial={{ display_name: r?.display_name ?? '', description: r?.description ?? '', grants: (r?.grants ?? []) as Grant[] }}
    />
  );
}

interface RoleValues {
  display_name: string;
  description: string;
  grants: Grant[];
}

// The role last saved here: the form remounts after saving (the new etag, or the new role's URL) and still says so.
let justSaved: string | undefined;

function RoleForm({ title, initial, roleId, etag, readOnlyReason }: { title: string; initial: RoleValues; roleId?: string; etag?: string; readOnlyReason?: string }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const { accountId, rights, canManage } = useTeamAccount();
  const permissions = usePermissions();
  const tree = useMemo(() => buildTree((permissions.data ?? []).map((p) => ({ id: p.id, display_name: p.display_name, description: p.description, parent: p.parent }))), [permissions.data]);
  const rows = useMemo(() => flatten(tree), [tree]);
  const [values, setValuesState] = useState<RoleValues>(initial);
  const [saved, setSaved] = useState(() => !!roleId && justSaved === roleId);
  const setValues = (next: RoleValues) => {
    setValuesState(next);
    setSaved(false);
    justSaved = undefined;
  };
  const readOnly = !!readOnlyReason || !canManage;
  const beyond = rights && !rights.administrator ? exceeding(rights.grants, values.grants) : [];
  const labelOf = (section: string) => rows.find((n) => n.section === section)?.label ?? section;

  const save = useMutation({
    mutationFn: async () => {
      const body = { display_name: values.display_name.trim(), description: values.description, grants: values.grants };
      if (!roleId) return data(api.POST('/tenant-api/v1/accounts/{account_id}/account_roles', { params: { path: { account_id: accountId } }, body }));
      return data(api.PATCH('/tenant-api/v1/accounts/{account_id}/account_roles/{account_role_id}', { params: { path: { account_id: accountId, account_role_id: roleId } }, body: { ...body, etag } }));
    },
    onSuccess: async (role) => {
      justSaved = role.id;
      setSaved(true);
      await qc.invalidateQueries({ queryKey: teamKeys.roles(accountId) });
      if (!roleId) await navigate({ to: '/a/$accountId/r/account_roles/$roleId', params: { accountId, roleId: role.id }, replace: true });
    },
  });
  const [force, setForce] = useState(false);
  const remove = useMutation({
    mutationFn: () =>
      api.DELETE('/tenant-api/v1/accounts/{account_id}/account_roles/{account_role_id}', { params: { path: { account_id: accountId, account_role_id: roleId! }, query: force ? ({ force: true } as never) : undefined } }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: teamKeys.roles(accountId) });
      await navigate({ to: '/a/$accountId/r/account_roles', params: { accountId } });
    },
  });
  const guard = guardOf(save.error, 'role');
  const deleteGuard = guardOf(remove.error, 'delete-role');
  const fields = fieldErrorsOf(save.error);
  const summary = describe(values.grants, tree);

  return (
    <Stack>
      <AnchorLink to="/a/$accountId/r/account_roles" params={{ accountId }}>
        ← Roles
      </AnchorLink>
      <Group gap="sm">
        <Title order={1}>{title}</Title>
        {readOnlyReason && (
          <Badge variant="outline" color="gray.8">
            Built in
          </Badge>
        )}
      </Group>
      {readOnly && <Alert color="gray" title="Read-only">{readOnlyReason ?? 'Your role does not allow changing roles.'}</Alert>}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
        noValidate
      >
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <TextInput label="Name" required maxLength={100} description="Unique in the account, at most 100 characters." value={values.display_name} onChange={(e) => setValues({ ...values, display_name: e.currentTarget.value })} readOnly={readOnly} error={fields.display_name} />
            <Textarea label="Description" maxLength={2000} autosize minRows={1} value={values.description} onChange={(e) => setValues({ ...values, description: e.currentTarget.value })} readOnly={readOnly} error={fields.description} />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, md: 3 }} spacing="lg">
            <Box style={{ gridColumn: 'span 2' }}>
              <Title order={2} size="h3" mb="xs" id="tree-heading">
                Permissions
              </Title>
              <Text size="sm" mb="xs">
                Check a section to grant reading or writing it; the sections beneath follow. Writing includes reading.
              </Text>
              {permissions.isPending && <Loader role="status" aria-label="Loading the permission tree" />}
              <ApiErrorAlert error={permissions.error} title="The permission tree could not be loaded" />
              {rows.length > 0 && (
                <Table aria-labelledby="tree-heading" verticalSpacing={6}>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th scope="col">Section</Table.Th>
                      <Table.Th scope="col" w={64}>
                        Read
                      </Table.Th>
                      <Table.Th scope="col" w={64}>
                        Write
                      </Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    {rows.map((node) => {
                      const c = coverage(values.grants, node.section);
                      const inherited = c.inheritedFrom ? labelOf(c.inheritedFrom) : undefined;
                      const readInherited = !!c.inheritedFrom;
                      const writeInherited = !!c.inheritedFrom && c.access === 'WRITE';
                      const exceeds = beyond.some((g) => g.section === node.section);
                      return (
                        <Table.Tr key={node.section} data-section={node.section}>
                          <Table.Td style={{ paddingInlineStart: `calc(var(--mantine-spacing-sm) + ${node.depth * 1.5}rem)` }}>
                            <Text fw={node.depth === 0 ? 700 : 500} size="sm">
                              {node.label}
                            </Text>
                            <Text size="xs">
                              {node.description}
                              {inherited && ` Follows ${inherited}.`}
                            </Text>
                            {exceeds && (
                              <Text size="xs" c="red.9">
                                Beyond what you hold yourself.
                              </Text>
                            )}
                          </Table.Td>
                          <Table.Td>
                            <Checkbox
                              aria-label={`Read ${node.label}`}
                              checked={!!c.access}
                              disabled={readOnly || readInherited}
                              onChange={(e) => setValues({ ...values, grants: toggle(values.grants, node.section, 'READ', e.currentTarget.checked) })}
                            />
                          </Table.Td>
                          <Table.Td>
                            <Checkbox
                              aria-label={`Write ${node.label}`}
                              checked={c.access === 'WRITE'}
                              disabled={readOnly || writeInherited}
                              onChange={(e) => setValues({ ...values, grants: toggle(values.grants, node.section, 'WRITE', e.currentTarget.checked) })}
                            />
                          </Table.Td>
                        </Table.Tr>
                      );
                    })}
                  </Table.Tbody>
                </Table>
              )}
            </Box>
            <Paper withBorder p="md" component="section" aria-labelledby="covers-heading" style={{ alignSelf: 'start' }}>
              <Title order={2} size="h4" id="covers-heading" mb="xs">
                What this role covers
              </Title>
              {summary.length === 0 ? (
                <Text size="sm">Nothing yet: members holding it reach only what their own grants allow.</Text>
              ) : (
                <List size="sm" spacing={6} aria-live="polite">
                  {summary.map((s) => (
                    <List.Item key={s.section}>
                      <strong>{s.access === 'WRITE' ? 'Read and write' : 'Read'}</strong> {s.label}
                      {s.covers.length > 0 && `, with ${s.covers.join(', ')}`}
                    </List.Item>
                  ))}
                </List>
              )}
              {beyond.length > 0 && (
                <Alert color="orange" mt="sm" title="More than you hold">
                  You hold less than this role on {beyond.map((g) => labelOf(g.section)).join(', ')}; saving will be refused. Only someone holding at least as much can grant it.
                </Alert>
              )}
            </Paper>
          </SimpleGrid>
          {guard && (
            <Alert color="red" role="alert" title="Not saved">
              {guard.message}
            </Alert>
          )}
          {!guard && Object.keys(fields).length === 0 && <ApiErrorAlert error={save.error} title="Not saved" />}
          {saved && (
            <Alert color="green" role="status" title="Saved">
              Members holding this role have these rights from their next request on.
            </Alert>
          )}
          {!readOnly && (
            <Group>
              <Button type="submit" loading={save.isPending}>
                {roleId ? 'Save role' : 'Create role'}
              </Button>
              {roleId && (
                <Button variant="default" color="red" loading={remove.isPending} onClick={() => remove.mutate()}>
                  {force ? 'Delete anyway' : 'Delete role'}
                </Button>
              )}
            </Group>
          )}
          {deleteGuard && (
            <Alert color="red" role="alert" title="Not deleted">
              {deleteGuard.message}{' '}
              {!force && (
                <Button size="xs" variant="default" onClick={() => setForce(true)}>
                  Allow deleting it anyway
                </Button>
              )}
            </Alert>
          )}
          {!deleteGuard && <ApiErrorAlert error={remove.error} title="Not deleted" />}
        </Stack>
      </form>
    </Stack>
  );
}
