/**
 * List conventions of the resource engine (SPEC 4.1, 4.2, 8): the envelope, page_size, page_token
 * chains, skip and order_by, driven through the projects, accounts and websites collections.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import {
  API,
  createAccount,
  createProjects,
  createWebsite,
  expectError,
  expectInvalid,
  idsOf,
  list,
  nextMillisecond,
  snapshot,
  walk,
  withQuery,
} from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
/** An account holding exactly 120 projects named p000..p119 (created in that order). */
let big: { accountId: string; url: string; ids: string[] };

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  const account = await createAccount(t, alice.token, 'Big');
  const created = await createProjects(t, alice.token, account.id, 120, (i) => `p${String(i).padStart(3, '0')}`);
  big = { accountId: account.id, url: `${API}/accounts/${account.id}/projects`, ids: created.map((p) => p.id) };
});
afterAll(() => t?.close());

/** Every id of the 120-row collection in the server's order for `order_by`, read with skip (offset) pages. */
async function offsetOrder(orderBy?: string): Promise<string[]> {
  const first = await list(t, alice.token, big.url, { page_size: 100, order_by: orderBy });
  const second = await list(t, alice.token, big.url, { page_size: 100, skip: 100, order_by: orderBy });
  return [...idsOf(first, 'projects'), ...idsOf(second, 'projects')];
}

describe('list envelope', () => {
  it('answers {projects, next_page_token, total_size} with total_size counting the whole collection', async () => {
    const page = await list(t, alice.token, big.url, { page_size: 10 });
    expect(Object.keys(page).sort()).toEqual(['next_page_token', 'projects', 'total_size']);
    expect(page.projects).toHaveLength(10);
    expect(page.total_size).toBe(120);
    expect(typeof page.next_page_token).toBe('string');
    expect(page.next_page_token.length).toBeGreaterThan(0);
    for (const p of page.projects) {
      expect(p).toMatchObject({ name: `projects/${p.id}`, parent: `accounts/${big.accountId}` });
      expect(typeof p.etag).toBe('string');
    }
  });

  it('names the array field after the collection on accounts and websites too', async () => {
    const accounts = await list(t, alice.token, `${API}/accounts`);
    expect(Object.keys(accounts).sort()).toEqual(['accounts', 'next_page_token', 'total_size']);
    const project = (await list(t, alice.token, `${API}/accounts/${alice.accountId}/projects`)).projects[0];
    const websites = await list(t, alice.token, `${API}/projects/${project.id}/websites`);
    expect(Object.keys(websites).sort()).toEqual(['next_page_token', 'total_size', 'websites']);
    expect(websites.websites.map((w: any) => w.id)).toEqual([alice.websiteId]);
  });

  it('an empty collection answers an empty array, total_size 0 and no next_page_token', async () => {
    const empty = await createAccount(t, alice.token, 'Empty');
    const page = await list(t, alice.token, `${API}/accounts/${empty.id}/projects`);
    expect(page.projects).toEqual([]);
    expect(page.total_size).toBe(0);
    expect(page.next_page_token ?? '').toBe('');
  });

  it('total_size counts the filtered collection, not the page, on every page of the chain', async () => {
    const expected = Array.from({ length: 120 }, (_, i) => `p${String(i).padStart(3, '0')}`).filter((n) => n.includes('1')).length;
    const filter = 'display_name:"1"';
    const pages = await walk(t, alice.token, big.url, { page_size: 7, filter });
    const all = pages.flatMap((p) => p.projects);
    expect(all.every((p: any) => p.display_name.includes('1'))).toBe(true);
    expect(all).toHaveLength(expected);
    for (const page of pages) expect(page.total_size).toBe(expected);
  });
});

describe('page_size', () => {
  it('defaults to 50', async () => {
    const page = await list(t, alice.token, big.url);
    expect(page.projects).toHaveLength(50);
    expect(page.next_page_token).toBeTruthy();
  });

  it('honours any value from 1 to 100', async () => {
    for (const size of [1, 2, 37, 100]) {
      const page = await list(t, alice.token, big.url, { page_size: size });
      expect(page.projects).toHaveLength(size);
      expect(page.total_size).toBe(120);
    }
  });

  it('page_size above 100 is clamped, not rejected', async () => {
    for (const size of [101, 500, 1_000_000, '999999999999']) {
      const page = await list(t, alice.token, big.url, { page_size: size });
      expect(page.projects).toHaveLength(100);
      expect(page.next_page_token).toBeTruthy();
    }
  });

  it('a negative page_size is INVALID_ARGUMENT naming page_size', async () => {
    expectInvalid(await t.request('GET', `${big.url}?page_size=-1`, { token: alice.token }), 'page_size');
  });

  it('a non-integer page_size is INVALID_ARGUMENT naming page_size', async () => {
    for (const value of ['abc', '1.5', '10abc', '1e2', '0x10']) {
      expectInvalid(await t.request('GET', `${big.url}?page_size=${value}`, { token: alice.token }), 'page_size');
    }
  });
});

describe('page_token chains', () => {
  it('walking the token chain returns every row exactly once, in order', async () => {
    const pages = await walk(t, alice.token, big.url, { page_size: 7 });
    expect(pages).toHaveLength(Math.ceil(120 / 7));
    const ids = pages.flatMap((p) => idsOf(p, 'projects'));
    expect(new Set(ids).size).toBe(120);
    expect([...ids].sort()).toEqual([...big.ids].sort());
    // Same order as the offset listing of the same query, and newest first (default create_time desc).
    expect(ids).toEqual(await offsetOrder());
    const times = pages.flatMap((p) => p.projects.map((r: any) => Date.parse(r.create_time)));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeLessThanOrEqual(times[i - 1]);
  });

  it('the last page has an empty or absent next_page_token, with no trailing empty page when rows fill it exactly', async () => {
    const pages = await walk(t, alice.token, big.url, { page_size: 60 });
    expect(pages).toHaveLength(2);
    expect(pages[0].next_page_token).toBeTruthy();
    expect(pages[1].projects).toHaveLength(60);
    expect(pages[1].next_page_token ?? '').toBe('');
  });

  it('walks a chain of display_name order in ascending name order', async () => {
    const pages = await walk(t, alice.token, big.url, { page_size: 9, order_by: 'display_name' });
    const names = pages.flatMap((p) => p.projects.map((r: any) => r.display_name));
    expect(names).toEqual(Array.from({ length: 120 }, (_, i) => `p${String(i).padStart(3, '0')}`));
  });

  it('walks a chain of display_name desc in descending name order', async () => {
    const pages = await walk(t, alice.token, big.url, { page_size: 11, order_by: 'display_name desc' });
    const names = pages.flatMap((p) => p.projects.map((r: any) => r.display_name));
    expect(names).toEqual(Array.from({ length: 120 }, (_, i) => `p${String(119 - i).padStart(3, '0')}`));
  });

  it('a token stays valid when the same filter and order_by are spelled differently', async () => {
    const first = await list(t, alice.token, big.url, { page_size: 5, filter: 'display_name:"p0"', order_by: 'display_name' });
    const next = await list(t, alice.token, big.url, {
      page_size: 5,
      filter: '  display_name : "p0"  ',
      order_by: 'display_name asc',
      page_token: first.next_page_token,
    });
    expect(next.projects.map((p: any) => p.display_name)).toEqual(['p005', 'p006', 'p007', 'p008', 'p009']);
  });

  it('page_token minted under a different filter is rejected as INVALID_ARGUMENT naming page_token', async () => {
    const first = await list(t, alice.token, big.url, { page_size: 5, filter: 'display_name:"p0"' });
    const res = await t.request('GET', withQuery(big.url, { page_size: 5, filter: 'display_name:"p1"', page_token: first.next_page_token }), { token: alice.token });
    expectInvalid(res, 'page_token');
    const dropped = await t.request('GET', withQuery(big.url, { page_size: 5, page_token: first.next_page_token }), { token: alice.token });
    expectInvalid(dropped, 'page_token');
  });

  it('page_token minted under a different order_by is rejected as INVALID_ARGUMENT naming page_token', async () => {
    const first = await list(t, alice.token, big.url, { page_size: 5, order_by: 'display_name' });
    for (const orderBy of ['display_name desc', 'create_time', undefined]) {
      const res = await t.request('GET', withQuery(big.url, { page_size: 5, order_by: orderBy, page_token: first.next_page_token }), { token: alice.token });
      expectInvalid(res, 'page_token');
    }
  });

  it('a tampered page_token (one character flipped) is rejected as INVALID_ARGUMENT naming page_token', async () => {
    const first = await list(t, alice.token, big.url, { page_size: 5 });
    const token: string = first.next_page_token;
    const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
    for (const i of [0, Math.floor(token.length / 2), token.length - 1]) {
      const res = await t.request('GET', withQuery(big.url, { page_size: 5, page_token: flip(token, i) }), { token: alice.token });
      expectInvalid(res, 'page_token');
    }
  });

  it('a garbage page_token is rejected as INVALID_ARGUMENT naming page_token', async () => {
    for (const garbage of ['garbage', 'a.b', 'a.b.c', '....', '%00', 'eyJhIjoxfQ.', '.x']) {
      const res = await t.request('GET', withQuery(big.url, { page_token: garbage }), { token: alice.token });
      expectInvalid(res, 'page_token');
    }
  });

  it("a page_token of one parent's collection is rejected on another parent's collection", async () => {
    const other = await createAccount(t, alice.token, 'Other');
    await createProjects(t, alice.token, other.id, 3, (i) => `o${i}`);
    const first = await list(t, alice.token, big.url, { page_size: 2 });
    const res = await t.request('GET', withQuery(`${API}/accounts/${other.id}/projects`, { page_size: 2, page_token: first.next_page_token }), { token: alice.token });
    expectInvalid(res, 'page_token');
  });

  it('a page_token of the projects collection is rejected on the accounts collection', async () => {
    const first = await list(t, alice.token, big.url, { page_size: 2 });
    const res = await t.request('GET', withQuery(`${API}/accounts`, { page_size: 2, page_token: first.next_page_token }), { token: alice.token });
    expectInvalid(res, 'page_token');
  });

  it("a page_token minted by another user is rejected on that user's own accounts collection", async () => {
    // /accounts shows each caller its own memberships: a token carries the first caller's view (and count).
    const first = await list(t, alice.token, `${API}/accounts`, { page_size: 1 });
    expect(first.next_page_token).toBeTruthy();
    const bob = await t.signUp();
    await createAccount(t, bob.token, 'Bob 2');
    const res = await t.request('GET', withQuery(`${API}/accounts`, { page_size: 1, page_token: first.next_page_token }), { token: bob.token });
    expectInvalid(res, 'page_token');
  });
});

describe('page_token chains under concurrent writes', () => {
  it('rows deleted between pages leave no duplicates and no gaps among the remaining rows', async () => {
    const account = await createAccount(t, alice.token, 'Shrinking');
    const url = `${API}/accounts/${account.id}/projects`;
    await createProjects(t, alice.token, account.id, 12, (i) => `s${String(i).padStart(2, '0')}`);
    const first = await list(t, alice.token, url, { order_by: 'display_name', page_size: 4 });
    expect(first.projects.map((p: any) => p.display_name)).toEqual(['s00', 's01', 's02', 's03']);
    // Delete the row the token points after, and the row that would have opened the next page.
    for (const p of [first.projects[3], ...(await list(t, alice.token, url, { filter: 'display_name = "s04"' })).projects]) {
      expect((await t.request('DELETE', `${API}/projects/${p.id}`, { token: alice.token })).statusCode).toBe(204);
    }
    const rest = await walk(t, alice.token, url, { order_by: 'display_name', page_size: 4, page_token: first.next_page_token });
    expect(rest.flatMap((p) => p.projects.map((r: any) => r.display_name))).toEqual(['s05', 's06', 's07', 's08', 's09', 's10', 's11']);
  });

  it('rows created between pages before the token position do not shift later pages', async () => {
    const account = await createAccount(t, alice.token, 'Growing');
    const url = `${API}/accounts/${account.id}/projects`;
    await createProjects(t, alice.token, account.id, 8, (i) => `m${i}`);
    const first = await list(t, alice.token, url, { order_by: 'display_name', page_size: 4 });
    await createProjects(t, alice.token, account.id, 3, (i) => `a${i}`);
    const rest = await walk(t, alice.token, url, { order_by: 'display_name', page_size: 4, page_token: first.next_page_token });
    expect(rest.flatMap((p) => p.projects.map((r: any) => r.display_name))).toEqual(['m4', 'm5', 'm6', 'm7']);
  });
});

describe('skip', () => {
  it('skip skips that many rows of the ordered collection', async () => {
    const all = await offsetOrder('display_name');
    const page = await list(t, alice.token, big.url, { order_by: 'display_name', skip: 13, page_size: 5 });
    expect(idsOf(page, 'projects')).toEqual(all.slice(13, 18));
    expect(page.total_size).toBe(120);
  });

  it('skip applies after the page_token position', async () => {
    const all = await offsetOrder('display_name');
    const first = await list(t, alice.token, big.url, { order_by: 'display_name', page_size: 10 });
    const next = await list(t, alice.token, big.url, { order_by: 'display_name', page_size: 10, skip: 5, page_token: first.next_page_token });
    expect(idsOf(next, 'projects')).toEqual(all.slice(15, 25));
  });

  it('skip past the end answers an empty page', async () => {
    const page = await list(t, alice.token, big.url, { skip: 500 });
    expect(page.projects).toEqual([]);
    expect(page.total_size).toBe(120);
    expect(page.next_page_token ?? '').toBe('');
  });

  it('skip + page_size of exactly 10000 is accepted', async () => {
    expect((await list(t, alice.token, big.url, { skip: 9950 })).projects).toEqual([]);
    expect((await list(t, alice.token, big.url, { skip: 9900, page_size: 100 })).projects).toEqual([]);
  });

  it('skip + page_size > 10000 is OUT_OF_RANGE (400)', async () => {
    for (const query of [{ skip: 9951 }, { skip: 9901, page_size: 100 }, { skip: 9999, page_size: 2 }, { skip: 10_001, page_size: 1 }, { skip: 9990, page_size: 500 }]) {
      const error = expectError(await t.request('GET', withQuery(big.url, query), { token: alice.token }), 400, 'OUT_OF_RANGE');
      expect(error.message).toContain('10000');
    }
  });

  it('a negative or non-integer skip is INVALID_ARGUMENT naming skip', async () => {
    for (const value of ['-1', 'x', '2.5']) {
      expectInvalid(await t.request('GET', `${big.url}?skip=${value}`, { token: alice.token }), 'skip');
    }
  });
});

describe('order_by', () => {
  let site: { projectId: string; url: string };
  beforeAll(async () => {
    // Three websites with codes and names in opposite orders, so each key gives a different order.
    const account = await createAccount(t, alice.token, 'Sites');
    const project = (await createProjects(t, alice.token, account.id, 1, () => 'Sites'))[0];
    site = { projectId: project.id, url: `${API}/projects/${project.id}/websites` };
    const suffix = alice.userId.slice(-6).toLowerCase();
    for (const [name, code] of [['aaa', `zz-${suffix}`], ['bbb', `yy-${suffix}`], ['ccc', `xx-${suffix}`]]) {
      await nextMillisecond();
      await createWebsite(t, alice.token, project.id, { display_name: name, code });
    }
  });

  const names = (page: any, collection: string) => page[collection].map((r: any) => r.display_name);

  it('sorts projects by create_time asc and desc', async () => {
    const time = new Map<string, number>();
    for (const page of await walk(t, alice.token, big.url, { page_size: 100 })) {
      for (const p of page.projects) time.set(p.id, Date.parse(p.create_time));
    }
    const asc = await offsetOrder('create_time asc');
    const desc = await offsetOrder('create_time desc');
    const ascTimes = asc.map((id) => time.get(id)!);
    expect(ascTimes).toEqual([...ascTimes].sort((a, b) => a - b));
    expect(ascTimes[0]).toBe(Math.min(...time.values()));
    // Ties on create_time are broken by id in the same direction, so desc is exactly asc reversed.
    expect(desc).toEqual([...asc].reverse());
  });

  it('a key without direction sorts ascending', async () => {
    const page = await list(t, alice.token, big.url, { order_by: 'display_name', page_size: 3 });
    expect(names(page, 'projects')).toEqual(['p000', 'p001', 'p002']);
  });

  it('sorts websites by display_name, code and create_time in both directions', async () => {
    const by = async (orderBy: string) => names(await list(t, alice.token, site.url, { order_by: orderBy }), 'websites');
    expect(await by('display_name')).toEqual(['aaa', 'bbb', 'ccc']);
    expect(await by('display_name desc')).toEqual(['ccc', 'bbb', 'aaa']);
    expect(await by('code asc')).toEqual(['ccc', 'bbb', 'aaa']);
    expect(await by('code desc')).toEqual(['aaa', 'bbb', 'ccc']);
    expect(await by('create_time')).toEqual(['aaa', 'bbb', 'ccc']);
    expect(await by('create_time desc')).toEqual(['ccc', 'bbb', 'aaa']);
  });

  it('paginates websites by code through a token chain', async () => {
    const pages = await walk(t, alice.token, site.url, { order_by: 'code desc', page_size: 1 });
    expect(pages.flatMap((p) => names(p, 'websites'))).toEqual(['aaa', 'bbb', 'ccc']);
  });

  it('sorts accounts by display_name and create_time', async () => {
    const accounts = (await list(t, alice.token, `${API}/accounts`, { order_by: 'display_name', page_size: 100 })).accounts;
    const expected = accounts.map((a: any) => a.display_name).sort();
    expect(accounts.map((a: any) => a.display_name)).toEqual(expected);
    const byTime = (await list(t, alice.token, `${API}/accounts`, { order_by: 'create_time', page_size: 100 })).accounts;
    expect(byTime[0].id).toBe(alice.accountId);
    const byTimeDesc = (await list(t, alice.token, `${API}/accounts`, { page_size: 100 })).accounts;
    expect(byTimeDesc.map((a: any) => a.id)).toEqual(byTime.map((a: any) => a.id).reverse());
  });

  it('takes up to 3 keys, mixed directions, and paginates them without duplicates or gaps', async () => {
    const account = await createAccount(t, alice.token, 'Groups');
    const url = `${API}/accounts/${account.id}/projects`;
    // 4 names x 5 rows: ties on display_name are ordered by create_time desc.
    await createProjects(t, alice.token, account.id, 20, (i) => `g${i % 4}`);
    const pages = await walk(t, alice.token, url, { order_by: 'display_name asc, create_time desc', page_size: 3 });
    const rows = pages.flatMap((p) => p.projects);
    expect(new Set(rows.map((r: any) => r.id)).size).toBe(20);
    expect(rows.map((r: any) => r.display_name)).toEqual(['g0', 'g1', 'g2', 'g3'].flatMap((n) => Array(5).fill(n)));
    for (let i = 1; i < rows.length; i++) {
      if (rows[i].display_name === rows[i - 1].display_name) {
        expect(Date.parse(rows[i].create_time)).toBeLessThanOrEqual(Date.parse(rows[i - 1].create_time));
      }
    }
    const offset = await list(t, alice.token, url, { order_by: 'display_name asc, create_time desc', page_size: 100 });
    expect(rows.map((r: any) => r.id)).toEqual(idsOf(offset, 'projects'));

    const three = await walk(t, alice.token, site.url, { order_by: 'display_name desc, code, create_time desc', page_size: 2 });
    expect(three.flatMap((p) => names(p, 'websites'))).toEqual(['ccc', 'bbb', 'aaa']);
  });

  it('refuses 4 order_by keys with INVALID_ARGUMENT on order_by', async () => {
    const res = await t.request('GET', withQuery(site.url, { order_by: 'display_name, code, create_time, display_name desc' }), { token: alice.token });
    expectInvalid(res, 'order_by');
  });

  it('an unknown order_by field is INVALID_ARGUMENT whose message names the field', async () => {
    const error = expectInvalid(await t.request('GET', withQuery(big.url, { order_by: 'colour desc' }), { token: alice.token }), 'order_by');
    expect(error.message).toContain('colour');
  });

  it('a declared but unsortable field is INVALID_ARGUMENT whose message names the field', async () => {
    const cases: Array<[string, string]> = [
      [big.url, 'description'],
      [big.url, 'update_time'],
      [`${API}/accounts`, 'is_active'],
      [site.url, 'default_language'],
      [site.url, 'provisioning_status desc'],
    ];
    for (const [url, orderBy] of cases) {
      const error = expectInvalid(await t.request('GET', withQuery(url, { order_by: orderBy }), { token: alice.token }), 'order_by');
      expect(error.message).toContain(orderBy.split(' ')[0]);
    }
  });

  it('a malformed order_by is INVALID_ARGUMENT on order_by', async () => {
    for (const orderBy of ['display_name sideways', 'display_name,', ',display_name', 'display_name asc desc', 'display_name, display_name']) {
      expectInvalid(await t.request('GET', withQuery(big.url, { order_by: orderBy }), { token: alice.token }), 'order_by');
    }
  });

  it('ties are broken deterministically: many rows with one display_name paginate without duplicates or gaps', async () => {
    const account = await createAccount(t, alice.token, 'Ties');
    const url = `${API}/accounts/${account.id}/projects`;
    const created = await createProjects(t, alice.token, account.id, 30, () => 'same');
    for (const [orderBy, size] of [['display_name', 4], ['display_name desc', 7], ['display_name, create_time', 5], [undefined, 3]] as const) {
      const pages = await walk(t, alice.token, url, { order_by: orderBy, page_size: size });
      const ids = pages.flatMap((p) => idsOf(p, 'projects'));
      expect(ids).toHaveLength(30);
      expect(new Set(ids)).toEqual(new Set(created.map((p) => p.id)));
      // The same query read twice answers the same order.
      const again = (await walk(t, alice.token, url, { order_by: orderBy, page_size: size })).flatMap((p) => idsOf(p, 'projects'));
      expect(again).toEqual(ids);
      expect(ids).toEqual(idsOf(await list(t, alice.token, url, { order_by: orderBy, page_size: 100 }), 'projects'));
    }
  });

  it('listing does not change the collection', async () => {
    const before = await snapshot(t, alice.token, big.url, 'projects');
    await walk(t, alice.token, big.url, { page_size: 50 });
    expect(await snapshot(t, alice.token, big.url, 'projects')).toEqual(before);
  });
});
