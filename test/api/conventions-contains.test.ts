/**
 * `field:"text"` (contains) on string fields, answered from the table's trigram text index (SQLite
 * FTS5, PostgreSQL pg_trgm; see `SqlDialect.containsText`): the same case-insensitive substring
 * match on both databases (every expectation below holds on each), the index kept in step with
 * writes, special characters literal, and another website's rows never matching.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectInvalid, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let pagesUrl: string;

/** Alice's pages by title (ASCII case folding only: SQLite's LIKE folds no other letters). */
const TITLES = [
  'Photography Basics',
  'PHOTOGRAPHY advanced',
  'Say "hi" now',
  '100% Organic_Food',
  'Grüße aus Köln',
  'Rules OR Exceptions NEAR(the end)',
  "It's 'quoted'",
  'a*b:c^d {x} -y',
];

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  pagesUrl = `${API}/websites/${alice.websiteId}/cms_pages`;
  for (const [i, title] of TITLES.entries()) {
    expectStatus(await t.request('POST', pagesUrl, { token: alice.token, body: { title, url_key: `contains-${i}` } }), 201);
  }
  const bobsPages = `${API}/websites/${bob.websiteId}/cms_pages`;
  expectStatus(await t.request('POST', bobsPages, { token: bob.token, body: { title: 'Photography by Bob', url_key: 'bobs-photos' } }), 201);
});
afterAll(() => t?.close());

/** Titles of alice's pages a filter selects, sorted; the count must agree with the items. */
async function titles(filter: string, user = alice, url = pagesUrl): Promise<string[]> {
  const page = await list(t, user.token, url, { filter, page_size: 100 });
  expect(page.total_size).toBe(page.cms_pages.length);
  return page.cms_pages.map((p: any) => p.title).sort();
}

const sorted = (values: string[]) => [...values].sort();

describe('contains on an indexed string field', () => {
  it('matches in the middle of a word, ignoring ASCII case', async () => {
    expect(await titles('title:"tograph"')).toEqual(sorted(['Photography Basics', 'PHOTOGRAPHY advanced']));
    expect(await titles('title:"TOGRAPH"')).toEqual(sorted(['Photography Basics', 'PHOTOGRAPHY advanced']));
    expect(await titles('title:"y adv"')).toEqual(['PHOTOGRAPHY advanced']);
    expect(await titles('title:"nothing like this"')).toEqual([]);
  });

  it('text shorter than a trigram still matches (plain LIKE)', async () => {
    expect(await titles('title:"ph"')).toEqual(sorted(['Photography Basics', 'PHOTOGRAPHY advanced']));
    expect(await titles('title:"ö"')).toEqual(['Grüße aus Köln']);
    expect(await titles('title:"%"')).toEqual(['100% Organic_Food']);
    expect(await titles('title:"_"')).toEqual(['100% Organic_Food']);
  });

  it('takes quotes, LIKE wildcards, full-text operators and punctuation literally', async () => {
    expect(await titles('title:"y \\"hi\\" n"')).toEqual(['Say "hi" now']);
    expect(await titles(`title:"a\\"b"`)).toEqual([]);
    expect(await titles(`title:'%_'`)).toEqual([]);
    expect(await titles('title:"0% O"')).toEqual(['100% Organic_Food']);
    expect(await titles('title:"c_F"')).toEqual(['100% Organic_Food']);
    expect(await titles('title:"s OR Ex"')).toEqual(['Rules OR Exceptions NEAR(the end)']);
    expect(await titles('title:"OR"')).toEqual(sorted(['100% Organic_Food', 'Rules OR Exceptions NEAR(the end)']));
    expect(await titles('title:"NEAR("')).toEqual(['Rules OR Exceptions NEAR(the end)']);
    expect(await titles(`title:"'quoted'"`)).toEqual(["It's 'quoted'"]);
    expect(await titles('title:"*b:c^d {x} -"')).toEqual(['a*b:c^d {x} -y']);
    expect(await titles('title:"üße aus K"')).toEqual(['Grüße aus Köln']);
  });

  it('refuses a NUL character in the filter instead of failing on it', async () => {
    const res = await t.request('GET', `${pagesUrl}?filter=${encodeURIComponent('title:"ab\u0000cd"')}`, { token: alice.token });
    expect(expectInvalid(res, 'filter').message).toContain('NUL');
  });

  it("never matches another website's rows", async () => {
    expect(await titles('title:"by Bob"')).toEqual([]);
    expect(await titles('title:"tograph"', bob, `${API}/websites/${bob.websiteId}/cms_pages`)).toEqual(['Photography by Bob']);
  });

  it('follows updates and deletes of the indexed columns', async () => {
    const page = expectStatus(await t.request('POST', pagesUrl, { token: alice.token, body: { title: 'Lighthouse keeper', url_key: 'lighthouse' } }), 201);
    expect(await titles('title:"thouse"')).toEqual(['Lighthouse keeper']);
    expectStatus(await t.request('PATCH', `${pagesUrl}/${page.id}`, { token: alice.token, body: { title: 'Windmill keeper' } }), 200);
    expect(await titles('title:"thouse"')).toEqual([]);
    expect(await titles('title:"ndmil"')).toEqual(['Windmill keeper']);
    expect(await titles('url_key:"ghthou"')).toEqual(['Windmill keeper']);
    expectStatus(await t.request('PATCH', `${pagesUrl}/${page.id}`, { token: alice.token, body: { is_active: false } }), 200);
    expect(await titles('title:"ndmil"')).toEqual(['Windmill keeper']);
    expectStatus(await t.request('DELETE', `${pagesUrl}/${page.id}`, { token: alice.token }), 204);
    expect(await titles('title:"ndmil"')).toEqual([]);
  });

  it('a text many rows contain pages through every match once, in order, exactly like a rare text (same rows whichever plan the page takes)', async () => {
    // 45 matches at page_size 1 is over 40 pages' worth: SQLite's page then walks the ordered index
    // checking each row (`row_check`) instead of going through the text index; 11 matches stay below.
    const created: string[] = [];
    for (let i = 0; i < 45; i++) {
      created.push(expectStatus(await t.request('POST', pagesUrl, { token: alice.token, body: { title: `Seaside walk ${i}`, url_key: `seaside-${i}` } }), 201).id);
    }
    const bobsPages = `${API}/websites/${bob.websiteId}/cms_pages`;
    expectStatus(await t.request('POST', bobsPages, { token: bob.token, body: { title: 'Seaside walk by Bob', url_key: 'bobs-seaside' } }), 201);
    const walk = async (filter: string) => {
      const seen: string[] = [];
      let pageToken: string | undefined;
      do {
        const page = await list(t, alice.token, pagesUrl, { filter, page_size: 1, order_by: 'url_key desc', ...(pageToken ? { page_token: pageToken } : {}) });
        seen.push(...page.cms_pages.map((p: any) => p.title));
        pageToken = page.next_page_token;
        expect(page.total_size).toBeGreaterThanOrEqual(seen.length);
      } while (pageToken);
      return seen;
    };
    const expected = (text: string) =>
      created
        .map((_, i) => ({ title: `Seaside walk ${i}`, key: `seaside-${i}` }))
        .filter((p) => p.title.toLowerCase().includes(text.toLowerCase()))
        .sort((a, b) => (a.key < b.key ? 1 : -1))
        .map((p) => p.title);
    expect(await walk('title:"SEASIDE WALK"')).toEqual(expected('seaside walk'));
    expect(await walk('title:"walk 1"')).toEqual(expected('walk 1'));
    expect(expected('walk 1')).toHaveLength(11);
  });

  it('a text thousands of rows hold is counted exactly, and only in its own website (the count may check rows instead of the text index)', async () => {
    // Over 5 000 matches in the table: SQLite's count checks the website's rows with LIKE instead of
    // fetching every text-index match. Seeded by SQL (the FTS triggers keep the index in step), a
    // tenth of them switched off; Bob holds the text too.
    const now = Date.now();
    const rows = (websiteId: string, accountId: string, prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        id: `${prefix}-${i}`,
        account_id: accountId,
        website_id: websiteId,
        title: `Harbour light ${i}`,
        url_key: `${prefix}-${i}`,
        is_active: t.fresh.database.dialect.bool(i % 10 !== 0),
        meta_robots: 'INDEX_FOLLOW',
        visible_view_ids: t.fresh.database.dialect.json([]),
        revision: 1,
        create_time: now + i,
        update_time: now + i,
      }));
    const accountOf = async (websiteId: string) =>
      (await t.fresh.database.db.selectFrom('websites').select('account_id').where('id', '=', websiteId).executeTakeFirstOrThrow()).account_id as string;
    const mine = rows(alice.websiteId, await accountOf(alice.websiteId), 'harbour', 3000);
    const bobs = rows(bob.websiteId, await accountOf(bob.websiteId), 'bobs-harbour', 3000);
    for (let i = 0; i < mine.length; i += 500) {
      await t.fresh.database.db.insertInto('cms_pages').values(mine.slice(i, i + 500)).execute();
      await t.fresh.database.db.insertInto('cms_pages').values(bobs.slice(i, i + 500)).execute();
    }
    const page = await list(t, alice.token, pagesUrl, { filter: 'title:"HARBOUR LIGHT"', page_size: 100 });
    expect(page.total_size).toBe(3000);
    expect(page.cms_pages).toHaveLength(100);
    expect(page.cms_pages.every((p: any) => p.title.startsWith('Harbour light '))).toBe(true);
    expect((await list(t, alice.token, pagesUrl, { filter: 'title:"harbour light" AND is_active = true', page_size: 1 })).total_size).toBe(2700);
    // 29, 290–299, 2900–2999.
    expect((await list(t, alice.token, pagesUrl, { filter: 'title:"light 29"', page_size: 1 })).total_size).toBe(111);
    const all = (await list(t, alice.token, pagesUrl, { page_size: 1 })).total_size;
    expect((await list(t, alice.token, pagesUrl, { filter: 'NOT title:"harbour"', page_size: 1 })).total_size).toBe(all - 3000);
  });

  it('matches a lowercase field (customer email) whatever the case of the text', async () => {
    const customers = `${API}/websites/${alice.websiteId}/customers`;
    expectStatus(await t.request('POST', customers, { token: alice.token, body: { email: 'Ada.Lovelace@Example.COM', password: 'secret-123' } }), 201);
    for (const filter of ['email:"LOVELACE@EXAMPLE"', 'email:"ace@ex"', 'email:"da"']) {
      const page = await list(t, alice.token, customers, { filter });
      expect(page.customers.map((c: any) => c.email)).toEqual(['ada.lovelace@example.com']);
      expect(page.total_size).toBe(1);
    }
  });
});
