/**
 * Navigation (SPEC 1: "menus and items (`:move`)"): menus with unique identifiers, items as a tree
 * per menu linking to a page or a URL, `:move` with `parent_id`/`after_id`, visibility per view,
 * the main menu of provisioning, and references across websites never followed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let menusUrl: string;
let deViewId: string;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  menusUrl = `${API}/websites/${alice.websiteId}/navigation_menus`;
  deViewId = expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/views`, { token: alice.token, body: { display_name: 'DE', locale: 'de' } }), 201).id;
});
afterAll(() => t?.close());

const post = (url: string, body: unknown, token = alice.token) => t.request('POST', url, { token, body });
const move = (item: any, body: unknown, headers: Record<string, string> = {}) => t.request('POST', `${API}/${item.name}:move`, { token: alice.token, body, headers });
let n = 0;
const createMenu = async () => {
  n += 1;
  return expectStatus(await post(menusUrl, { display_name: `Menu ${n}`, identifier: `menu-${n}` }), 201);
};
const addItem = async (menu: any, body: Record<string, unknown>) => {
  const item = expectStatus(await post(`${API}/${menu.name}/items`, { url: '/x', ...body }), 201);
  await expectShape(t, 'CreateNavigationItem', 201, item);
  return item;
};
const tree = async (menu: any) => {
  const page = expectStatus(await t.request('GET', `${API}/${menu.name}/items?page_size=100`, { token: alice.token }), 200);
  await expectShape(t, 'ListNavigationItems', 200, page);
  return page.items.map((i: any) => `${'  '.repeat(i.level)}${i.label}#${i.sort_order}`);
};
const siblings = async (menu: any, parentId: string | null) => {
  const filter = parentId ? `parent_id = "${parentId}"` : 'parent_id = null';
  const page = expectStatus(await t.request('GET', `${API}/${menu.name}/items?order_by=sort_order&filter=${encodeURIComponent(filter)}`, { token: alice.token }), 200);
  return page.items.map((i: any) => i.label);
};

describe('provisioning', () => {
  it('every new website has the main menu (id and identifier `main`) with an item linking to the home page', async () => {
    const main = expectStatus(await t.request('GET', `${menusUrl}/main`, { token: alice.token }), 200);
    await expectShape(t, 'GetNavigationMenu', 200, main);
    expect(main).toMatchObject({ id: 'main', identifier: 'main', display_name: 'Main menu', visible_view_ids: [] });
    const items = expectStatus(await t.request('GET', `${menusUrl}/main/items`, { token: alice.token }), 200);
    expect(items.items).toHaveLength(1);
    expect(items.items[0]).toMatchObject({ label: 'Home', cms_page_id: 'home', level: 0 });
    expect(items.items[0].parent_id).toBeUndefined();
  });
});

describe('menus', () => {
  it('identifier is unique per website (ALREADY_EXISTS); display_name and identifier are required', async () => {
    const menu = await createMenu();
    await expectShape(t, 'CreateNavigationMenu', 201, menu);
    expectError(await post(menusUrl, { display_name: 'Again', identifier: menu.identifier }), 409, 'ALREADY_EXISTS');
    expectStatus(await post(`${API}/websites/${bob.websiteId}/navigation_menus`, { display_name: 'Bob', identifier: menu.identifier }, bob.token), 201);
    expectInvalid(await post(menusUrl, { identifier: 'x' }), 'display_name');
    expectInvalid(await post(menusUrl, { display_name: 'x' }), 'identifier');
    const listed = await list(t, alice.token, menusUrl, { filter: `identifier = "${menu.identifier}"` });
    expect(listed.total_size).toBe(1);
  });

  it('deleting a menu deletes its items', async () => {
    const menu = await createMenu();
    const item = await addItem(menu, { label: 'A' });
    expectNoBody(await t.request('DELETE', `${API}/${menu.name}`, { token: alice.token }), 204);
    expectError(await t.request('GET', `${API}/${item.name}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${menu.name}/items`, { token: alice.token }), 404, 'NOT_FOUND');
  });
});

describe('items', () => {
  it('link to a page of the website or to a URL, exactly one of them', async () => {
    const menu = await createMenu();
    const page = expectStatus(await post(`${API}/websites/${alice.websiteId}/cms_pages`, { title: 'Linked' }), 201);
    const toPage = await addItem(menu, { label: 'Page', url: undefined, cms_page_id: page.id });
    expect(toPage).toMatchObject({ cms_page_id: page.id, level: 0, sort_order: 0, path: toPage.id, open_in_new_tab: false, is_active: true });
    const toUrl = await addItem(menu, { label: 'Ext', url: 'https://example.com/a?b=c', open_in_new_tab: true });
    expect(toUrl).toMatchObject({ url: 'https://example.com/a?b=c', sort_order: 1 });
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'Both', url: '/a', cms_page_id: page.id }), 'url');
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'None' }), 'cms_page_id');
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'Missing page', cms_page_id: 'nope' }), 'cms_page_id');
  });

  it("a page of another website is INVALID_ARGUMENT and never linked; script URLs are refused", async () => {
    const menu = await createMenu();
    const bobPage = expectStatus(await post(`${API}/websites/${bob.websiteId}/cms_pages`, { title: 'Bob page' }, bob.token), 201);
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'Foreign', cms_page_id: bobPage.id }), 'cms_page_id');
    for (const url of ['javascript:alert(1)', 'JavaScript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'vbscript:x', ' javascript:alert(1)']) {
      expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'Bad', url }), 'url');
    }
    expect(await tree(menu)).toEqual([]);
  });

  it('items form a tree: parent_id on create, path and level derived; a parent from another menu is refused', async () => {
    const menu = await createMenu();
    const other = await createMenu();
    const shop = await addItem(menu, { label: 'Shop' });
    const shoes = await addItem(menu, { label: 'Shoes', parent_id: shop.id });
    expect(shoes).toMatchObject({ parent_id: shop.id, level: 1, path: `${shop.id}/${shoes.id}` });
    const foreign = await addItem(other, { label: 'Other' });
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'X', url: '/x', parent_id: foreign.id }), 'parent_id');
    expectInvalid(await t.request('PATCH', `${API}/${shoes.name}`, { token: alice.token, body: { parent_id: 'elsewhere' } }), 'parent_id');
  });

  it(':move reorders siblings with after_id and re-parents a subtree with parent_id', async () => {
    const menu = await createMenu();
    const a = await addItem(menu, { label: 'A' });
    const b = await addItem(menu, { label: 'B' });
    const c = await addItem(menu, { label: 'C' });
    const a1 = await addItem(menu, { label: 'A1', parent_id: a.id });
    expect(await siblings(menu, null)).toEqual(['A', 'B', 'C']);

    const movedC = expectStatus(await move(c, { after_id: null }), 200);
    await expectShape(t, 'MoveNavigationItem', 200, movedC);
    expect(await siblings(menu, null)).toEqual(['C', 'A', 'B']);
    expectStatus(await move(c, { after_id: a.id }), 200);
    expect(await siblings(menu, null)).toEqual(['A', 'C', 'B']);

    // Move A (with A1) under B: the subtree's path and level follow.
    const movedA = expectStatus(await move(a, { parent_id: b.id }), 200);
    expect(movedA).toMatchObject({ parent_id: b.id, level: 1, path: `${b.id}/${a.id}` });
    const child = expectStatus(await t.request('GET', `${API}/${a1.name}`, { token: alice.token }), 200);
    expect(child).toMatchObject({ level: 2, path: `${b.id}/${a.id}/${a1.id}` });
    expect(await siblings(menu, null)).toEqual(['C', 'B']);
    // Depth-first by path (bytewise); sort_order may leave gaps, only its order counts.
    const expected = [
      [b.id, 'B#3'],
      [`${b.id}/${a.id}`, '  A#0'],
      [`${b.id}/${a.id}/${a1.id}`, '    A1#0'],
      [c.id, 'C#2'],
    ].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    expect(await tree(menu)).toEqual(expected.map(([, label]) => label));
  });

  it(':move refuses moving under itself or a descendant, foreign after_id, a stale If-Match, unknown fields', async () => {
    const menu = await createMenu();
    const a = await addItem(menu, { label: 'A' });
    const a1 = await addItem(menu, { label: 'A1', parent_id: a.id });
    const b = await addItem(menu, { label: 'B' });
    expectInvalid(await move(a, { parent_id: a1.id }), 'parent_id');
    expectInvalid(await move(a, { parent_id: a.id }), 'parent_id');
    expectInvalid(await move(b, { after_id: a1.id }), 'after_id');
    expectInvalid(await move(b, { colour: 'red' }), 'colour');
    expectError(await move(b, { after_id: a.id }, { 'if-match': '"stale"' }), 409, 'ABORTED');
    expect(await siblings(menu, null)).toEqual(['A', 'B']);
  });

  it('items carry visible_view_ids of the same website', async () => {
    const menu = await createMenu();
    const item = await addItem(menu, { label: 'DE only', visible_view_ids: [deViewId] });
    expect(item.visible_view_ids).toEqual([deViewId]);
    const bobView = (await list(t, bob.token, `${API}/websites/${bob.websiteId}/views`)).views[0].id;
    expectInvalid(await post(`${API}/${menu.name}/items`, { label: 'X', url: '/x', visible_view_ids: [bobView] }), 'visible_view_ids');
    const filtered = expectStatus(await t.request('GET', `${API}/${menu.name}/items?filter=${encodeURIComponent(`visible_view_ids:"${deViewId}"`)}`, { token: alice.token }), 200);
    expect(filtered.items.map((i: any) => i.id)).toEqual([item.id]);
  });

  it('deleting a linked page is refused (PAGE_IN_NAVIGATION) unless force, which deletes the item and its sub-items', async () => {
    const menu = await createMenu();
    const page = expectStatus(await post(`${API}/websites/${alice.websiteId}/cms_pages`, { title: 'Doomed' }), 201);
    const item = await addItem(menu, { label: 'Doomed', url: undefined, cms_page_id: page.id });
    const sub = await addItem(menu, { label: 'Sub', parent_id: item.id });
    const error = expectError(await t.request('DELETE', `${API}/${page.name}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('PAGE_IN_NAVIGATION');
    expectNoBody(await t.request('DELETE', `${API}/${page.name}?force=true`, { token: alice.token }), 204);
    expectError(await t.request('GET', `${API}/${item.name}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${sub.name}`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it("another tenant's menus and items answer NOT_FOUND", async () => {
    const menu = await createMenu();
    const item = await addItem(menu, { label: 'Mine' });
    expectError(await t.request('GET', `${API}/${menu.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${item.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${API}/${item.name}:move`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/${bob.websiteId}/navigation_menus/${menu.id}/items`, { token: bob.token }), 404, 'NOT_FOUND');
  });
});
