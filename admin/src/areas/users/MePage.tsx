import { useEffect, useState } from 'react';
import { Alert, Button, Checkbox, Container, Divider, Group, List, Loader, Paper, PasswordInput, Select, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { data, paginate, type Schemas } from '@siteplatform/sdk';
import { ApiErrorAlert, applyFieldErrors, fieldErrorsOf } from '../../lib/errors';
import { Shell } from '../../lib/layout/Shell';
import { usePageTitle } from '../../lib/layout/title';
import { session, useApi } from '../../lib/session';

const ME = { params: { path: { user_id: 'me' } } } as const;
const LOCALES = ['en', 'en-GB', 'de', 'de-CH', 'fr', 'es', 'it', 'nl', 'pt-BR', 'pl', 'sv', 'ja'].map((l) => ({ value: l, label: `${new Intl.DisplayNames(['en'], { type: 'language' }).of(l) ?? l} (${l})` }));
const TIME_ZONES = (() => {
  try {
    return (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
  } catch {
    return ['UTC', 'Europe/Berlin', 'Europe/London', 'America/New_York'];
  }
})();

/** The address change asked for and not confirmed yet, kept in this browser (the API does not list it). */
const pendingEmail = {
  key: (userId: string) => `siteplatform.pending-email.${userId}`,
  get(userId: string): { email: string; at: number } | undefined {
    try {
      const v = JSON.parse(localStorage.getItem(this.key(userId)) ?? 'null') as { email: string; at: number } | null;
      // The link is valid 24 hours.
      return v && Date.now() - v.at < 86_400_000 ? v : undefined;
    } catch {
      return undefined;
    }
  },
  set(userId: string, email: string | undefined) {
    if (email) localStorage.setItem(this.key(userId), JSON.stringify({ email, at: Date.now() }));
    else localStorage.removeItem(this.key(userId));
  },
};

/** The signed-in user: profile (name, locale, time zone), sign-in address, password, sessions, deleting the user. */
export function MePage() {
  usePageTitle('Profile and security');
  const api = useApi();
  const me = useQuery({ queryKey: ['users', 'me'], queryFn: () => data(api.GET('/tenant-api/v1/users/{user_id}', ME)) });
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
        <Stack gap="xl">
          <ProfileSection />
          {me.data && <EmailSection user={me.data} />}
          <PasswordSection />
          <SessionsSection />
          {me.data && <DeleteSection user={me.data} />}
        </Stack>
      </Container>
    </Shell>
  );
}

function ProfileSection() {
  const api = useApi();
  const qc = useQueryClient();
  const profile = useQuery({ queryKey: ['users', 'me', 'profile'], queryFn: () => data(api.GET('/tenant-api/v1/users/{user_id}/profile', ME)) });
  const form = useForm({ initialValues: { display_name: '', locale: '', time_zone: '' } });
  const [done, setDone] = useState(false);
  useEffect(() => {
    if (profile.data) form.setValues({ display_name: profile.data.display_name ?? '', locale: profile.data.locale ?? '', time_zone: profile.data.time_zone ?? '' });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [profile.data]);
  const save = useMutation({
    mutationFn: (v: typeof form.values) =>
      data(api.PATCH('/tenant-api/v1/users/{user_id}/profile', { ...ME, body: { display_name: v.display_name, locale: v.locale || null, time_zone: v.time_zone || null, etag: profile.data?.etag } })),
    onMutate: () => setDone(false),
    onSuccess: async (p) => {
      qc.setQueryData(['users', 'me', 'profile'], p);
      await qc.invalidateQueries({ queryKey: ['users', 'me'], exact: true });
      setDone(true);
    },
    onError: (err) => applyFieldErrors(form, err, ['display_name', 'locale', 'time_zone']),
  });
  return (
    <Section title="Profile">
      {profile.isPending && <Loader role="status" aria-label="Loading the profile" />}
      <ApiErrorAlert error={profile.error} title="The profile could not be loaded" />
      <form onSubmit={form.onSubmit((v) => save.mutate(v))} noValidate>
        <Stack maw={520}>
          <TextInput label="Your name" description="How other members see you, and how invitations you send are signed." maxLength={255} {...form.getInputProps('display_name')} />
          <SimpleGrid cols={{ base: 1, xs: 2 }}>
            <Select label="Language" data={LOCALES} searchable clearable {...form.getInputProps('locale')} value={form.values.locale || null} onChange={(v) => form.setFieldValue('locale', v ?? '')} />
            <Select label="Time zone" data={TIME_ZONES} searchable clearable limit={50} {...form.getInputProps('time_zone')} value={form.values.time_zone || null} onChange={(v) => form.setFieldValue('time_zone', v ?? '')} />
          </SimpleGrid>
          {done && <Alert color="green" role="status" title="Profile saved" />}
          {save.error !== null && Object.keys(form.errors).length === 0 && <ApiErrorAlert error={save.error} title="Not saved" />}
          <Group>
            <Button type="submit" loading={save.isPending} disabled={!profile.data}>
              Save profile
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function EmailSection({ user }: { user: Schemas['User'] }) {
  const api = useApi();
  const [pending, setPending] = useState(() => pendingEmail.get(user.id));
  useEffect(() => {
    // Confirmed meanwhile (the address is the new one): nothing pending any more.
    if (pending && pending.email === user.email) {
      pendingEmail.set(user.id, undefined);
      setPending(undefined);
    }
  }, [pending, user.email, user.id]);
  const form = useForm({ initialValues: { new_email: '', current_password: '' } });
  const change = useMutation({
    mutationFn: (v: typeof form.values) => data(api.POST('/tenant-api/v1/users/{user_id}:change_email', { ...ME, body: { new_email: v.new_email.trim(), current_password: v.current_password } })),
    onSuccess: (_, v) => {
      pendingEmail.set(user.id, v.new_email.trim().toLowerCase());
      setPending(pendingEmail.get(user.id));
      form.reset();
    },
    onError: (err) => applyFieldErrors(form, err, ['new_email', 'current_password']),
  });
  return (
    <Section title="Sign-in address">
      <Text>
        You sign in with <strong>{user.email}</strong>.
      </Text>
      {pending && (
        <Alert color="blue" title="Waiting for confirmation" role="status">
          A link was sent to <strong>{pending.email}</strong> (valid 24 hours). Your address stays {user.email} until you open it; a notice went to the current address too. Asking again replaces this request.
        </Alert>
      )}
      <form onSubmit={form.onSubmit((v) => change.mutate(v))} noValidate>
        <Stack maw={420}>
          <TextInput label="New address" type="email" autoComplete="email" required {...form.getInputProps('new_email')} />
          <PasswordInput label="Your password, to confirm" autoComplete="current-password" required {...form.getInputProps('current_password')} />
          {change.error !== null && Object.keys(form.errors).length === 0 && <ApiErrorAlert error={change.error} title="Not changed" />}
          <Group>
            <Button type="submit" loading={change.isPending}>
              Send confirmation link
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function PasswordSection() {
  const api = useApi();
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState(false);
  const [busy, setBusy] = useState(false);
  const form = useForm({ initialValues: { current_password: '', new_password: '' } });
  const submit = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    setDone(false);
    try {
      await data(api.POST('/tenant-api/v1/users/{user_id}:change_password', { ...ME, body: values }));
      form.reset();
      setDone(true);
    } catch (err) {
      if (!applyFieldErrors(form, err, ['current_password', 'new_password'])) setError(err);
    } finally {
      setBusy(false);
    }
  });
  return (
    <Section title="Change your password">
      <form onSubmit={submit} noValidate>
        <Stack maw={420}>
          {done && <Alert color="green" title="Password changed">Your other sessions were signed out.</Alert>}
          <ApiErrorAlert error={error} title="The password was not changed" />
          <PasswordInput label="Current password" autoComplete="current-password" required {...form.getInputProps('current_password')} />
          <PasswordInput label="New password" autoComplete="new-password" description="At least 8 characters, with a letter and a digit." required {...form.getInputProps('new_password')} />
          <Group>
            <Button type="submit" loading={busy}>
              Change password
            </Button>
          </Group>
        </Stack>
      </form>
    </Section>
  );
}

function SessionsSection() {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const end = useMutation({
    mutationFn: () => data(api.POST('/tenant-api/v1/users:sign_out_everywhere', {})),
    onSuccess: async () => {
      qc.clear();
      await navigate({ to: '/sign-in', replace: true });
      session.signOut();
    },
  });
  return (
    <Section title="Sessions">
      <Text>Signed in on a computer you no longer use, or lost a phone? End every session, this one included: everyone signs in again with the password.</Text>
      <ApiErrorAlert error={end.error} title="Sessions not ended" />
      <Group>
        <Button variant="default" loading={end.isPending} onClick={() => end.mutate()}>
          Sign out on every device
        </Button>
      </Group>
    </Section>
  );
}

interface AccountFate {
  account: Schemas['Account'];
  fate: 'DELETED' | 'CHOOSE' | 'LEFT';
  others: { user: string; label: string }[];
}

/** What deleting the user does to each account: deleted with it (only member), needs a choice (only administrator), or simply left. */
function useAccountFates(enabled: boolean) {
  const api = useApi();
  return useQuery({
    queryKey: ['users', 'me', 'account-fates'],
    enabled,
    queryFn: async () => {
      const fates: AccountFate[] = [];
      for await (const account of paginate(api, '/tenant-api/v1/accounts', {})) {
        const access = await data(api.POST('/tenant-api/v1/accounts/{account_id}/members:my_access', { params: { path: { account_id: account.id } } }));
        if (!access.administrator) {
          fates.push({ account, fate: 'LEFT', others: [] });
          continue;
        }
        const members = await data(api.GET('/tenant-api/v1/accounts/{account_id}/members', { params: { path: { account_id: account.id }, query: { page_size: 100 } } }));
        const me = await data(api.GET('/tenant-api/v1/users/{user_id}', ME));
        const others = members.members.filter((m) => m.user !== me.name);
        const otherAdmin = others.some((m) => m.role === 'roles/administrator');
        fates.push({
          account,
          fate: members.total_size <= 1 ? 'DELETED' : otherAdmin ? 'LEFT' : 'CHOOSE',
          others: others.map((m) => ({ user: m.user ?? `users/${m.id}`, label: m.display_name || m.email || m.id })),
        });
      }
      return fates;
    },
  });
}

function DeleteSection({ user }: { user: Schemas['User'] }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const fates = useAccountFates(open);
  const [typed, setTyped] = useState('');
  const [password, setPassword] = useState('');
  const [understood, setUnderstood] = useState(false);
  const [choices, setChoices] = useState<Record<string, string>>({});
  const choosing = (fates.data ?? []).filter((f) => f.fate === 'CHOOSE');
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.POST('/tenant-api/v1/users/{user_id}/profile:delete_account', {
          ...ME,
          body: {
            current_password: password,
            account_actions: choosing.map((f) => {
              const choice = choices[f.account.id] ?? 'DELETE_ACCOUNT';
              return choice === 'DELETE_ACCOUNT' ? { account: `accounts/${f.account.id}`, action: 'DELETE_ACCOUNT' as const } : { account: `accounts/${f.account.id}`, action: 'TRANSFER' as const, new_administrator: choice };
            }),
          },
        }),
      ),
    onSuccess: async () => {
      qc.clear();
      await navigate({ to: '/sign-in', replace: true });
      session.signOut();
    },
  });
  const errors = fieldErrorsOf(remove.error);
  const confirmed = typed.trim().toLowerCase() === user.email?.toLowerCase() && password !== '' && understood;
  return (
    <Section title="Delete your user" danger>
      <Text>Deleting your user cannot be undone.</Text>
      {!open ? (
        <Group>
          <Button variant="default" color="red" onClick={() => setOpen(true)}>
            Delete my user…
          </Button>
        </Group>
      ) : (
        <Stack>
          <Text fw={600}>What happens:</Text>
          <List size="sm" spacing={4}>
            <List.Item>Your profile, memberships and every session go at once; you are signed out everywhere.</List.Item>
            <List.Item>Pages, posts, media and anything else you wrote stay with their account.</List.Item>
            <List.Item>Pending invitation and confirmation links you sent or received stop working.</List.Item>
          </List>
          {fates.isPending && <Loader size="sm" role="status" aria-label="Loading your accounts" />}
          <ApiErrorAlert error={fates.error} title="Your accounts could not be loaded" />
          {fates.data && fates.data.length > 0 && (
            <Stack gap="xs">
              <Text fw={600}>Your accounts:</Text>
              {fates.data.map((f) => (
                <Paper key={f.account.id} withBorder p="xs">
                  <Text fw={500}>{f.account.display_name ?? f.account.id}</Text>
                  {f.fate === 'DELETED' && <Text size="sm">You are its only member: it is deleted with its projects and websites.</Text>}
                  {f.fate === 'LEFT' && <Text size="sm">You leave it; it carries on without you.</Text>}
                  {f.fate === 'CHOOSE' && (
                    <Select
                      label="You are its only administrator: what happens to it?"
                      data={[{ value: 'DELETE_ACCOUNT', label: 'Delete it with everything in it' }, ...f.others.map((o) => ({ value: o.user, label: `Make ${o.label} its administrator` }))]}
                      value={choices[f.account.id] ?? 'DELETE_ACCOUNT'}
                      onChange={(v) => v && setChoices({ ...choices, [f.account.id]: v })}
                      allowDeselect={false}
                    />
                  )}
                </Paper>
              ))}
            </Stack>
          )}
          <Checkbox label="I understand that this cannot be undone" checked={understood} onChange={(e) => setUnderstood(e.currentTarget.checked)} />
          <TextInput label={`Type your address (${user.email}) to confirm`} value={typed} onChange={(e) => setTyped(e.currentTarget.value)} autoComplete="off" />
          <PasswordInput label="Your password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.currentTarget.value)} error={errors.current_password} />
          {!errors.current_password && <ApiErrorAlert error={remove.error} title="Not deleted" />}
          <Group>
            <Button color="red" disabled={!confirmed || fates.isPending} loading={remove.isPending} onClick={() => remove.mutate()}>
              Delete my user for good
            </Button>
            <Button variant="default" onClick={() => setOpen(false)}>
              Keep my user
            </Button>
          </Group>
        </Stack>
      )}
    </Section>
  );
}

function Section({ title, danger, children }: { title: string; danger?: boolean; children: React.ReactNode }) {
  return (
    <section aria-label={title}>
      <Divider mb="md" color={danger ? 'red.3' : undefined} />
      <Title order={2} size="h3" mb="sm">
        {title}
      </Title>
      <Stack gap="sm">{children}</Stack>
    </section>
  );
}
