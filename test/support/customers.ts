/**
 * Helpers of the customer-area tests: two signed-up tenants with provisioned websites, and short
 * request helpers against `websites/{w}/...` collections.
 */
import { expect } from 'vitest';
import type { TestApp, TestUser } from './app.js';
import { API, expectStatus, snapshot, type Response } from './fixtures.js';

export interface CustomerWorld {
  t: TestApp;
  alice: TestUser;
  bob: TestUser;
  /** `/tenant-api/v1/websites/{alice's website}` */
  site: string;
  /** Bob's website, another tenant. */
  otherSite: string;
}

export async function customerWorld(t: TestApp): Promise<CustomerWorld> {
  const alice = await t.signUp();
  const bob = await t.signUp();
  await t.waitForOperation(alice.operation, alice.token);
  await t.waitForOperation(bob.operation, bob.token);
  return { t, alice, bob, site: `${API}/websites/${alice.websiteId}`, otherSite: `${API}/websites/${bob.websiteId}` };
}

/** Request helpers bound to one user. */
export function as(t: TestApp, user: TestUser) {
  const call = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> =>
    t.request(method, url, { token: user.token, body, headers });
  return {
    get: (url: string, headers?: Record<string, string>) => call('GET', url, undefined, headers),
    post: (url: string, body?: unknown, headers?: Record<string, string>) => call('POST', url, body ?? {}, headers),
    patch: (url: string, body: unknown, headers?: Record<string, string>) => call('PATCH', url, body, headers),
    del: (url: string, headers?: Record<string, string>) => call('DELETE', url, undefined, headers),
    /** POST that must answer 201; answers the created resource. */
    create: async (url: string, body: unknown) => expectStatus(await call('POST', url, body), 201),
  };
}

/** Asserts a refused write left a collection exactly as it was (ids and etags). */
export async function unchanged(t: TestApp, user: TestUser, url: string, collection: string, write: () => Promise<unknown>): Promise<void> {
  const before = await snapshot(t, user.token, url, collection);
  await write();
  expect(await snapshot(t, user.token, url, collection)).toEqual(before);
}
