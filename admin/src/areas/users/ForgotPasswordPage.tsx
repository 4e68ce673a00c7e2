import { useState } from 'react';
import { Alert, Button, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { anonymousApi, data } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';

/** `users:request_password_reset`: the mail goes out if the address has an account (the answer never says). */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useForm({ initialValues: { email: '' } });
  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    try {
      await data(anonymousApi().POST('/tenant-api/v1/users:request_password_reset', { body: values }));
      setSent(true);
    } catch (err) {
      if (!applyFieldErrors(form, err, ['email'])) setError(err);
    } finally {
      setBusy(false);
    }
  });
  return (
    <PublicPage title="Reset your password">
      {sent ? (
        <Stack>
          <Alert color="green" title="Check your mail">
            If {form.values.email} has an account, a link to choose a new password is on its way. It works for an hour.
          </Alert>
          <AnchorLink to="/sign-in">Back to sign-in</AnchorLink>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <ApiErrorAlert error={error} />
            <Text size="sm">Enter the address you sign in with; we mail you a link to choose a new password.</Text>
            <TextInput label="Email" type="email" autoComplete="username" required {...form.getInputProps('email')} />
            <Button type="submit" loading={busy}>
              Send the link
            </Button>
            <AnchorLink to="/sign-in" size="sm">
              Back to sign-in
            </AnchorLink>
          </Stack>
        </form>
      )}
    </PublicPage>
  );
}
