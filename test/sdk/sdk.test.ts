/**
 * The TypeScript SDK (sdk/) against the real server listening on a loopback port, on the current
 * project's database: sign-up → provisioned website → page create/list/update → media upload →
 * typed errors and retries. Plus the drift check: the committed generated types are what the
 * committed OpenAPI generates today.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ApiError,
  createSiteClient,
  createTenantClient,
  data,
  multipart,
  paginate,
  readModifyWrite,
  waitForOperation,
  type Schemas,
  type TenantClient,
} from '../../sdk/src/index.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { testDialect } from '../support/databases.js';
import { png } from '../support/media.js';

describe.skipIf(testDialect() !== 'sqlite')('sdk generated types', () => {
  it('are what the committed OpenAPI documents generate (regenerate: npm run generate -w sdk)', async () => {
    // @ts-expect-error plain JavaScript module of the sdk workspace (run with node in CI too)
    const { SURFACES, generateTypes, typesPath } = await import('../../sdk/scripts/generate.mjs');
    for (const surface of SURFACES as string[]) {
      const committed = readFileSync(typesPath(surface), 'utf8').split('\n');
      const generated = (await generateTypes(surface)).split('\n');
      // Name the first differing line rather than dumping two 10 000-line files.
      const at = generated.findIndex((line: string, i: number) => line !== committed[i]);
      const where = at === -1 && generated.length !== committed.length ? Math.min(generated.length, committed.length) : at;
      expect(where === -1 ? 'same' : `${typesPath(surface)}:${where + 1}: committed ${JSON.stringify(committed[where])}, generated ${JSON.stringify(generated[where])}`).toBe('same');
    }
  }, 120_000);
});

describe('sdk against the running server', () => {
  let t: TestApp;
  let baseUrl: string;
  let client: TenantClient;
  let websiteId: string;
  let accountId: string;
  let token: string;

  beforeAll(async () => {
    // A closed port: ai_connections :verify then answers 503 UNAVAILABLE with Retry-After.
    t = await startTestApp({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('signs up, waits for provisioning with the Operation poller and exchanges the hand-off', async () => {
    const site = createSiteClient({ baseUrl });
    const email = `sdk-${Date.now()}@example.com`;
    const signedUp = await data(
      site.POST('/site-api/v1/users', {
        body: { email, password: 'correct-horse-9', website_name: 'SDK Site', default_language: 'en', captcha_token: 'dev-captcha' },
      }),
    );
    const anonymous = createTenantClient({ baseUrl });
    ({ token } = await data(anonymous.POST('/tenant-api/v1/users:exchange_handoff', { body: { signup_token: signedUp.signup_token } })));
    accountId = signedUp.account_id;
    client = createTenantClient({ baseUrl, token });
    const op = await waitForOperation(client, signedUp.operation, { initialDelayMs: 20 });
    expect(op.done).toBe(true);
    websiteId = signedUp.operation.split('/')[1]!;
    const website = await data(client.GET('/tenant-api/v1/websites/{website_id}', { params: { path: { website_id: websiteId } } }));
    expect(website.provisioning_status).toBe('ACTIVE');
  });

  it('creates pages and lists them all through page tokens', async () => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const page = await data(
        client.POST('/tenant-api/v1/websites/{website_id}/cms_pages', {
          params: { path: { website_id: websiteId } },
          body: { title: `SDK page ${i}`, url_key: `sdk-page-${i}`, content: '<p>hello</p>' },
        }),
      );
      created.push(page.id);
    }
    const seen: string[] = [];
    // page_size 2 with a filter: three pages, each token valid only with the same filter.
    for await (const page of paginate(client, '/tenant-api/v1/websites/{website_id}/cms_pages', {
      path: { website_id: websiteId },
      query: { page_size: 2, filter: 'title:"SDK page"', order_by: 'title asc' },
    })) {
      // Typed as the List's resource (checked by the root's tsc), not any/never.
      expectTypeOf(page).toEqualTypeOf<Schemas['CmsPage']>();
      seen.push(page.id);
    }
    expect(seen).toEqual(created);
  });

  it('updates with the If-Match loop, retrying once when a concurrent write makes it ABORTED', async () => {
    const page = (await paginate(client, '/tenant-api/v1/websites/{website_id}/cms_pages', { path: { website_id: websiteId }, query: { filter: 'title:"SDK page 0"' } }).next()).value!;
    const path = { website_id: websiteId, cms_page_id: page.id };
    const attempts: number[] = [];
    const updated = await readModifyWrite(client, '/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', path, async (current, attempt) => {
      expectTypeOf(current).toEqualTypeOf<Schemas['CmsPage']>();
      attempts.push(attempt);
      // Another writer gets in between our read and our write, once.
      if (attempt === 1) {
        await data(client.PATCH('/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', { params: { path }, body: { meta_description: 'from the other writer' } }));
      }
      return { title: `${current.title} (edited)` };
    });
    expectTypeOf(updated).toEqualTypeOf<Schemas['CmsPage']>();
    expect(attempts).toEqual([1, 2]);
    // The second attempt started from the resource the ABORTED error carried: both writes are kept.
    expect(updated).toMatchObject({ title: 'SDK page 0 (edited)', meta_description: 'from the other writer' });
  });

  it('uploads media as multipart with the file in part `file`', async () => {
    const bytes = await png(4, 3);
    const media = await data(
      client.POST('/tenant-api/v1/websites/{website_id}/media', {
        params: { path: { website_id: websiteId } },
        body: { file: new File([new Uint8Array(bytes)], 'pixel.png', { type: 'image/png' }), alt_text: 'A tiny picture' },
        bodySerializer: multipart,
      }),
    );
    expect(media).toMatchObject({ original_filename: 'pixel.png', alt_text: 'A tiny picture', mime_type: 'image/png', file_size: bytes.length });
  });

  it('throws typed errors carrying status, details and the request id', async () => {
    const error = await client
      .GET('/tenant-api/v1/websites/{website_id}/cms_pages/{cms_page_id}', { params: { path: { website_id: websiteId, cms_page_id: 'missing' } } })
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect([apiError.code, apiError.status]).toEqual([404, 'NOT_FOUND']);
    expect(apiError.requestId).toMatch(/^req_/);
    expect(apiError.detail('REQUEST_INFO')?.request_id).toBe(apiError.requestId);
  });

  it('retries a 503 after its Retry-After, then throws UNAVAILABLE', async () => {
    const retries: { status: number; delayMs: number }[] = [];
    const retrying = createTenantClient({ baseUrl, token, maxRetries: 1, onRetry: ({ status, delayMs }) => retries.push({ status, delayMs }) });
    const connection = await data(
      retrying.POST('/tenant-api/v1/accounts/{account_id}/ai_connections', { params: { path: { account_id: accountId } }, body: { provider: 'openai', api_key: 'sk-sdk-0001' } }),
    );
    const started = Date.now();
    const error = await retrying
      .POST('/tenant-api/v1/accounts/{account_id}/ai_connections/{ai_connection_id}:verify', { params: { path: { account_id: accountId, ai_connection_id: connection.id } } })
      .then(() => undefined, (e: unknown) => e);
    expect(retries).toEqual([{ status: 503, delayMs: 1000 }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe('UNAVAILABLE');
  });
});
