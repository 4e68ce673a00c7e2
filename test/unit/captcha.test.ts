// Database-free: runs unchanged in both vitest projects. The hosted providers are exercised against a real
// loopback HTTP stand-in of their shared `siteverify` wire protocol.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { createCaptchaVerifier, DEFAULT_VERIFY_URLS, MAX_TOKEN_LENGTH } from '../../src/platform/captcha/captcha.js';
import { ApiError, InvalidArgument, PermissionDenied, Unavailable } from '../../src/platform/errors.js';

const SECRET = 'stand-in-provider-secret-0x5EC12E7';
const HOSTED = ['turnstile', 'hcaptcha', 'recaptcha'] as const;
const STATIC: Config['captcha'] = { provider: 'static', secret: 'dev-captcha', verifyUrl: undefined };

/** One request as the stand-in received it. */
interface Received {
  method: string | undefined;
  path: string | undefined;
  contentType: string | undefined;
  form: URLSearchParams;
}

/**
 * The stand-in provider. `/siteverify` behaves like the real endpoint (refusing anything but a form-encoded
 * POST carrying the right secret); the other paths misbehave in the ways a real provider can.
 */
let server: Server;
let baseUrl: string;
const received: Received[] = [];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function standIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const contentType = req.headers['content-type'];
  const form = new URLSearchParams(await readBody(req));
  received.push({ method: req.method, path: req.url, contentType, form });

  switch (req.url) {
    case '/siteverify': {
      if (req.method !== 'POST' || !contentType?.startsWith('application/x-www-form-urlencoded')) {
        return sendJson(res, 405, { success: false, 'error-codes': ['bad-request'] });
      }
      if (form.get('secret') !== SECRET) return sendJson(res, 200, { success: false, 'error-codes': ['invalid-input-secret'] });
      if (form.get('response') === 'good') return sendJson(res, 200, { success: true, hostname: 'example.test' });
      return sendJson(res, 200, { success: false, 'error-codes': ['invalid-input-response'] });
    }
    case '/error-500':
      return sendJson(res, 500, { success: true });
    case '/html':
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Service temporarily down</body></html>');
      return;
    case '/no-verdict':
      return sendJson(res, 200, { 'error-codes': [] });
    case '/slow': {
      const timer = setTimeout(() => sendJson(res, 200, { success: true }), 5_000);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    default:
      return sendJson(res, 404, { error: 'not found' });
  }
}

/** A port nothing listens on: bound once by us, then released. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected the bot check to be refused');
}

function expectNoSecret(err: ApiError, secret = SECRET): void {
  expect(err.message).not.toContain(secret);
  expect(JSON.stringify(err.details)).not.toContain(secret);
  expect(String(err.stack)).not.toContain(secret);
}

function expectCaptchaFailed(err: ApiError): void {
  expect(err).toBeInstanceOf(PermissionDenied);
  expect(err.status).toBe('PERMISSION_DENIED');
  expect(err.httpCode).toBe(403);
  expect(err.details).toEqual([{ type: 'PRECONDITION_FAILURE', reason: 'CAPTCHA_FAILED' }]);
  expectNoSecret(err);
}

function expectUnavailable(err: ApiError): void {
  expect(err).toBeInstanceOf(Unavailable);
  expect(err.status).toBe('UNAVAILABLE');
  expect(err.httpCode).toBe(503);
  expect(err.message).toBe('bot check provider unreachable');
  expect(err.details).toEqual([{ type: 'PRECONDITION_FAILURE', reason: 'CAPTCHA_UNAVAILABLE' }]);
  expectNoSecret(err);
}

function expectTokenViolation(err: ApiError, description: string): void {
  expect(err).toBeInstanceOf(InvalidArgument);
  expect(err.status).toBe('INVALID_ARGUMENT');
  expect(err.httpCode).toBe(400);
  expect(err.message).toContain('captcha_token');
  expect(err.details).toEqual([{ type: 'FIELD_VIOLATION', field: 'captcha_token', description }]);
}

function hosted(provider: (typeof HOSTED)[number], path = '/siteverify', secret = SECRET): Config['captcha'] {
  return { provider, secret, verifyUrl: `${baseUrl}${path}` };
}

beforeAll(async () => {
  server = createServer((req, res) => {
    standIn(req, res).catch((err: unknown) => res.destroy(err as Error));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
});

describe.each(HOSTED)('%s provider', (provider) => {
  it('passes a good token, sending a form-encoded POST with secret, response and remoteip', async () => {
    await createCaptchaVerifier(hosted(provider)).verify('good', '203.0.113.7');
    expect(received).toHaveLength(1);
    const [request] = received;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/siteverify');
    expect(request.contentType).toMatch(/^application\/x-www-form-urlencoded/);
    expect(Object.fromEntries(request.form)).toEqual({ secret: SECRET, response: 'good', remoteip: '203.0.113.7' });
  });

  it('leaves remoteip out when the client address is unknown', async () => {
    await createCaptchaVerifier(hosted(provider)).verify('good', undefined);
    expect(Object.fromEntries(received[0].form)).toEqual({ secret: SECRET, response: 'good' });
  });

  it('refuses a token the provider rejects with PERMISSION_DENIED / CAPTCHA_FAILED', async () => {
    expectCaptchaFailed(await rejection(createCaptchaVerifier(hosted(provider)).verify('bad', '203.0.113.7')));
    expect(received[0].form.get('response')).toBe('bad');
  });

  it('sends tokens with form-significant characters intact', async () => {
    const token = 'a+b=c&d%20e/f?g';
    expectCaptchaFailed(await rejection(createCaptchaVerifier(hosted(provider)).verify(token, undefined)));
    expect(received[0].form.get('response')).toBe(token);
  });
});

describe('hosted providers: answers that are no verdict', () => {
  it('is UNAVAILABLE when nothing listens at the verify URL', async () => {
    const config: Config['captcha'] = { provider: 'turnstile', secret: SECRET, verifyUrl: `http://127.0.0.1:${await closedPort()}/siteverify` };
    expectUnavailable(await rejection(createCaptchaVerifier(config).verify('good', undefined)));
  });

  it.each(HOSTED)('%s: is UNAVAILABLE when the provider answers 500', async (provider) => {
    expectUnavailable(await rejection(createCaptchaVerifier(hosted(provider, '/error-500')).verify('good', undefined)));
  });

  it('is UNAVAILABLE when the provider answers 404', async () => {
    expectUnavailable(await rejection(createCaptchaVerifier(hosted('hcaptcha', '/nowhere')).verify('good', undefined)));
  });

  it.each(HOSTED)('%s: is UNAVAILABLE when the provider answers HTML', async (provider) => {
    expectUnavailable(await rejection(createCaptchaVerifier(hosted(provider, '/html')).verify('good', undefined)));
  });

  it('is UNAVAILABLE when the JSON answer carries no boolean success', async () => {
    expectUnavailable(await rejection(createCaptchaVerifier(hosted('recaptcha', '/no-verdict')).verify('good', undefined)));
  });

  it('is UNAVAILABLE when the provider is slower than timeoutMs', async () => {
    const started = Date.now();
    const verifier = createCaptchaVerifier(hosted('turnstile', '/slow'), { timeoutMs: 200 });
    expectUnavailable(await rejection(verifier.verify('good', undefined)));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('treats a wrong secret as a failed check without revealing it', async () => {
    const wrongSecret = 'not-the-secret-the-provider-knows';
    const err = await rejection(createCaptchaVerifier(hosted('hcaptcha', '/siteverify', wrongSecret)).verify('good', undefined));
    expectCaptchaFailed(err);
    expectNoSecret(err, wrongSecret);
  });
});

describe('hosted providers: default endpoints', () => {
  it.each(HOSTED)('%s: posts to its public verify URL when no override is configured', async (provider) => {
    const urls: string[] = [];
    // A stand-in for the network itself, so the test never leaves the machine.
    const offline: typeof fetch = async (input) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ success: true }), { headers: { 'content-type': 'application/json' } });
    };
    await createCaptchaVerifier({ provider, secret: SECRET, verifyUrl: undefined }, { fetch: offline }).verify('good', undefined);
    expect(urls).toEqual([DEFAULT_VERIFY_URLS[provider]]);
  });

  it('uses the documented endpoints', () => {
    expect(DEFAULT_VERIFY_URLS).toEqual({
      turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
      hcaptcha: 'https://api.hcaptcha.com/siteverify',
      recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
    });
  });
});

describe('static provider', () => {
  // The static check is local: any network call would be a bug.
  const noNetwork: typeof fetch = async () => {
    throw new Error('the static provider must not call out');
  };
  const verifier = createCaptchaVerifier(STATIC, { fetch: noNetwork });

  it('passes exactly the configured secret', async () => {
    await expect(verifier.verify('dev-captcha', '203.0.113.7')).resolves.toBeUndefined();
  });

  it.each(['dev-captch', 'dev-captcha ', 'DEV-CAPTCHA', 'dev-captcha-and-more', 'x'])(
    'refuses %j with PERMISSION_DENIED / CAPTCHA_FAILED, not echoing the secret',
    async (token) => {
      const err = await rejection(verifier.verify(token, undefined));
      expectCaptchaFailed(err);
      expectNoSecret(err, 'dev-captcha');
    },
  );
});

describe.each(['static', ...HOSTED] as const)('%s: token shape', (provider) => {
  function verifier() {
    return createCaptchaVerifier(provider === 'static' ? STATIC : hosted(provider));
  }

  it.each([undefined, null, ''])('answers INVALID_ARGUMENT naming captcha_token for %j', async (token) => {
    expectTokenViolation(await rejection(verifier().verify(token, undefined)), 'is required');
    expect(received).toHaveLength(0);
  });

  it.each([42, true, ['good'], { token: 'good' }])('answers INVALID_ARGUMENT naming captcha_token for non-string %j', async (token) => {
    expectTokenViolation(await rejection(verifier().verify(token, undefined)), 'must be a string');
    expect(received).toHaveLength(0);
  });

  it('refuses a token longer than the limit before calling anyone', async () => {
    const err = await rejection(verifier().verify('g'.repeat(MAX_TOKEN_LENGTH + 1), undefined));
    expectTokenViolation(err, `must be at most ${MAX_TOKEN_LENGTH} characters`);
    expect(received).toHaveLength(0);
  });

  it('accepts a token of exactly the limit as far as shape goes', async () => {
    const err = await rejection(verifier().verify('g'.repeat(MAX_TOKEN_LENGTH), undefined));
    expectCaptchaFailed(err);
  });
});
