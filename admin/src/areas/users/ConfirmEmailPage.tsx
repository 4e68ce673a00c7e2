import { useEffect, useState } from 'react';
import { Alert, Loader, Stack } from '@mantine/core';
import { anonymousApi, data } from '../../lib/api';
import { ApiErrorAlert } from '../../lib/errors';
import { useHashToken } from '../../lib/hash-token';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';
import { useSession } from '../../lib/session';

/** The mailed link `/confirm-email#token=…` → `users:confirm_email` (the token is the proof: no sign-in needed). */
export function ConfirmEmailPage() {
  const token = useHashToken();
  const current = useSession();
  const [state, setState] = useState<{ done?: boolean; error?: unknown }>({});
  useEffect(() => {
    if (!token) return;
    let cancelled = false;
    data(anonymousApi().POST('/tenant-api/v1/users:confirm_email', { body: { token } })).then(
      () => !cancelled && setState({ done: true }),
      (error) => !cancelled && setState({ error }),
    );
    return () => {
      cancelled = true;
    };
  }, [token]);
  return (
    <PublicPage title="Confirm your address">
      <Stack>
        {!token && <Alert color="red" title="This link is incomplete">Open the link from the mail again.</Alert>}
        {token && !state.done && !state.error && <Loader role="status" aria-label="Confirming" />}
        {state.done && (
          <Alert color="green" title="Address confirmed">
            You sign in with your new address from now on.
          </Alert>
        )}
        <ApiErrorAlert error={state.error} title="The address was not confirmed" />
        {(state.done || state.error || !token) && (current ? <AnchorLink to="/">Continue</AnchorLink> : <AnchorLink to="/sign-in">Sign in</AnchorLink>)}
      </Stack>
    </PublicPage>
  );
}
