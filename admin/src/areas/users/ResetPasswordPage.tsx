import { useState } from 'react';
import { Alert, Button, PasswordInput, Stack } from '@mantine/core';
import { useForm } from '@mantine/form';
import { anonymousApi, data } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { useHashToken } from '../../lib/hash-token';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';
import { session } from '../../lib/session';

/** The mailed link `/reset-password#token=…` → `users:reset_password`, which ends every session. */
export function ResetPasswordPage() {
  const token = useHashToken();
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useForm({ initialValues: { new_password: '' } });
  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    try {
      await data(anonymousApi().POST('/tenant-api/v1/users:reset_password', { body: { token: token ?? '', new_password: values.new_password } }));
      // Every session of the user ended with the reset, this one too.
      session.signOut();
      setDone(true);
    } catch (err) {
      if (!applyFieldErrors(form, err, ['new_password'])) setError(err);
    } finally {
      setBusy(false);
    }
  });
  return (
    <PublicPage title="Choose a new password">
      {done ? (
        <Stack>
          <Alert color="green" title="Password changed">
            Your new password works from now on; every device you were signed in on has to sign in again.
          </Alert>
          <AnchorLink to="/sign-in">Sign in</AnchorLink>
        </Stack>
      ) : !token ? (
        <Stack>
          <Alert color="red" title="This link is incomplete">
            Open the link from the mail again, or ask for a new one.
          </Alert>
          <AnchorLink to="/forgot-password">Ask for a new link</AnchorLink>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack>
            <ApiErrorAlert error={error} title="The password was not changed" />
            <PasswordInput label="New password" autoComplete="new-password" description="At least 8 characters, with a letter and a digit." required {...form.getInputProps('new_password')} />
            <Button type="submit" loading={busy}>
              Set the password
            </Button>
            {!!error && <AnchorLink to="/forgot-password">Ask for a new link</AnchorLink>}
          </Stack>
        </form>
      )}
    </PublicPage>
  );
}
