import { hkdfSync, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

/** Everything the platform reads from its environment (RUNTIME.md is the contract). */
export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  signupBaseUrl: string;
  /** Where the admin UI lives (ADMIN_BASE_URL, default PUBLIC_BASE_URL): the host of every link in a mail. */
  adminBaseUrl: string;
  /** Outgoing mail: SMTP_URL (unset: `.eml` files in DATA_DIR/outbox), the From header, retry policy. */
  mail: { smtpUrl: string | undefined; from: string; maxAttempts: number; retryBaseMs: number; leaseMs: number };
  platformDomain: string;
  dataDir: string;
  databaseUrl: string | undefined;
  worker: 'inline' | 'off';
  jwtSecret: Uint8Array;
  tokenLifetimeSeconds: number;
  encryptionKey: Buffer;
  /** HMAC key of signed media transform URLs (`sig`, see media.transforms.require_signature). */
  mediaSigningSecret: Buffer;
  captcha: {
    provider: 'static' | 'turnstile' | 'hcaptcha' | 'recaptcha';
    secret: string;
    verifyUrl: string | undefined;
    /** The hosted provider's public site key (CAPTCHA_SITE_KEY), which the sign-up widget renders with. */
    siteKey?: string;
  };
  signupRateLimit: number;
  /** Requests per minute per user (token bucket) on the tenant surface; 0 = no limit. */
  tenantRateLimit: number;
  /** Invitation mails (create and `:resend`) per account and hour; 0 = no limit. */
  invitationRateLimit: number;
  /** How long SIGTERM waits for in-flight requests and running Operations before closing them. */
  shutdownTimeoutMs: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** A List count that took at least this long (ms) is shared with other processes through the database; 0 shares every count. */
  listCountShareMs: number;
  /**
   * Which peers may set the client address through X-Forwarded-For (rate limits key on it): false
   * (none), true (every hop: the left-most entry wins), or comma-separated proxy addresses/CIDRs.
   */
  trustProxy: boolean | string;
  production: boolean;
  /** Where blobs (media originals and variants) live: local disk under DATA_DIR/blobs, or S3. */
  blobStore: { kind: 'disk' } | { kind: 's3'; endpoint?: string; bucket: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean; keyPrefix?: string };
  /** Limits of the media area. */
  media: {
    /** Largest accepted upload, bytes (413 beyond). */
    maxUploadBytes: number;
    /** Largest accepted image, pixels (all frames); checked from the header before decoding. */
    maxPixels: number;
    /** Transforms running at once. */
    transformConcurrency: number;
    /** Transforms waiting for a slot before new ones are refused with 503. */
    transformQueue: number;
    /** `max-age` of public reads, seconds. */
    cacheMaxAgeSeconds: number;
    /** Bytes of hot variants kept in memory in front of blob storage; 0 turns it off. */
    memoryCacheBytes: number;
    /** Most pixels (all frames) a variant that upscales its original may have, unless the original has more. */
    maxEnlargedPixels: number;
    /** AVIF encoder effort 0 (fastest) to 9 of variants. */
    avifEffort: number;
    /** Cold (not yet stored) variants one client address may cause per minute (token bucket); 0 = no limit. */
    coldTransformsPerMinute: number;
  };
  /** DNS servers `:verify` asks (`DNS_RESOLVER`, comma-separated `ip[:port]`); empty: the system's. */
  dnsResolver: string[];
  /** Per-query timeout of those lookups (`DNS_TIMEOUT_MS`). */
  dnsTimeoutMs: number;
  /** AI providers, the platform's own keys, and AI billing defaults (RUNTIME.md, docs/configuration.md). */
  ai: {
    openai: { baseUrl: string; apiKey: string | undefined };
    anthropic: { baseUrl: string; apiKey: string | undefined };
    openaiCompatible: { baseUrl: string | undefined; apiKey: string | undefined; models: string[]; maxOutputTokens: number };
    /** Credited to every new account, in nano-dollars. */
    startingCreditNanos: number;
    /** First retry delay of a failed attempt (doubles per attempt, with jitter) when the provider sends no Retry-After. */
    retryBaseMs: number;
  };
  /** Webhooks (docs/webhooks.md, docs/configuration.md). */
  webhooks: WebhookSettings;
}

export interface WebhookSettings {
  /** WEBHOOK_ALLOW_HOSTS: names, addresses or CIDR ranges webhooks may reach although private or loopback (http allowed for them). */
  allowHosts: string[];
  /** WEBHOOK_RETRY_SCHEDULE_MS: delay before each retry (±10 % jitter); a delivery still failing after the last one ends FAILED. */
  retryScheduleMs: number[];
  /** WEBHOOK_TIMEOUT_MS: one attempt, connect to last byte read. */
  timeoutMs: number;
  /** WEBHOOK_LEASE_MS: how long a claimed delivery is reserved for its worker (above the timeout). */
  leaseMs: number;
  /** WEBHOOK_DISABLE_AFTER_MS: a webhook whose attempts failed this long without a success is disabled. */
  disableAfterMs: number;
  /** WEBHOOK_SECRET_GRACE_MS: how long the previous secret keeps signing after `:rotate_secret`. */
  secretGraceMs: number;
  /** WEBHOOK_MAX_IN_FLIGHT: most attempts in flight to one webhook at a time. */
  maxInFlight: number;
  /** WEBHOOK_WORKER_CONCURRENCY: delivery loops per worker process. */
  concurrency: number;
}

/** 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: retried for about 28 hours. */
const WEBHOOK_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

function millisecondList(env: NodeJS.ProcessEnv, name: string, fallback: number[]): number[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const values = raw.split(',').map((s) => Number(s.trim()));
  if (values.some((v) => !Number.isSafeInteger(v) || v < 1)) throw new Error(`${name} must be comma-separated positive integers (ms), not ${raw}`);
  return values;
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, not ${raw}`);
  return value;
}

function integerIn(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, not ${raw}`);
  return value;
}

/** TRUST_PROXY: unset/`false` trusts no proxy, `true` every hop, anything else is a list of proxy addresses/CIDRs. */
function trustProxyOf(raw: string | undefined): boolean | string {
  if (raw === undefined || raw.trim() === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw;
}

function blobStoreOf(env: NodeJS.ProcessEnv): Config['blobStore'] {
  const kind = env.BLOB_STORE ?? 'disk';
  if (kind === 'disk') return { kind };
  if (kind !== 's3') throw new Error(`BLOB_STORE must be disk or s3, not ${kind}`);
  if (!env.S3_BUCKET) throw new Error('S3_BUCKET is required when BLOB_STORE=s3');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) throw new Error('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together');
  return {
    kind,
    endpoint: env.S3_ENDPOINT || undefined,
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID || undefined,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' || env.S3_FORCE_PATH_STYLE === '1',
    keyPrefix: env.S3_KEY_PREFIX || undefined,
  };
}

/** A decimal dollar amount (`5.00`) in nano-dollars. */
function dollarsToNanos(text: string, name: string): number {
  const match = /^(\d+)(?:\.(\d{1,9}))?$/.exec(text.trim());
  if (!match) throw new Error(`${name} must be a decimal amount of US dollars, e.g. 5.00`);
  return Number(BigInt(match[1]) * 1_000_000_000n + BigInt((match[2] ?? '').padEnd(9, '0')));
}

function secretFromDataDir(dataDir: string, file: string, make: () => string): string {
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = make();
  // 0600: the generated secret is readable by the platform's user only.
  writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' });
  return value;
}

/**
 * MEDIA_SIGNING_SECRET when set. Otherwise generated once and kept in DATA_DIR, like the others;
 * in production derived from JWT_SECRET instead (HKDF, its own label): production must start
 * with RUNTIME.md's variables alone, and every server already shares JWT_SECRET, so every server
 * verifies what another signed.
 */
function mediaSigningSecretOf(env: NodeJS.ProcessEnv, production: boolean, jwtSecret: string, dataDir: string): Buffer {
  if (env.MEDIA_SIGNING_SECRET !== undefined) {
    const secret = Buffer.from(env.MEDIA_SIGNING_SECRET, 'utf8');
    if (secret.length < 16) throw new Error('MEDIA_SIGNING_SECRET must be at least 16 bytes');
    return secret;
  }
  if (production) return Buffer.from(hkdfSync('sha256', jwtSecret, '', 'siteplatform media transform signatures', 32));
  return Buffer.from(secretFromDataDir(dataDir, 'media-signing-secret', () => randomBytes(32).toString('base64')), 'utf8');
}

/** Reads the environment; generates and keeps JWT_SECRET/ENCRYPTION_KEY/MEDIA_SIGNING_SECRET in DATA_DIR outside production. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const production = env.NODE_ENV === 'production';
  const port = Number(env.PORT ?? 8080);
  const host = env.HOST ?? '127.0.0.1';
  const dataDir = resolve(env.DATA_DIR ?? './data');
  mkdirSync(dataDir, { recursive: true });

  if (production && !env.JWT_SECRET) throw new Error('JWT_SECRET is required when NODE_ENV=production');
  if (production && !env.ENCRYPTION_KEY) throw new Error('ENCRYPTION_KEY is required when NODE_ENV=production');
  const jwtSecret = env.JWT_SECRET ?? secretFromDataDir(dataDir, 'jwt-secret', () => randomBytes(48).toString('base64'));
  const encryptionKey = Buffer.from(
    env.ENCRYPTION_KEY ?? secretFromDataDir(dataDir, 'encryption-key', () => randomBytes(32).toString('base64')),
    'base64',
  );
  if (encryptionKey.length !== 32) throw new Error('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  const mediaSigningSecret = mediaSigningSecretOf(env, production, jwtSecret, dataDir);

  const provider = (env.CAPTCHA_PROVIDER ?? 'static') as Config['captcha']['provider'];
  if (!['static', 'turnstile', 'hcaptcha', 'recaptcha'].includes(provider)) {
    throw new Error(`CAPTCHA_PROVIDER must be static, turnstile, hcaptcha or recaptcha, not ${provider}`);
  }
  const publicBaseUrl = (env.PUBLIC_BASE_URL ?? `http://${host}:${port}`).replace(/\/$/, '');
  return {
    port,
    host,
    publicBaseUrl,
    signupBaseUrl: (env.SIGNUP_BASE_URL ?? publicBaseUrl).replace(/\/$/, ''),
    adminBaseUrl: (env.ADMIN_BASE_URL || publicBaseUrl).replace(/\/$/, ''),
    mail: {
      smtpUrl: env.SMTP_URL || undefined,
      from: env.MAIL_FROM || `Site Platform <no-reply@${env.PLATFORM_DOMAIN ?? 'localhost'}>`,
      maxAttempts: positiveInteger(env, 'MAIL_MAX_ATTEMPTS', 8),
      retryBaseMs: positiveInteger(env, 'MAIL_RETRY_BASE_MS', 30_000),
      leaseMs: positiveInteger(env, 'MAIL_LEASE_MS', 120_000),
    },
    platformDomain: env.PLATFORM_DOMAIN ?? 'localhost',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    worker: env.WORKER === 'off' ? 'off' : 'inline',
    jwtSecret: new TextEncoder().encode(jwtSecret),
    tokenLifetimeSeconds: Number(env.TOKEN_LIFETIME_SECONDS ?? 3600),
    encryptionKey,
    mediaSigningSecret,
    captcha: { provider, secret: env.CAPTCHA_SECRET ?? 'dev-captcha', verifyUrl: env.CAPTCHA_VERIFY_URL || undefined, siteKey: env.CAPTCHA_SITE_KEY || undefined },
    signupRateLimit: Number(env.SIGNUP_RATE_LIMIT ?? 60),
    tenantRateLimit: env.TENANT_RATE_LIMIT === '0' ? 0 : positiveInteger(env, 'TENANT_RATE_LIMIT', 0),
    invitationRateLimit: env.INVITATION_RATE_LIMIT === '0' ? 0 : positiveInteger(env, 'INVITATION_RATE_LIMIT', 30),
    shutdownTimeoutMs: positiveInteger(env, 'SHUTDOWN_TIMEOUT_MS', 20_000),
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    listCountShareMs: env.LIST_COUNT_SHARE_MS === '0' ? 0 : positiveInteger(env, 'LIST_COUNT_SHARE_MS', 20),
    trustProxy: trustProxyOf(env.TRUST_PROXY),
    production,
    blobStore: blobStoreOf(env),
    media: {
      maxUploadBytes: positiveInteger(env, 'MEDIA_MAX_UPLOAD_BYTES', 25 * 1024 * 1024),
      maxPixels: positiveInteger(env, 'MEDIA_MAX_PIXELS', 50_000_000),
      transformConcurrency: positiveInteger(env, 'MEDIA_TRANSFORM_CONCURRENCY', availableParallelism()),
      transformQueue: positiveInteger(env, 'MEDIA_TRANSFORM_QUEUE', 1000),
      cacheMaxAgeSeconds: positiveInteger(env, 'MEDIA_CACHE_MAX_AGE', 86_400),
      memoryCacheBytes: env.MEDIA_MEMORY_CACHE_BYTES === '0' ? 0 : positiveInteger(env, 'MEDIA_MEMORY_CACHE_BYTES', 64 * 1024 * 1024),
      maxEnlargedPixels: positiveInteger(env, 'MEDIA_MAX_ENLARGED_PIXELS', 2048 * 2048),
      avifEffort: integerIn(env, 'MEDIA_AVIF_EFFORT', 1, 0, 9),
      coldTransformsPerMinute: integerIn(env, 'MEDIA_COLD_TRANSFORMS_PER_MINUTE', 60, 0, 1_000_000),
    },
    dnsResolver: (env.DNS_RESOLVER ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    dnsTimeoutMs: Number(env.DNS_TIMEOUT_MS ?? 5000),
    ai: {
      openai: { baseUrl: (env.OPENAI_BASE_URL || 'https://api.openai.com/v1').replace(/\/$/, ''), apiKey: env.OPENAI_API_KEY || undefined },
      anthropic: { baseUrl: (env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com').replace(/\/$/, ''), apiKey: env.ANTHROPIC_API_KEY || undefined },
      openaiCompatible: {
        baseUrl: env.OPENAI_COMPATIBLE_BASE_URL ? env.OPENAI_COMPATIBLE_BASE_URL.replace(/\/$/, '') : undefined,
        apiKey: env.OPENAI_COMPATIBLE_API_KEY || undefined,
        models: (env.OPENAI_COMPATIBLE_MODELS ?? '').split(',').map((m) => m.trim()).filter(Boolean),
        maxOutputTokens: Number(env.OPENAI_COMPATIBLE_MAX_OUTPUT_TOKENS ?? 8192),
      },
      startingCreditNanos: dollarsToNanos(env.AI_STARTING_CREDIT ?? '5.00', 'AI_STARTING_CREDIT'),
      retryBaseMs: Number(env.AI_RETRY_BASE_MS ?? 1000),
    },
    webhooks: {
      allowHosts: (env.WEBHOOK_ALLOW_HOSTS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
      retryScheduleMs: millisecondList(env, 'WEBHOOK_RETRY_SCHEDULE_MS', WEBHOOK_RETRY_SCHEDULE_MS),
      timeoutMs: positiveInteger(env, 'WEBHOOK_TIMEOUT_MS', 10_000),
      leaseMs: positiveInteger(env, 'WEBHOOK_LEASE_MS', 60_000),
      disableAfterMs: positiveInteger(env, 'WEBHOOK_DISABLE_AFTER_MS', 3 * 24 * 3600_000),
      secretGraceMs: positiveInteger(env, 'WEBHOOK_SECRET_GRACE_MS', 24 * 3600_000),
      maxInFlight: positiveInteger(env, 'WEBHOOK_MAX_IN_FLIGHT', 4),
      concurrency: positiveInteger(env, 'WEBHOOK_WORKER_CONCURRENCY', 4),
    },
  };
}
