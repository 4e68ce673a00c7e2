import { Container, Loader, Table, Text, Title } from '@mantine/core';
import { useMyWebsites } from '../../lib/websites';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { AnchorLink } from '../../lib/layout/links';
import { Shell } from '../../lib/layout/Shell';

/** Every website the person reaches, by account and project. */
export function WebsitesPage() {
  usePageTitle('Your websites');
  const { data, error, isPending } = useMyWebsites();
  return (
    <Shell>
      <Container size="md" py="md">
      <Title order={1} mb="lg">
        Your websites
      </Title>
      <ApiErrorAlert error={error} />
      {isPending && <Loader role="status" aria-label="Loading websites" />}
      {data && data.length === 0 && <Text>You are not a member of any website yet.</Text>}
      {data && data.length > 0 && (
        <Table striped>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Website</Table.Th>
              <Table.Th>Project</Table.Th>
              <Table.Th>Account</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {data.map(({ account, project, website }) => (
              <Table.Tr key={website.id}>
                <Table.Td>
                  <AnchorLink to="/w/$websiteId" params={{ websiteId: website.id }}>
                    {website.display_name}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>{project.display_name}</Table.Td>
                <Table.Td>
                  <AnchorLink to="/a/$accountId" params={{ accountId: account.id }}>
                    {account.display_name}
                  </AnchorLink>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Container>
    </Shell>
  );
}
