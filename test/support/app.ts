/**
 * Boots the real platform on a fresh database of the current project's dialect and drives it
 * through HTTP with `app.inject` (no port, no mocks). One per test file:
 *
 *   const t = await startTestApp();
 *   const alice = await t.signUp();
 *   const res = await t.request('GET', `/tenant-api/v1/websites/${alice.websiteId}`, { token: alice.token });
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { buildApp, type Platform } from '../../src/app.js';
import type { Area } from '../../src/platform/area.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { BlobStore } from '../../src/platform/storage/blobs.js';
import { freshDatabase, type FreshDatabase } from './databases.js';
import { openDatabase } from '../../src/platform/db/database.js';

export interface TestUser {
  email: string;
  password: string;
  token: string;
  userId: string;
  accountId: string;
  websiteId: string;
  operation: string;
}

export interface TestApp {
  app: FastifyInstance;
  platform: Platform;
  fresh: FreshDatabase;
  config: Config;
  request(method: string, url: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse & { json(): any }>;
  /** Signs up through the sign-up surface and exchanges the hand-off for a bearer token. */
  signUp(overrides?: Partial<{ email: string; password: string; website_name: string }>): Promise<TestUser>;
  /** Signs up and waits until the website's provisioning Operation is done (default view, pages, ...). */
  signUpProvisioned(overrides?: Partial<{ email: string; password: string; website_name: string }>): Promise<TestUser>;
  /** Polls an Operation until done. */
  waitForOperation(name: string, token: string): Promise<any>;
  /** Stops the in-process worker (Operations stay queued, as with every worker down) and starts it again. */
  stopWorker(): Promise<void>;
  startWorker(): void;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  opts: {
    logger?: Parameters<typeof buildApp>[0]['logger'];
    blobs?: (config: Config) => BlobStore;
    /** Instead of `src/areas.ts`'s list, with `migrate` creating their tables (test/docs/architecture.test.ts). */
    areas?: readonly Area[];
    migrate?: (db: Kysely<any>) => Promise<void>;
    /** false: no mail worker (a test drives `t.platform.mail` itself). */
    mailWorker?: boolean;
    /**
     * PostgreSQL only: a second platform on the database (and DATA_DIR, so the same secrets) of
     * `sharedWith`, with connections of its own, as another API process would be. Closing it leaves
     * the database to `sharedWith`.
     */
    sharedWith?: TestApp;
  } = {},
): Promise<TestApp> {
  const fresh = opts.sharedWith ? sharedDatabase(opts.sharedWith.fresh) : await freshDatabase();
  const config = loadConfig({
    DATA_DIR: fresh.dataDir,
    PUBLIC_BASE_URL: 'http://api.test',
    SIGNUP_RATE_LIMIT: '0',
    // Like the sign-up limit: off unless a test is about it (tests make many variants from one address).
    MEDIA_COLD_TRANSFORMS_PER_MINUTE: '0',
    ...(fresh.url ? { DATABASE_URL: fresh.url } : {}),
    ...env,
  });
  let platform: Platform;
  try {
    await opts.migrate?.(fresh.database.db);
    platform = await buildApp({ config, database: fresh.database, logger: opts.logger, blobs: opts.blobs?.(config), areas: opts.areas });
  } catch (err) {
    await fresh.cleanup();
    throw err;
  }
  let worker: ReturnType<Platform['operations']['startWorker']> | undefined = platform.operations.startWorker({ concurrency: 1, pollMs: 20 });
  const mailWorker = opts.mailWorker === false ? undefined : platform.mail.startWorker({ concurrency: 1, pollMs: 20 });
  const { app } = platform;
  await app.ready();

  const request: TestApp['request'] = async (method, url, opts = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const payload = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    if (payload !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    return app.inject({ method: method as never, url, headers, payload }) as never;
  };

  const waitForOperation: TestApp['waitForOperation'] = async (name, token) => {
    for (let i = 0; i < 500; i++) {
      const res = await request('GET', `/tenant-api/v1/${name}`, { token });
      const op = res.json();
      if (res.statusCode !== 200) throw new Error(`polling ${name}: ${res.statusCode} ${res.body}`);
      if (op.done) return op;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`operation ${name} did not finish`);
  };

  const signUp: TestApp['signUp'] = async (overrides = {}) => {
    const email = overrides.email ?? `user-${randomUUID().slice(0, 8)}@example.com`;
    const password = overrides.password ?? 'correct-horse-9';
    const res = await request('POST', '/site-api/v1/users', {
      body: { email, password, website_name: overrides.website_name ?? 'Test Site', default_language: 'en', captcha_token: 'dev-captcha' },
    });
    if (res.statusCode !== 201) throw new Error(`sign-up failed: ${res.statusCode} ${res.body}`);
    const answer = res.json();
    const exchanged = await request('POST', '/tenant-api/v1/users:exchange_handoff', { body: { signup_token: answer.signup_token } });
    if (exchanged.statusCode !== 200) throw new Error(`exchange failed: ${exchanged.statusCode} ${exchanged.body}`);
    const token = exchanged.json().token;
    const websiteId = String(answer.operation).split('/')[1];
    return { email, password, token, userId: answer.id, accountId: answer.account_id, websiteId, operation: answer.operation };
  };

  return {
    app,
    platform,
    fresh,
    config,
    request,
    signUp,
    async signUpProvisioned(overrides) {
      const user = await signUp(overrides);
      await waitForOperation(user.operation, user.token);
      return user;
    },
    waitForOperation,
    async stopWorker() {
      await worker?.stop();
      worker = undefined;
    },
    startWorker() {
      worker ??= platform.operations.startWorker({ concurrency: 1, pollMs: 20 });
    },
    async close() {
      await worker?.stop();
      await mailWorker?.stop();
      await app.close();
      await fresh.cleanup();
    },
  };
}

/** Another process's view of `of`: its own pools on the same PostgreSQL database and the same DATA_DIR. */
function sharedDatabase(of: FreshDatabase): FreshDatabase {
  if (!of.url) throw new Error('two platforms share a database on PostgreSQL only (SQLite is one process)');
  const database = openDatabase({ databaseUrl: of.url, dataDir: of.dataDir });
  return { ...of, database, cleanup: () => database.close() };
}

/**
 * A log destination that keeps every line the app writes (pass `stream` as the logger's stream), so
 * a test can show what was logged — and that no token or password ever was.
 */
export function logSink(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, stream };
}
