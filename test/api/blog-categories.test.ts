/** Blog categories, tags and authors (issue 13): the category tree, `:move`, `:set_posts`, deletes, overlays. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, idsOf, list } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let viewId: string;
const base = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants());
  viewId = (await list(t, alice.token, `${base()}/views`)).views[0].id;
});
afterAll(() => t?.close());

const make = async (path: string, body: unknown, user = alice) => expectStatus(await t.request('POST', `${base(user)}/${path}`, { token: user.token, body }), 201);
const call = (name: string, verb: string, body: unknown = {}, user = alice) => t.request('POST', `${API}/${name}:${verb}`, { token: user.token, body });
const get = async (name: string) => expectStatus(await t.request('GET', `${API}/${name}`, { token: alice.token }), 200);
const category = (display_name: string, extra: Record<string, unknown> = {}) => make('blog_categories', { display_name, ...extra });
/** A category's manual order as `GET …/posts` reads it back (one page is enough here). */
const orderOf = async (name: string) => expectStatus(await t.request('GET', `${API}/${name}/posts?page_size=100`, { token: alice.token }), 200).posts.map((p: any) => p.post_id);
const postsOf = async (categoryId: string) =>
  idsOf(await list(t, alice.token, `${base()}/blog_posts`, { filter: `category_ids:"${categoryId}"`, order_by: 'title' }), 'blog_posts');

describe('blog categories', () => {
  it('refuses bad input, naming the field', async () => {
    expectInvalid(await t.request('POST', `${base()}/blog_categories`, { token: alice.token, body: {} }), 'display_name');
    expectInvalid(await t.request('POST', `${base()}/blog_categories`, { token: alice.token, body: { display_name: 'x', url_key: 'Bad Key' } }), 'url_key');
    expectInvalid(await t.request('POST', `${base()}/blog_categories`, { token: alice.token, body: { display_name: 'x', parent_id: 'missing' } }), 'parent_id');
  });

  it('builds a tree with path, level and sort_order; url_key derived and unique per website', async () => {
    const root = await category('Recipes');
    await expectShape(t, 'CreateBlogCategory', 201, root);
    expect(root).toMatchObject({ url_key: 'recipes', level: 0, path: root.id, sort_order: 0 });
    const child = await category('Bread', { parent_id: root.id });
    expect(child).toMatchObject({ level: 1, path: `${root.id}/${child.id}` });
    expectError(await t.request('POST', `${base()}/blog_categories`, { token: alice.token, body: { display_name: 'Again', url_key: 'recipes' } }), 409, 'ALREADY_EXISTS');
    expectStatus(await t.request('POST', `${base(bob)}/blog_categories`, { token: bob.token, body: { display_name: 'Recipes' } }), 201);
  });

  it(':move reorders siblings and re-parents a subtree; moving under its own descendant is refused', async () => {
    const a = await category('Move A');
    const b = await category('Move B');
    const a1 = await category('Move A1', { parent_id: a.id });
    const a11 = await category('Move A11', { parent_id: a1.id });
    expectInvalid(await call(a.name, 'move', { parent_id: a11.id }), 'parent_id');
    expectInvalid(await call(a.name, 'move', { parent_id: a.id }), 'parent_id');
    const moved = expectStatus(await call(a1.name, 'move', { parent_id: b.id }), 200);
    expect(moved).toMatchObject({ parent_id: b.id, level: 1, path: `${b.id}/${a1.id}` });
    expect(await get(a11.name)).toMatchObject({ level: 2, path: `${b.id}/${a1.id}/${a11.id}` });
    // A stale etag is refused.
    expectError(await call(a1.name, 'move', { parent_id: null, etag: a1.etag }), 409, 'ABORTED');
  });

  it(':set_posts replaces the set and order of posts of a category atomically', async () => {
    const cat = await category('Set posts');
    const p = await Promise.all(['P1', 'P2', 'P3'].map((title) => make('blog_posts', { title })));
    const res = await call(cat.name, 'set_posts', { post_ids: [p[2].id, p[0].id] });
    const first = expectStatus(res, 200);
    // The category, as `:move` answers it (with its new etag), and the deprecated post_ids of the earlier answer.
    await expectShape(t, 'SetPostsBlogCategory', 200, first);
    expect(first).toMatchObject({ name: cat.name, id: cat.id, display_name: 'Set posts', url_key: cat.url_key, level: 0 });
    expect(first.etag).not.toBe(cat.etag);
    expect(res.headers.etag).toBe(`"${first.etag}"`);
    expect(first.post_ids).toEqual([p[2].id, p[0].id]);
    expect(await orderOf(cat.name)).toEqual([p[2].id, p[0].id]);
    expect(await postsOf(cat.id)).toEqual([p[0].id, p[2].id]);
    expect((await get(p[2].name)).category_ids).toEqual([cat.id]);
    const second = expectStatus(await call(cat.name, 'set_posts', { post_ids: [p[1].id, p[2].id] }), 200);
    expect(second.post_ids).toEqual([p[1].id, p[2].id]);
    expect(await orderOf(cat.name)).toEqual([p[1].id, p[2].id]);
    expect((await get(p[0].name)).category_ids).toEqual([]);
    // One unknown id: nothing written, the field named with its index.
    const before = await get(cat.name);
    expectInvalid(await call(cat.name, 'set_posts', { post_ids: [p[0].id, 'missing'] }), 'post_ids[1]');
    expectInvalid(await call(cat.name, 'set_posts', { post_ids: [p[0].id, p[0].id] }), 'post_ids[1]');
    expect((await get(cat.name)).etag).toBe(before.etag);
    expect(await postsOf(cat.id)).toEqual([p[1].id, p[2].id]);
    expect((await get(p[0].name)).category_ids).toEqual([]);
    // Another website's post is unknown here.
    const bobPost = await make('blog_posts', { title: 'Bob' }, bob);
    expectInvalid(await call(cat.name, 'set_posts', { post_ids: [bobPost.id] }), 'post_ids[0]');
    expectInvalid(await call(cat.name, 'set_posts', {}), 'post_ids');
    // Stale etag.
    expectError(await call(cat.name, 'set_posts', { post_ids: [], etag: cat.etag }), 409, 'ABORTED');
    expect(expectStatus(await call(cat.name, 'set_posts', { post_ids: [] }), 200).post_ids).toEqual([]);
    expect(await postsOf(cat.id)).toEqual([]);
  });

  it("reads a category's manual order back page by page (GET …/blog_categories/{c}/posts)", async () => {
    const cat = await category('Read order');
    const posts = [];
    for (const title of ['O1', 'O2', 'O3', 'O4', 'O5']) posts.push(await make('blog_posts', { title }));
    const order = [posts[3], posts[0], posts[4], posts[1], posts[2]].map((p) => p.id);
    expectStatus(await call(cat.name, 'set_posts', { post_ids: order }), 200);
    const url = `${API}/${cat.name}/posts`;
    const seen: string[] = [];
    let token = '';
    let pages = 0;
    do {
      const page = expectStatus(await t.request('GET', `${url}?page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ''}`, { token: alice.token }), 200);
      await expectShape(t, 'ListBlogCategoryPosts', 200, page);
      expect(page.total_size).toBe(5);
      for (const item of page.posts) {
        expect(item).toMatchObject({ name: `${cat.name}/posts/${item.post_id}`, post: `websites/${alice.websiteId}/blog_posts/${item.post_id}` });
        seen.push(item.post_id);
      }
      token = page.next_page_token;
      pages++;
    } while (token);
    expect(seen).toEqual(order);
    expect(pages).toBe(3);
    expectError(await t.request('GET', `${url}?page_token=garbage`, { token: alice.token }), 400, 'INVALID_ARGUMENT');
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/blog_categories/nosuchcategory/posts`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', url, { token: bob.token }), 404, 'NOT_FOUND');
  });

  it('deleting a category with children or posts is refused unless force, which removes the subtree from its posts', async () => {
    const top = await category('Del top');
    const sub = await category('Del sub', { parent_id: top.id });
    const withPost = await category('Del with post');
    const p = await make('blog_posts', { title: 'In sub', category_ids: [sub.id, withPost.id] });
    expectError(await t.request('DELETE', `${API}/${top.name}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expectError(await t.request('DELETE', `${API}/${withPost.name}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect((await t.request('DELETE', `${API}/${top.name}?force=true`, { token: alice.token })).statusCode).toBe(204);
    expectError(await t.request('GET', `${API}/${sub.name}`, { token: alice.token }), 404, 'NOT_FOUND');
    expect((await get(p.name)).category_ids).toEqual([withPost.id]);
    expect(await postsOf(withPost.id)).toEqual([p.id]);
  });

  it("answers 404 to another tenant's categories, tags and authors and their methods", async () => {
    const cat = await category('Private');
    const tag = await make('blog_tags', { display_name: 'Private' });
    const author = await make('blog_authors', { display_name: 'Private' });
    for (const r of [cat, tag, author]) {
      expectError(await t.request('GET', `${API}/${r.name}`, { token: bob.token }), 404, 'NOT_FOUND');
      expectError(await t.request('DELETE', `${API}/${r.name}`, { token: bob.token }), 404, 'NOT_FOUND');
      expectError(await call(r.name, 'resolve', {}, bob), 404, 'NOT_FOUND');
    }
    expectError(await call(cat.name, 'set_posts', { post_ids: [] }, bob), 404, 'NOT_FOUND');
    expectError(await call(cat.name, 'move', {}, bob), 404, 'NOT_FOUND');
  });

  it('overlays of categories, tags and authors replace the fields they list in :resolve', async () => {
    const cat = await category('Base cat');
    const tag = await make('blog_tags', { display_name: 'Base tag' });
    const author = await make('blog_authors', { display_name: 'Base author', bio: 'Base bio' });
    for (const [r, field] of [[cat, 'display_name'], [tag, 'display_name'], [author, 'bio']] as const) {
      const res = await t.request('PATCH', `${API}/${r.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { [field]: 'In view' } });
      expect(res.statusCode).toBe(201);
      const seen = expectStatus(await call(r.name, 'resolve', { view_id: viewId }), 200);
      expect(seen[field]).toBe('In view');
      expect(seen.overridden_fields).toEqual([field]);
      // Removing the name from `overridden` shows the stored value again.
      expectStatus(await t.request('PATCH', `${API}/${r.name}/views/${viewId}`, { token: alice.token, body: { overridden: [] } }), 200);
      expect(expectStatus(await call(r.name, 'resolve', { view_id: viewId }), 200)[field]).toBe(r[field]);
    }
    expectInvalid(await t.request('PATCH', `${API}/${tag.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { url_key: 'x' } }), 'url_key');
  });
});
