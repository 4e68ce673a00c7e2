import { Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useParams } from '@tanstack/react-router';
import { data } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { usePageTitle } from '../../lib/layout/title';

export function AccountHomePage() {
  const api = useApi();
  const { accountId } = useParams({ from: '/signed-in/a/$accountId/' });
  const account = useQuery({
    queryKey: ['accounts', accountId],
    queryFn: () => data(api.GET('/tenant-api/v1/accounts/{account_id}', { params: { path: { account_id: accountId } } })),
  });
  usePageTitle(account.data?.display_name ?? 'Account');
  return (
    <Stack>
      <ApiErrorAlert error={account.error} />
      <Title order={1}>{account.data?.display_name ?? 'Account'}</Title>
      <Text>The account's AI and team are in the navigation.</Text>
    </Stack>
  );
}
