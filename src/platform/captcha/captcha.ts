/**
 * The bot check of the sign-up surface: one interface over the embedded `static` check and the
 * three hosted providers (Cloudflare Turnstile, hCaptcha, Google reCAPTCHA), which all speak the
 * same `siteverify` wire protocol: a form-encoded POST of `secret`, `response` and optional
 * `remoteip`, answered by JSON `{success: boolean, "error-codes"?: string[], ...}`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../../config.js';
import { InvalidArgument, PermissionDenied, Unavailable } from '../errors.js';

/** Checks one `captcha_token`; resolves when it passes and rejects with an `ApiError` otherwise. */
export interface CaptchaVerifier {
  verify(token: unknown, remoteIp: string | undefined): Promise<void>;
}

/** Options of `createCaptchaVerifier`; `fetch` replaces Node's global fetch. */
export interface CaptchaVerifierOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The public verify endpoint of each hosted provider, used unless `CAPTCHA_VERIFY_URL` overrides it. */
export const DEFAULT_VERIFY_URLS = {
  turnstile: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
  hcaptcha: 'https://api.hcaptcha.com/siteverify',
  recaptcha: 'https://www.google.com/recaptcha/api/siteverify',
} as const;

/** Longest token accepted; real tokens are a few KB at most, so anything longer is refused before any call. */
export const MAX_TOKEN_LENGTH = 4096;

const DEFAULT_TIMEOUT_MS = 5_000;
const FIELD = 'captcha_token';

/** Builds the verifier the configuration names. */
export function createCaptchaVerifier(config: Config['captcha'], opts: CaptchaVerifierOptions = {}): CaptchaVerifier {
  if (config.provider === 'static') return staticVerifier(config.secret);
  return siteverifyVerifier({
    url: config.verifyUrl ?? DEFAULT_VERIFY_URLS[config.provider],
    secret: config.secret,
    fetch: opts.fetch ?? globalThis.fetch,
    timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
}

/** The shape checks every provider shares; returns the token once it is a usable string. */
function requireToken(token: unknown): string {
  if (token === undefined || token === null || token === '') throw InvalidArgument.field(FIELD, 'is required');
  if (typeof token !== 'string') throw InvalidArgument.field(FIELD, 'must be a string');
  if (token.length > MAX_TOKEN_LENGTH) {
    throw InvalidArgument.field(FIELD, `must be at most ${MAX_TOKEN_LENGTH} characters`);
  }
  return token;
}

function botCheckFailed(): PermissionDenied {
  return new PermissionDenied('the bot check failed', 'CAPTCHA_FAILED');
}

function providerUnavailable(): Unavailable {
  return new Unavailable('bot check provider unreachable', 'CAPTCHA_UNAVAILABLE');
}

/** Embedded default: the configured secret is the one token that passes. */
function staticVerifier(secret: string): CaptchaVerifier {
  // Comparing fixed-length digests keeps the comparison constant-time without leaking the secret's length.
  const expected = sha256(secret);
  return {
    async verify(token) {
      const candidate = requireToken(token);
      if (!timingSafeEqual(sha256(candidate), expected)) throw botCheckFailed();
    },
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

interface SiteverifyTarget {
  url: string;
  secret: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

/** Turnstile, hCaptcha and reCAPTCHA: they differ only in the endpoint, so one client serves all three. */
function siteverifyVerifier(target: SiteverifyTarget): CaptchaVerifier {
  return {
    async verify(token, remoteIp) {
      const response = requireToken(token);
      const form = new URLSearchParams({ secret: target.secret, response });
      if (remoteIp) form.set('remoteip', remoteIp);
      const verdict = await askProvider(target, form);
      if (verdict === undefined) throw providerUnavailable();
      if (!verdict) throw botCheckFailed();
    },
  };
}

/**
 * The provider's `success` verdict, or undefined when there is none. Every way of not getting a verdict
 * (network error, timeout, non-2xx, a body that is not the expected JSON) is the provider's fault, not the
 * visitor's, so the caller answers UNAVAILABLE rather than a failed check. The underlying error is dropped
 * on purpose: the request carries the secret, and nothing here may echo it.
 */
async function askProvider(target: SiteverifyTarget, form: URLSearchParams): Promise<boolean | undefined> {
  let body: string;
  try {
    // The signal also bounds reading the body, so a provider that stalls mid-answer times out too.
    const answer = await target.fetch(target.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(target.timeoutMs),
    });
    if (!answer.ok) {
      // Release the connection: the body of an error answer is of no use.
      await answer.body?.cancel().catch(() => undefined);
      return undefined;
    }
    body = await answer.text();
  } catch {
    return undefined;
  }
  try {
    const verdict: unknown = JSON.parse(body);
    const success = typeof verdict === 'object' && verdict !== null ? (verdict as { success?: unknown }).success : undefined;
    return typeof success === 'boolean' ? success : undefined;
  } catch {
    return undefined;
  }
}
