import { useEffect, useState } from 'react';
import { Button, List, Loader, Progress, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { anonymousApi, ApiError, data } from '../../lib/api';
import { ApiErrorAlert } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';
import { lastWebsite, session, useSession } from '../../lib/session';
import { myWebsites } from '@siteplatform/sdk';

/** Names of the provisioning steps (`metadata.step`), for people. */
const STEP_LABELS: Record<string, string> = {
  DEFAULT_VIEW: 'Language and address',
  DEFAULT_SETTINGS: 'Settings',
  DEFAULT_THEME: 'Theme',
  MAIN_MENU: 'Main menu',
  HOME_PAGE: 'Home page',
  DEFAULT_PAGES: 'Pages',
  DEFAULT_EMAIL_TEMPLATES: 'Email templates',
};
const label = (step: string) => STEP_LABELS[step] ?? step.charAt(0) + step.slice(1).toLowerCase().replace(/_/g, ' ');

/**
 * The sign-up hand-off: `/handoff#token={signup_token}` (and `&operation=websites/{w}/operations/{o}`
 * from our own sign-up form). Trades the one-time token for a session (`users:exchange_handoff`),
 * follows the provisioning Operation through the tenant API, step by step, then opens the website.
 */
export function HandoffPage() {
  const navigate = useNavigate();
  const current = useSession();
  const [params] = useState(() => new URLSearchParams(window.location.hash.slice(1)));
  const [operation, setOperation] = useState(params.get('operation') ?? undefined);
  const [error, setError] = useState<unknown>();
  const [steps, setSteps] = useState<string[]>([]);

  // The token leaves the address bar at once (history, screenshots).
  useEffect(() => {
    if (window.location.hash) window.history.replaceState(null, '', window.location.pathname);
  }, []);

  useEffect(() => {
    const token = params.get('token');
    if (!token) {
      setError(new Error('This link has no sign-up token. Open the link from your sign-up again, or sign in.'));
      return;
    }
    let cancelled = false;
    void (async () => {
      try {
        const answer = await data(anonymousApi().POST('/tenant-api/v1/users:exchange_handoff', { body: { signup_token: token } }));
        if (cancelled) return;
        session.signedIn(answer as { token: string; expire_time: string });
        if (!params.get('operation')) {
          // A hand-off from elsewhere: the new user's one website names its provisioning Operation.
          for await (const { website } of myWebsites(session.current!.client)) {
            if (website.operation) {
              setOperation(website.operation);
              break;
            }
          }
        }
      } catch (err) {
        if (!cancelled) setError(err);
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [params]);

  const match = operation ? /^websites\/([^/]+)\/operations\/([^/]+)$/.exec(operation) : null;
  const websiteId = match?.[1];
  const op = useQuery({
    queryKey: ['operations', operation],
    enabled: !!current && !!match,
    queryFn: () => data(current!.client.GET('/tenant-api/v1/websites/{website_id}/operations/{operation_id}', { params: { path: { website_id: match![1], operation_id: match![2] } } })),
    refetchInterval: (q) => (q.state.data?.done ? false : 500),
  });

  const step = op.data?.metadata.step;
  useEffect(() => {
    if (step) setSteps((seen) => (seen.includes(step) ? seen : [...seen, step]));
  }, [step]);

  const done = op.data?.done && !op.data.error;
  useEffect(() => {
    if (done && websiteId) {
      lastWebsite.set(websiteId);
      void navigate({ to: '/w/$websiteId', params: { websiteId }, replace: true });
    }
  }, [done, websiteId, navigate]);

  const failed = op.data?.done && op.data.error ? new ApiError(op.data.error as never) : undefined;
  const percent = op.data?.metadata.progress_percent;
  return (
    <PublicPage title="Setting up your website">
      <Stack>
        <ApiErrorAlert error={error ?? op.error} title="The hand-off did not work" />
        <ApiErrorAlert error={failed} title="Your website could not be set up" />
        {!error && !failed && (
          <>
            <div aria-live="polite">
              <Text>{step ? `Now: ${label(step)}` : 'Starting…'}</Text>
            </div>
            {percent !== undefined ? <Progress value={percent} aria-label="Progress" /> : <Loader role="status" aria-label="Working" />}
            {steps.length > 0 && (
              <List aria-label="Steps">
                {steps.map((s) => (
                  <List.Item key={s}>
                    {label(s)} {s === step && !op.data?.done ? '(in progress)' : '(done)'}
                  </List.Item>
                ))}
              </List>
            )}
          </>
        )}
        {(error || failed) && (
          <Button component={AnchorLink} to={current ? '/websites' : '/sign-in'} variant="default">
            {current ? 'Go to your websites' : 'Sign in'}
          </Button>
        )}
      </Stack>
    </PublicPage>
  );
}
