import { useState } from 'react';
import { Alert, Button, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from '@tanstack/react-router';
import { anonymousApi, ApiError, data } from '../../lib/api';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { useHashToken } from '../../lib/hash-token';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';
import { session, useSession } from '../../lib/session';
import { queryClient } from '../../routes';

/**
 * The mailed link `/accept-invitation#token=…` → `invitations:accept`. Signed in: the signed-in
 * user joins (when the invitation is for their address). Not signed in: a new address creates its
 * user with a password and display name and is signed in; an address that has a user signs in
 * first (SIGN_IN_REQUIRED) and comes back here with the token.
 */
export function AcceptInvitationPage() {
  const token = useHashToken();
  const current = useSession();
  const navigate = useNavigate();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const form = useForm({ initialValues: { display_name: '', password: '' } });
  const back = `/accept-invitation#token=${encodeURIComponent(token ?? '')}`;

  const joined = async (accountId: string) => {
    await queryClient.invalidateQueries();
    await navigate({ to: '/a/$accountId', params: { accountId } });
  };

  const accept = async (values?: { display_name: string; password: string }) => {
    setBusy(true);
    setError(undefined);
    try {
      const client = current?.client ?? anonymousApi();
      const answer = await data(client.POST('/tenant-api/v1/invitations:accept', { body: { invitation_token: token ?? '', ...(current ? {} : values) } }));
      if (answer.token && answer.expire_time) session.signedIn({ token: answer.token, expire_time: answer.expire_time });
      await joined(answer.member.name.split('/')[1]!);
    } catch (err) {
      if (!applyFieldErrors(form, err, ['display_name', 'password'])) setError(err);
    } finally {
      setBusy(false);
    }
  };

  const signInFirst = ApiError.is(error) && error.reason === 'SIGN_IN_REQUIRED';
  return (
    <PublicPage title="Join the team">
      <Stack>
        {!token && <Alert color="red" title="This link is incomplete">Open the link from the invitation mail again.</Alert>}
        {signInFirst ? (
          <Alert color="blue" title="Sign in to accept">
            This address already has an account. Sign in, and the invitation is accepted.
            <Text mt="sm">
              <AnchorLink to="/sign-in" search={{ redirect: back }}>
                Sign in to accept
              </AnchorLink>
            </Text>
          </Alert>
        ) : (
          <ApiErrorAlert error={error} title="The invitation was not accepted" />
        )}
        {token && current && (
          <>
            <Text>You are signed in; accept the invitation with this account?</Text>
            <Button onClick={() => void accept()} loading={busy}>
              Accept the invitation
            </Button>
          </>
        )}
        {token && !current && !signInFirst && (
          <form onSubmit={form.onSubmit((values) => void accept(values))} noValidate>
            <Stack>
              <Text size="sm">
                New here? Choose your name and a password. Already have an account?{' '}
                <AnchorLink to="/sign-in" search={{ redirect: back }}>
                  Sign in first
                </AnchorLink>
                .
              </Text>
              <TextInput label="Your name" autoComplete="name" {...form.getInputProps('display_name')} />
              <PasswordInput label="Password" autoComplete="new-password" description="At least 8 characters, with a letter and a digit." {...form.getInputProps('password')} />
              <Button type="submit" loading={busy}>
                Accept the invitation
              </Button>
            </Stack>
          </form>
        )}
      </Stack>
    </PublicPage>
  );
}
