/** The kinds of email the platform sends for the website, each with its template (customised or the platform’s text). */
import { Badge, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data } from '../../lib/api';
import { AnchorLink } from '../../lib/layout/links';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { ListState } from '../../lib/list-ui';
import { useApi } from '../../lib/session';

export function EmailTemplatesPage() {
  usePageTitle('Email templates');
  const api = useApi();
  const { websiteId } = useCurrentWebsite();
  // One template per kind (a handful): one page holds them all.
  const list = useQuery({ queryKey: ['email_templates', websiteId], queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/email_templates', { params: { path: { website_id: websiteId }, query: { page_size: 50 } } })) });
  const templates = list.data?.email_templates ?? [];
  return (
    <Stack maw={1100}>
      <Title order={1}>Email templates</Title>
      <Text size="sm">The emails the platform sends to your customers and team, one template per kind. Placeholders such as {'{{site_name}}'} are filled in when an email is sent.</Text>
      <ListState query={list} isEmpty={templates.length === 0} what="email templates" empty="The website has no templates yet; provisioning creates them." />
      {templates.length > 0 && (
        <Table striped withTableBorder aria-label="Email templates">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>Email</Table.Th>
              <Table.Th>Sent when</Table.Th>
              <Table.Th>Subject</Table.Th>
              <Table.Th>Text</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {templates.map((t) => (
              <Table.Tr key={t.id}>
                <Table.Td>
                  <AnchorLink to="/w/$websiteId/r/email_templates/$templateId" params={{ websiteId, templateId: t.id }}>
                    {t.display_name ?? t.kind}
                  </AnchorLink>
                </Table.Td>
                <Table.Td>{t.description}</Table.Td>
                <Table.Td>{t.subject}</Table.Td>
                <Table.Td>
                  <Badge color={t.is_customized ? 'blue.9' : 'gray.8'} variant="filled">
                    {t.is_customized ? 'Customised' : 'Platform default'}
                  </Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
