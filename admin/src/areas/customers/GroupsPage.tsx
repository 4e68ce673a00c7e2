import { Badge, Group, Stack, Table, Text, Title } from '@mantine/core';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { ListState } from '../../lib/list-ui';
import { ButtonLink } from '../team/links';
import { useCustomerSite, useGroups } from './data';
import { CustomerTabs } from './CustomerTabs';

/** Customer groups: MANUAL (chosen by hand) and DYNAMIC (by rule). */
export function GroupsPage() {
  usePageTitle('Customer groups');
  const { websiteId, canWrite } = useCustomerSite();
  const groups = useGroups(websiteId);
  const list = groups.data ?? [];
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={1}>Customer groups</Title>
        {canWrite && (
          <ButtonLink to="/w/$websiteId/r/customer_groups/$groupId" params={{ websiteId, groupId: 'new' }}>
            New group
          </ButtonLink>
        )}
      </Group>
      <CustomerTabs current="customer_groups" />
      <Text>Manual groups hold the customers chosen for them; dynamic groups hold every customer their rule matches. Pages can have a version per group.</Text>
      <ListState query={groups} isEmpty={list.length === 0} what="groups yet" empty="Create one with “New group”: for example every customer tagged vip." />
      {list.length > 0 && (
        <Table.ScrollContainer minWidth={560}>
          <Table striped aria-label="Customer groups">
            <Table.Thead>
              <Table.Tr>
                <Table.Th scope="col">Group</Table.Th>
                <Table.Th scope="col">Kind</Table.Th>
                <Table.Th scope="col">Rule</Table.Th>
                <Table.Th scope="col">Priority</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((g) => (
                <Table.Tr key={g.id}>
                  <Table.Td>
                    <AnchorLink to="/w/$websiteId/r/customer_groups/$groupId" params={{ websiteId, groupId: g.id }}>
                      {g.display_name}
                    </AnchorLink>
                  </Table.Td>
                  <Table.Td>
                    <Badge variant="outline" color={g.type === 'DYNAMIC' ? 'blue.9' : 'gray.8'}>
                      {g.type === 'DYNAMIC' ? 'Dynamic' : 'Manual'}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{g.type === 'DYNAMIC' ? <code>{g.rule || '(no rule: no members)'}</code> : '—'}</Table.Td>
                  <Table.Td>{g.priority ?? 0}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
