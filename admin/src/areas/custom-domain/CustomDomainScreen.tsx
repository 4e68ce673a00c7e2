/**
 * Where the website answers: its platform host name, the custom domain (setting
 * `general.web.custom_domain`), the DNS record to create at the domain's provider, `:verify` with
 * what it found, and the connection status.
 */
import { useState } from 'react';
import { Alert, Badge, Button, Card, Code, CopyButton, Group, Loader, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { data, type Schemas } from '../../lib/api';
import { ApiErrorAlert, fieldErrorsOf } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';
import { useRights } from '../../lib/rights';
import { useApi } from '../../lib/session';

type Domain = Schemas['CustomDomain'];
const DOMAIN_SETTING = 'general.web.custom_domain';

const STATUS: Record<NonNullable<Domain['status']>, { label: string; color: string; text: string }> = {
  NOT_CONFIGURED: { label: 'Not configured', color: 'gray.8', text: 'No custom domain: the website answers on its platform address only.' },
  PENDING_DNS: { label: 'Waiting for DNS', color: '#a63c06', text: 'Create the record below at your DNS provider, then verify. DNS changes can take a while to spread.' },
  CONNECTED: { label: 'Connected', color: 'teal.9', text: 'The domain points at the website.' },
  MISCONFIGURED: { label: 'Misconfigured', color: 'red.9', text: 'The domain does not point where it should; check the record below.' },
};

export function CustomDomainScreen() {
  usePageTitle('Custom domain');
  const api = useApi();
  const qc = useQueryClient();
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  const canWrite = !!rights?.canWrite('website.settings');
  const key = ['custom_domain', websiteId];
  const domain = useQuery({ queryKey: key, queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/custom_domain', { params: { path: { website_id: websiteId } } })) });
  const setting = useQuery({
    queryKey: ['settings', websiteId, DOMAIN_SETTING],
    queryFn: () => data(api.GET('/tenant-api/v1/websites/{website_id}/settings/{path}', { params: { path: { website_id: websiteId, path: DOMAIN_SETTING } } })),
  });
  const [draft, setDraft] = useState<string>();
  const value = draft ?? (typeof setting.data?.value === 'string' ? setting.data.value : '');
  const verify = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/websites/{website_id}/custom_domain:verify', { params: { path: { website_id: websiteId } } })),
    onSuccess: (d) => qc.setQueryData(key, d),
  });
  const saveDomain = useMutation({
    mutationFn: (v: string) =>
      data(
        api.PATCH('/tenant-api/v1/websites/{website_id}/settings/{path}', {
          params: { path: { website_id: websiteId, path: DOMAIN_SETTING }, header: setting.data?.etag ? { 'If-Match': setting.data.etag } : {} },
          body: { value: v.trim() === '' ? null : v.trim() },
        }),
      ),
    onSuccess: async () => {
      setDraft(undefined);
      await Promise.all([qc.invalidateQueries({ queryKey: key }), qc.invalidateQueries({ queryKey: ['settings', websiteId] })]);
    },
  });
  const d = domain.data;
  const st = d?.status ? STATUS[d.status] : undefined;
  const domainError = fieldErrorsOf(saveDomain.error).value;

  return (
    <Stack maw={820}>
      <Title order={1}>Custom domain</Title>
      <ApiErrorAlert error={domain.error ?? setting.error} title="The domain could not be loaded" />
      {domain.isPending && <Loader role="status" aria-label="Loading the domain" />}
      {d && (
        <>
          <Card withBorder>
            <Stack gap="xs">
              <Group>
                <Text fw={500}>Status</Text>
                {st && (
                  <Badge color={st.color} variant="filled">
                    {st.label}
                  </Badge>
                )}
              </Group>
              {st && <Text size="sm">{st.text}</Text>}
              {d.status_detail && (
                <Text size="sm">
                  Last check: {d.status_detail}
                  {d.last_verify_time ? ` (${new Date(d.last_verify_time).toLocaleString()})` : ''}
                </Text>
              )}
              <Text size="sm">
                Platform address (always works): <Code>{d.platform_hostname}</Code>
              </Text>
            </Stack>
          </Card>
          <Card withBorder>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                saveDomain.mutate(value);
              }}
            >
              <Stack>
                <Title order={2} size="h4">
                  Domain
                </Title>
                <ApiErrorAlert error={domainError ? undefined : saveDomain.error} title="The domain was not saved" />
                <TextInput
                  label="Custom domain"
                  description="A host name such as www.example.com (no https://, no path). Leave empty to use the platform address only."
                  value={value}
                  onChange={(e) => setDraft(e.currentTarget.value)}
                  disabled={!canWrite}
                  error={domainError}
                />
                {canWrite && (
                  <Group>
                    <Button type="submit" loading={saveDomain.isPending} disabled={draft === undefined}>
                      Save domain
                    </Button>
                  </Group>
                )}
              </Stack>
            </form>
          </Card>
          {d.dns_record && (
            <Card withBorder>
              <Stack>
                <Title order={2} size="h4">
                  Record to create at your DNS provider
                </Title>
                <Table withTableBorder>
                  <Table.Thead>
                    <Table.Tr>
                      <Table.Th>Type</Table.Th>
                      <Table.Th>Name</Table.Th>
                      <Table.Th>Value</Table.Th>
                    </Table.Tr>
                  </Table.Thead>
                  <Table.Tbody>
                    <Table.Tr>
                      <Table.Td>{d.dns_record.type}</Table.Td>
                      <Table.Td>
                        <Code>{d.dns_record.name}</Code>
                      </Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Code>{d.dns_record.value}</Code>
                          <CopyButton value={d.dns_record.value ?? ''}>
                            {({ copied, copy }) => (
                              <Button size="compact-xs" variant="default" onClick={copy}>
                                {copied ? 'Copied' : 'Copy'}
                              </Button>
                            )}
                          </CopyButton>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  </Table.Tbody>
                </Table>
                {canWrite && (
                  <Group>
                    <Button onClick={() => verify.mutate()} loading={verify.isPending}>
                      Verify now
                    </Button>
                  </Group>
                )}
                <ApiErrorAlert error={verify.error} title="The check did not run" />
                {verify.data && (
                  <Alert role="status" color={verify.data.status === 'CONNECTED' ? 'teal' : 'orange'} title={`Checked: ${STATUS[verify.data.status ?? 'NOT_CONFIGURED'].label}`}>
                    {verify.data.status_detail ?? ''}
                  </Alert>
                )}
              </Stack>
            </Card>
          )}
        </>
      )}
    </Stack>
  );
}
