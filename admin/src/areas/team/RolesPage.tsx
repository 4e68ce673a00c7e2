import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ListState } from '../../lib/list-ui';
import { useAccountRoles, useBuiltInRoles, useTeamAccount } from './data';
import { TeamTabs } from './TeamTabs';
import { ButtonLink } from './links';

/** Built-in roles (read-only) and the account's own roles, each opening the permission-tree editor. */
export function RolesPage() {
  usePageTitle('Roles');
  const { accountId, canManage } = useTeamAccount();
  const builtIn = useBuiltInRoles();
  const own = useAccountRoles(accountId);
  return (
    <Stack>
      <Title order={1}>Team</Title>
      <TeamTabs current="account_roles" />
      <Group justify="space-between">
        <Text>A role is a set of grants over the permission tree; a member holds one role plus their own grants.</Text>
        {canManage && (
          <ButtonLink to="/a/$accountId/r/account_roles/$roleId" params={{ accountId, roleId: 'new' }}>
            New role
          </ButtonLink>
        )}
      </Group>
      <Title order={2} size="h3">
        Built-in roles
      </Title>
      <ListState query={builtIn} isEmpty={(builtIn.data ?? []).length === 0} what="built-in roles" empty="" />
      {builtIn.data && (
        <Table>
          <Table.Tbody>
            {builtIn.data.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Th scope="row">
                  <AnchorLink to="/a/$accountId/r/roles/$roleId" params={{ accountId, roleId: r.id }}>
                    {r.display_name ?? r.id}
                  </AnchorLink>{' '}
                  <Badge variant="outline" color="gray.8">
                    Built in
                  </Badge>
                </Table.Th>
                <Table.Td>{r.description}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <Title order={2} size="h3">
        This account’s roles
      </Title>
      <ListState query={own} isEmpty={(own.data ?? []).length === 0} what="roles of your own yet" empty={canManage ? 'Define one with “New role”: pick the sections it may read or write.' : 'An administrator can define roles here.'} />
      {own.data && own.data.length > 0 && (
        <Table>
          <Table.Tbody>
            {own.data.map((r) => (
              <Table.Tr key={r.id}>
                <Table.Th scope="row">
                  <AnchorLink to="/a/$accountId/r/account_roles/$roleId" params={{ accountId, roleId: r.id }}>
                    {r.display_name}
                  </AnchorLink>
                </Table.Th>
                <Table.Td>{r.description}</Table.Td>
                <Table.Td>{r.grants.length === 1 ? '1 grant' : `${r.grants.length} grants`}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
