import { useState } from 'react';
import { Alert, Button, Container, Loader, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { data } from '@siteplatform/sdk';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { Shell } from '../../lib/layout/Shell';
import { usePageTitle } from '../../lib/layout/title';
import { useApi } from '../../lib/session';

/** The signed-in user: who they are, changing the password (`users/me:change_password`). */
export function MePage() {
  usePageTitle('Profile and security');
  const api = useApi();
  const me = useQuery({ queryKey: ['users', 'me'], queryFn: () => data(api.GET('/tenant-api/v1/users/{user_id}', { params: { path: { user_id: 'me' } } })) });
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const form = useForm({ initialValues: { current_password: '', new_password: '' } });
  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await data(api.POST('/tenant-api/v1/users/{user_id}:change_password', { params: { path: { user_id: 'me' } }, body: values }));
      form.reset();
      setDone(true);
    } catch (err) {
      if (!applyFieldErrors(form, err, ['current_password', 'new_password'])) setError(err);
    } finally {
      setBusy(false);
    }
  });
  return (
    <Shell>
      <Container size="sm" py="md">
        <Title order={1} mb="lg">
          Profile and security
        </Title>
        <ApiErrorAlert error={me.error} />
        {me.isPending && <Loader role="status" aria-label="Loading" />}
        {me.data && (
          <Text mb="xl">
            Signed in as <strong>{me.data.email}</strong>
            {me.data.display_name ? ` (${me.data.display_name})` : ''}.
          </Text>
        )}
        <Title order={2} size="h3" mb="sm">
          Change your password
        </Title>
        <form onSubmit={submit} noValidate>
          <Stack maw={420}>
            {done && <Alert color="green" title="Password changed">Your other sessions were signed out.</Alert>}
            <ApiErrorAlert error={error} title="The password was not changed" />
            <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('current_password')} />
            <PasswordInput label="New password" autoComplete="new-password" description="At least 8 characters, with a letter and a digit." required {...form.getInputProps('new_password')} />
            <Button type="submit" loading={busy}>
              Change password
            </Button>
          </Stack>
        </form>
      </Container>
    </Shell>
  );
}
