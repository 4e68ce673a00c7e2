/**
 * Etags change whenever the answer does (SPEC 4.1 rule 4, issue 23 defect 5): a Get answers 304 to
 * `If-None-Match` only while the resource is still as the client saw it. A resource whose fields are
 * read from other rows (the search index's counts, a member's name) or off the clock (an invitation's
 * state) changes without a write of its own row, so its etag covers those fields too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { etagCoversComputed } from '../../src/platform/resource/mapper.js';

let t: TestApp;
let alice: TestUser;

const get = (url: string, etag?: string) => t.request('GET', url, { token: alice.token, ...(etag !== undefined && { headers: { 'if-none-match': `"${etag}"` } }) });

/** The etag a client holds no longer answers 304, and the fresh answer has another etag. */
async function expectChanged(url: string, old: any): Promise<any> {
  const res = await get(url, old.etag);
  const now = expectStatus(res, 200);
  expect(now.etag).not.toBe(old.etag);
  expect(res.headers.etag).toBe(`"${now.etag}"`);
  // And the new etag does answer 304 while nothing changes.
  expect((await get(url, now.etag)).statusCode).toBe(304);
  return now;
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`waited in vain for ${what}`);
}

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUpProvisioned();
}, 60_000);
afterAll(() => t?.close());

describe('an etag changes whenever the answer does', () => {
  it('search_index: a write that changes document_count, pending_count or state changes the etag; the old one no longer answers 304', async () => {
    const url = `${API}/websites/${alice.websiteId}/search_index`;
    const settled = (r: any) => r.pending_count === 0;
    await eventually(async () => expectStatus(await get(url), 200), settled, 'the index to settle');
    // The indexer is stopped before the first read: a drain in flight (its rows leased, not pending) would change the answer under the test.
    await t.stopWorker();
    const before = expectStatus(await get(url), 200);
    expect((await get(url, before.etag)).statusCode).toBe(304);
    // The indexer is stopped: the new page waits (pending_count 1, UPDATING) without a write of the index row.
    expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, { token: alice.token, body: { title: 'Walnut', url_key: 'walnut', content: '<p>walnut</p>' } }), 201);
    const pending = await eventually(async () => expectStatus(await get(url), 200), (r) => r.pending_count > 0, 'the page to wait for the indexer');
    expect(pending.state).toBe('UPDATING');
    await expectChanged(url, before);
    t.startWorker();
    const after = await eventually(async () => expectStatus(await get(url), 200), settled, 'the indexer to catch up');
    expect(after.document_count).toBeGreaterThan(before.document_count);
    // Stopped again, so the answer holds still while the 304 of the new etag is checked.
    await t.stopWorker();
    await expectChanged(url, pending);
    t.startWorker();
  });

  it('members: the member\'s display name changing with their profile changes the member\'s etag', async () => {
    const url = `${API}/accounts/${alice.accountId}/members/${alice.userId}`;
    const before = expectStatus(await get(url), 200);
    expect((await get(url, before.etag)).statusCode).toBe(304);
    expectStatus(await t.request('PATCH', `${API}/users/me/profile`, { token: alice.token, body: { display_name: 'Alice Renamed' } }), 200);
    const after = await expectChanged(url, before);
    expect(after.display_name).toBe('Alice Renamed');
    // A write conditional on the new etag goes through; on the old one it is refused.
    expect((await t.request('PATCH', url, { token: alice.token, body: {}, headers: { 'if-match': `"${before.etag}"` } })).statusCode).toBe(409);
  });

  it('invitations: the state turning EXPIRED with the clock changes the etag', async () => {
    const email = `invitee-${Date.now()}@example.com`;
    const invited = expectStatus(
      await t.request('POST', `${API}/accounts/${alice.accountId}/invitations`, { token: alice.token, body: { email, role: 'roles/editor', expire_time: new Date(Date.now() + 1500).toISOString() } }),
      201,
    );
    const url = `${API}/${invited.name}`;
    const before = expectStatus(await get(url), 200);
    expect(before.state).toBe('PENDING');
    await eventually(async () => expectStatus(await get(url), 200), (r) => r.state === 'EXPIRED', 'the invitation to expire');
    await expectChanged(url, before);
  });

  it('every declaration whose fields are read from other rows has an etag covering them', () => {
    // The engine's rule (mapper.ts): `hooks.enrich` reads other rows, so its computed fields are in the etag.
    const services = [...new Set(Object.values(t.platform.services))];
    const enriched = services.filter((s) => s.decl.hooks?.enrich && !s.decl.virtual);
    expect(enriched.map((s) => s.decl.collection)).toEqual(expect.arrayContaining(['search_index', 'members']));
    for (const s of enriched) expect(etagCoversComputed(s.decl), s.decl.collection).toBe(true);
  });

  it('every Get that answers 304 does so only for the etag it currently answers, on every resource Alice can read', async () => {
    const doc = expectStatus(await t.request('GET', `${API}/openapi.json`), 200);
    const gets = Object.entries<any>(doc.paths).filter(([path, item]) =>
      item.get?.parameters?.some((p: any) => /if-?none-?match/i.test(p.$ref ?? p.name ?? '')) && /^\/tenant-api\/v1\/(websites|accounts)\/\{[a-z_]+\}(\/[a-z_]+)?(\/\{[a-z_]+\})?$/.test(path),
    );
    expect(gets.length).toBeGreaterThan(20);
    const ids: Record<string, string> = { website_id: alice.websiteId, account_id: alice.accountId };
    let checked = 0;
    for (const [path] of gets) {
      const params = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      let url = path.replace(`{${params[0]}}`, ids[params[0]]);
      if (params.length === 2) {
        // A collection item: the first row of Alice's List, when there is one.
        const collection = url.slice(0, url.lastIndexOf('/'));
        const list = await t.request('GET', `${collection}?page_size=1`, { token: alice.token });
        if (list.statusCode !== 200) continue;
        const name = collection.split('/').pop()!;
        const first = list.json()[name]?.[0];
        if (!first) continue;
        url = `${collection}/${encodeURIComponent(first.id)}`;
        expect(first.etag, `${url}: the List shows the Get's etag`).toBe(expectStatus(await get(url), 200).etag);
      }
      const res = await get(url);
      if (res.statusCode !== 200) continue;
      const current = res.json();
      expect((await get(url, current.etag)).statusCode, url).toBe(304);
      expect((await get(url, `${current.etag}x`)).statusCode, url).toBe(200);
      checked++;
    }
    expect(checked).toBeGreaterThan(15);
  }, 120_000);
});
