/**
 * The bot check of the sign-up surface, rendered per the provider the server is configured with
 * (`GET /site-api/v1/captcha`): the hosted providers' widgets (Cloudflare Turnstile, hCaptcha,
 * reCAPTCHA, loaded from their own origins, explicit rendering) or, for the embedded `static`
 * check of development and tests, a field for its code.
 */
import { useEffect, useRef } from 'react';
import { Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { data, signupApi } from './api';

export interface CaptchaConfig {
  provider: 'static' | 'turnstile' | 'hcaptcha' | 'recaptcha';
  site_key?: string;
}

type Render = (el: HTMLElement, opts: { sitekey: string; callback: (token: string) => void; 'expired-callback'?: () => void }) => unknown;

const SCRIPTS: Record<Exclude<CaptchaConfig['provider'], 'static'>, { src: string; global: string }> = {
  turnstile: { src: 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit', global: 'turnstile' },
  hcaptcha: { src: 'https://js.hcaptcha.com/1/api.js?render=explicit', global: 'hcaptcha' },
  recaptcha: { src: 'https://www.google.com/recaptcha/api.js?render=explicit', global: 'grecaptcha' },
};

const loaded = new Map<string, Promise<void>>();
function loadScript(src: string): Promise<void> {
  let p = loaded.get(src);
  if (!p) {
    p = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.async = true;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error(`could not load ${src}`));
      document.head.appendChild(script);
    });
    loaded.set(src, p);
  }
  return p;
}

/** The widget; `onToken('')` when a hosted token expired. `resetKey` renders a fresh widget (tokens are single-use). */
export function CaptchaField({ config, value, onToken, error, resetKey }: { config: CaptchaConfig; value: string; onToken: (token: string) => void; error?: string; resetKey?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (config.provider === 'static' || !box.current || !config.site_key) return;
    const { src, global } = SCRIPTS[config.provider];
    const el = box.current;
    let cancelled = false;
    void loadScript(src).then(async () => {
      // reCAPTCHA and hCaptcha define their global a moment after the script's load event.
      for (let i = 0; i < 50 && !(window as any)[global]?.render; i++) await new Promise((r) => setTimeout(r, 100));
      if (cancelled) return;
      el.innerHTML = '';
      ((window as any)[global].render as Render)(el, { sitekey: config.site_key!, callback: onToken, 'expired-callback': () => onToken('') });
    });
    return () => {
      cancelled = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [config.provider, config.site_key, resetKey]);

  if (config.provider === 'static') {
    return (
      <TextInput
        label="Bot check"
        description="This server uses the built-in check of development and tests: enter its code (CAPTCHA_SECRET)."
        value={value}
        onChange={(e) => onToken(e.currentTarget.value)}
        error={error}
        required
        autoComplete="off"
      />
    );
  }
  return (
    <div>
      <div ref={box} aria-label="Bot check" role="group" />
      {error && (
        <Text c="red.9" size="sm" role="alert">
          {error}
        </Text>
      )}
    </div>
  );
}

/** The provider and site key the server verifies with (`GET /site-api/v1/captcha`). */
export function useCaptchaConfig() {
  return useQuery({
    queryKey: ['captcha'],
    queryFn: () => data(signupApi().GET('/site-api/v1/captcha')) as Promise<CaptchaConfig>,
    staleTime: Infinity,
  });
}
