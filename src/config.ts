import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Everything the platform reads from its environment (RUNTIME.md is the contract). */
export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  signupBaseUrl: string;
  platformDomain: string;
  dataDir: string;
  databaseUrl: string | undefined;
  worker: 'inline' | 'off';
  jwtSecret: Uint8Array;
  tokenLifetimeSeconds: number;
  encryptionKey: Buffer;
  captcha: { provider: 'static' | 'turnstile' | 'hcaptcha' | 'recaptcha'; secret: string; verifyUrl: string | undefined };
  signupRateLimit: number;
  logLevel: string;
  bodyLimitBytes: number;
  /** Take client addresses from X-Forwarded-For (behind a proxy). */
  trustProxy: boolean;
  production: boolean;
  /** DNS servers `:verify` asks (`DNS_RESOLVER`, comma-separated `ip[:port]`); empty: the system's. */
  dnsResolver: string[];
  /** Per-query timeout of those lookups (`DNS_TIMEOUT_MS`). */
  dnsTimeoutMs: number;
}

function secretFromDataDir(dataDir: string, file: string, make: () => string): string {
  const path = join(dataDir, file);
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  const value = make();
  // 0600: the generated secret is readable by the platform's user only.
  writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' });
  return value;
}

/** Reads the environment; generates and keeps JWT_SECRET/ENCRYPTION_KEY in DATA_DIR outside production. */
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
    platformDomain: env.PLATFORM_DOMAIN ?? 'localhost',
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    worker: env.WORKER === 'off' ? 'off' : 'inline',
    jwtSecret: new TextEncoder().encode(jwtSecret),
    tokenLifetimeSeconds: Number(env.TOKEN_LIFETIME_SECONDS ?? 3600),
    encryptionKey,
    captcha: { provider, secret: env.CAPTCHA_SECRET ?? 'dev-captcha', verifyUrl: env.CAPTCHA_VERIFY_URL || undefined },
    signupRateLimit: Number(env.SIGNUP_RATE_LIMIT ?? 60),
    logLevel: env.LOG_LEVEL ?? 'info',
    bodyLimitBytes: Number(env.BODY_LIMIT_BYTES ?? 1024 * 1024),
    trustProxy: env.TRUST_PROXY === 'true',
    production,
    dnsResolver: (env.DNS_RESOLVER ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    dnsTimeoutMs: Number(env.DNS_TIMEOUT_MS ?? 5000),
  };
}
