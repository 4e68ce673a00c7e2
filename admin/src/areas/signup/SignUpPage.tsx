import { useState } from 'react';
import { Button, Loader, PasswordInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useNavigate } from '@tanstack/react-router';
import { data, signupApi } from '../../lib/api';
import { CaptchaField, useCaptchaConfig } from '../../lib/captcha';
import { ApiErrorAlert, applyFieldErrors } from '../../lib/errors';
import { AnchorLink } from '../../lib/layout/links';
import { PublicPage } from '../../lib/layout/PublicPage';

/**
 * Sign-up in two steps, as the sign-up surface offers it: the address is checked first
 * (`users:check_email_availability`), then the rest signs up (`POST /site-api/v1/users`) and the
 * hand-off page follows the website's provisioning. Each step passes the bot check (hosted tokens
 * are single-use: the widget is rendered afresh for the second).
 */
export function SignUpPage() {
  const navigate = useNavigate();
  const captcha = useCaptchaConfig();
  const [step, setStep] = useState<'email' | 'details'>('email');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  // One request id per attempt: a retried submit answers the first one's result.
  const [requestId] = useState(() => crypto.randomUUID());
  const form = useForm({
    initialValues: { email: '', password: '', website_name: '', default_language: 'en', captcha_token: '' },
  });
  const fields = ['email', 'password', 'website_name', 'default_language', 'captcha_token'];

  const checkEmail = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = await data(signupApi().POST('/site-api/v1/users:check_email_availability', { body: { email: values.email, captcha_token: values.captcha_token } }));
      if (!answer.available) {
        form.setFieldError('email', 'This address already has an account. Sign in, or reset its password.');
      } else {
        setStep('details');
      }
    } catch (err) {
      if (!applyFieldErrors(form, err, fields)) setError(err);
    } finally {
      setBusy(false);
      if (captcha.data?.provider !== 'static') {
        form.setFieldValue('captcha_token', '');
        setRound((r) => r + 1);
      }
    }
  });

  const signUp = form.onSubmit(async (values) => {
    setBusy(true);
    setError(undefined);
    try {
      const user = await data(signupApi().POST('/site-api/v1/users', { body: { ...values, request_id: requestId } }));
      await navigate({ to: '/handoff', hash: new URLSearchParams({ token: user.signup_token, operation: user.operation }).toString() });
    } catch (err) {
      if (!applyFieldErrors(form, err, fields)) setError(err);
      if (captcha.data?.provider !== 'static') {
        form.setFieldValue('captcha_token', '');
        setRound((r) => r + 1);
      }
    } finally {
      setBusy(false);
    }
  });

  const captchaField = captcha.data && (
    <CaptchaField
      config={captcha.data}
      value={form.values.captcha_token}
      onToken={(token) => form.setFieldValue('captcha_token', token)}
      error={form.errors.captcha_token as string | undefined}
      resetKey={round}
    />
  );

  return (
    <PublicPage title="Create your website">
      {captcha.isPending && <Loader role="status" aria-label="Loading" />}
      <ApiErrorAlert error={captcha.error} />
      {captcha.data && step === 'email' && (
        <form onSubmit={checkEmail} noValidate>
          <Stack>
            <ApiErrorAlert error={error} title="Could not check the address" />
            <TextInput label="Email" type="email" autoComplete="email" required {...form.getInputProps('email')} />
            {captchaField}
            <Button type="submit" loading={busy}>
              Continue
            </Button>
            <Text size="sm">
              Already have an account? <AnchorLink to="/sign-in">Sign in</AnchorLink>
            </Text>
          </Stack>
        </form>
      )}
      {captcha.data && step === 'details' && (
        <form onSubmit={signUp} noValidate>
          <Stack>
            <ApiErrorAlert error={error} title="Could not sign up" />
            <Text size="sm">
              Signing up as <strong>{form.values.email}</strong>.{' '}
              <AnchorLink to="/sign-up" onClick={() => setStep('email')}>
                Change
              </AnchorLink>
            </Text>
            <PasswordInput label="Password" autoComplete="new-password" required description="At least 8 characters." {...form.getInputProps('password')} />
            <TextInput label="Website name" required {...form.getInputProps('website_name')} />
            <TextInput label="Website language" description="A language tag such as en, de or pt-BR." required {...form.getInputProps('default_language')} />
            {captchaField}
            <Button type="submit" loading={busy}>
              Create website
            </Button>
          </Stack>
        </form>
      )}
    </PublicPage>
  );
}
