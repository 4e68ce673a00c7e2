import { expect } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';

/** A provisioned website of the test app and ways to write its content and read its site. */
export interface SiteUnderTest {
  user: TestUser;
  code: string;
  host: string;
  /** A request to the rendered site (Host `{code}.localhost`). */
  site(method: string, path: string, opts?: { headers?: Record<string, string>; body?: unknown }): ReturnType<TestApp['request']>;
  /** A tenant API call of the website's owner, below `websites/{w}`. */
  api(method: string, path: string, body?: unknown): ReturnType<TestApp['request']>;
  setting(path: string, value: unknown): Promise<void>;
}

export async function siteUnderTest(t: TestApp, name = 'Agent Site'): Promise<SiteUnderTest> {
  const user = await t.signUpProvisioned({ website_name: name });
  const website = expectStatus(await t.request('GET', `${API}/websites/${user.websiteId}`, { token: user.token }), 200);
  const code = website.code as string;
  const host = `${code}.localhost`;
  const api: SiteUnderTest['api'] = (method, path, body) => t.request(method, `${API}/websites/${user.websiteId}${path}`, { token: user.token, body });
  return {
    user,
    code,
    host,
    site: (method, path, opts = {}) => t.request(method, path, { headers: { host, ...(opts.headers ?? {}) }, body: opts.body }),
    api,
    async setting(path, value) {
      expectStatus(await api('PATCH', `/settings/${path}?update_mask=value`, { value }), 200);
    },
  };
}

/**
 * Polls until `check` passes: the rendered site follows a write within its documented staleness
 * bound (SITE_VERSION_TTL_MS), so reads after a write retry for a few seconds.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** The canonical error body with this status (the project's `expectError`), naming `field` when given. */
export function expectCanonical(res: { statusCode: number; headers: Record<string, unknown>; body: string }, code: number, status: string, field?: string): any {
  const error = expectError(res as never, code, status);
  if (field) expect(error.details).toContainEqual(expect.objectContaining({ type: 'FIELD_VIOLATION', field }));
  return { error };
}
