/**
 * Get by id under concurrency: hot point reads are batched on PostgreSQL (`Database.pointReader`),
 * so many Gets in flight at once must each answer their own row, a missing id NOT_FOUND and another
 * tenant's id NOT_FOUND, exactly as one Get alone does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
const pages: Array<{ id: string; title: string }> = [];
let bobPageId: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  for (let i = 0; i < 40; i++) {
    const page = expectStatus(
      await t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, { token: alice.token, body: { title: `Page ${i}`, url_key: `page-${i}` } }),
      201,
    );
    pages.push({ id: page.id, title: page.title });
  }
  bobPageId = expectStatus(
    await t.request('POST', `${API}/websites/${bob.websiteId}/cms_pages`, { token: bob.token, body: { title: 'Bob', url_key: 'bob' } }),
    201,
  ).id;
});
afterAll(() => t?.close());

describe('Get by id with many requests in flight', () => {
  it('answers every concurrent Get with its own row, and NOT_FOUND for missing and foreign ids among them', async () => {
    const url = (id: string) => `${API}/websites/${alice.websiteId}/cms_pages/${id}`;
    // Interleave hits, misses and another tenant's id, so one batch holds all three kinds.
    const calls = pages.flatMap((page, i) => [
      { kind: 'hit' as const, page, promise: t.request('GET', url(page.id), { token: alice.token }) },
      ...(i % 5 === 0 ? [{ kind: 'missing' as const, page, promise: t.request('GET', url(`missing-${i}`), { token: alice.token }) }] : []),
      ...(i % 7 === 0 ? [{ kind: 'foreign' as const, page, promise: t.request('GET', url(bobPageId), { token: alice.token }) }] : []),
    ]);
    const answers = await Promise.all(calls.map((c) => c.promise));
    answers.forEach((res, i) => {
      const call = calls[i];
      if (call.kind === 'hit') {
        const body = expectStatus(res, 200);
        expect(body.id).toBe(call.page.id);
        expect(body.title).toBe(call.page.title);
        expect(res.headers.etag).toBe(`"${body.etag}"`);
      } else {
        expectError(res, 404, 'NOT_FOUND');
      }
    });
  });

  it('answers concurrent Gets of websites and Operations of two tenants each with their own', async () => {
    const [aliceSite, bobSite, aliceOp, bobOp, crossed] = await Promise.all([
      t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }),
      t.request('GET', `${API}/websites/${bob.websiteId}`, { token: bob.token }),
      t.request('GET', `${API}/${alice.operation}`, { token: alice.token }),
      t.request('GET', `${API}/${bob.operation}`, { token: bob.token }),
      t.request('GET', `${API}/websites/${bob.websiteId}`, { token: alice.token }),
    ]);
    expect(expectStatus(aliceSite, 200).id).toBe(alice.websiteId);
    expect(expectStatus(bobSite, 200).id).toBe(bob.websiteId);
    expect(expectStatus(aliceOp, 200).name).toBe(alice.operation);
    expect(expectStatus(bobOp, 200).name).toBe(bob.operation);
    expectError(crossed, 404, 'NOT_FOUND');
  });
});
