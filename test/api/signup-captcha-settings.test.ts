/**
 * `GET /site-api/v1/captcha`: what a sign-up form (the admin's) renders as its bot check, the
 * provider and its public site key, never the secret; it needs no bot check itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { expectStatus } from '../support/fixtures.js';

describe('the bot check a sign-up form renders', () => {
  let plain: TestApp;
  let hosted: TestApp;
  beforeAll(async () => {
    plain = await startTestApp();
    hosted = await startTestApp({ CAPTCHA_PROVIDER: 'turnstile', CAPTCHA_SECRET: 'the-secret-key', CAPTCHA_SITE_KEY: '1x00000000000000000000AA' });
  });
  afterAll(async () => {
    await plain?.close();
    await hosted?.close();
  });

  it('answers the static provider without a site key by default, and without a bot check', async () => {
    expect(expectStatus(await plain.request('GET', '/site-api/v1/captcha'), 200)).toEqual({ provider: 'static' });
  });

  it('answers the hosted provider and its site key, never the secret', async () => {
    const res = await hosted.request('GET', '/site-api/v1/captcha');
    expect(expectStatus(res, 200)).toEqual({ provider: 'turnstile', site_key: '1x00000000000000000000AA' });
    expect(res.body).not.toContain('the-secret-key');
  });
});
