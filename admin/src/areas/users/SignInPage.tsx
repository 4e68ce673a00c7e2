import { useState } from 'react';
import { Alert, Button, Group, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate, useSearch } from '@tanstack/react-router';
import { anonymousApi, data } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { PublicPage } from '../../lib/layout/PublicPage';
import { session } from '../../lib/session';
import { AnchorLink } from '../../lib/layout/links';

export function SignInPage() {
  const search = useSearch({ from: '/sign-in' });
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [expired] = useState(() => session.expiredReason);
  const form = useForm({ initialValues: { email: '', password: '' } });

  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    try {
      const token = await data(anonymousApi().POST('/tenant-api/v1/users:authenticate', { body: values }));
      session.signedIn(token);
      // `href`: the way back may carry a fragment (an invitation's token).
      await navigate({ href: search.redirect ?? '/', replace: true });
    } catch (err) {
      if (!applyFieldErrors(form, err, ['email', 'password'])) setError(err);
    } finally {
      setBusy(false);
    }
  });

  return (
    <PublicPage title="Sign in">
      <form onSubmit={submit} noValidate>
        <Stack>
          {expired && !error && <Alert color="yellow">{expired}</Alert>}
          <ApiErrorAlert error={error} title="Could not sign in" />
          <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} />
          <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
          <Button type="submit" loading={busy}>
            Sign in
          </Button>
          <Group justify="space-between">
            <AnchorLink to="/forgot-password" size="sm">
              Forgot your password?
            </AnchorLink>
            <Text size="sm">
              New here?{' '}
              <AnchorLink to="/sign-up">
                Create a website
              </AnchorLink>
            </Text>
          </Group>
        </Stack>
      </form>
    </PublicPage>
  );
}
