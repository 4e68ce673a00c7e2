import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';

/** A loopback stand-in of the siteverify wire protocol (form POST → {success}). */
let standIn: Server;
let verifyUrl: string;
const received: URLSearchParams[] = [];

beforeAll(async () => {
  standIn = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      received.push(form);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ success: form.get('secret') === 'provider-secret' && form.get('response') === 'human' }));
    });
  });
  await new Promise<void>((resolve) => standIn.listen(0, '127.0.0.1', resolve));
  verifyUrl = `http://127.0.0.1:${(standIn.address() as { port: number }).port}/siteverify`;
});
afterAll(() => new Promise<void>((resolve) => standIn.close(() => resolve())));

const signUpBody = (captcha: string) => ({
  email: `c-${Math.random().toString(36).slice(2, 10)}@example.com`,
  password: 'analytical9',
  website_name: 'Captcha Site',
  default_language: 'en',
  captcha_token: captcha,
});

for (const provider of ['turnstile', 'hcaptcha', 'recaptcha'] as const) {
  describe(`sign-up with CAPTCHA_PROVIDER=${provider}`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ CAPTCHA_PROVIDER: provider, CAPTCHA_SECRET: 'provider-secret', CAPTCHA_VERIFY_URL: verifyUrl });
    });
    afterAll(() => t?.close());

    it('a token the provider confirms signs up (201) and the provider saw the secret and the token', async () => {
      const before = received.length;
      const res = await t.request('POST', '/site-api/v1/users', { body: signUpBody('human') });
      expect(res.statusCode, res.body).toBe(201);
      expect(received.length).toBe(before + 1);
      expect(received[before].get('secret')).toBe('provider-secret');
      expect(received[before].get('response')).toBe('human');
    });

    it('a token the provider refuses answers 403 PERMISSION_DENIED with reason CAPTCHA_FAILED and creates nothing', async () => {
      const body = signUpBody('robot');
      const res = await t.request('POST', '/site-api/v1/users', { body });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.status).toBe('PERMISSION_DENIED');
      expect(res.json().error.details).toContainEqual({ type: 'PRECONDITION_FAILURE', reason: 'CAPTCHA_FAILED' });
      const check = await t.request('POST', '/site-api/v1/users:check_email_availability', { body: { email: body.email, captcha_token: 'human' } });
      expect(check.json()).toEqual({ available: true });
    });
  });
}

describe('sign-up when the bot-check provider cannot be reached', () => {
  let t: TestApp;
  beforeAll(async () => {
    // A port nothing listens on: bind one, note it, close it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    t = await startTestApp({ CAPTCHA_PROVIDER: 'turnstile', CAPTCHA_SECRET: 'provider-secret', CAPTCHA_VERIFY_URL: `http://127.0.0.1:${port}/siteverify` });
  });
  afterAll(() => t?.close());

  it('answers 503 UNAVAILABLE without leaking the provider secret', async () => {
    const res = await t.request('POST', '/site-api/v1/users', { body: signUpBody('human') });
    expect(res.statusCode).toBe(503);
    expect(res.json().error.status).toBe('UNAVAILABLE');
    expect(res.body).not.toContain('provider-secret');
  });
});
