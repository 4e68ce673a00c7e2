/** Blog posts (issue 13): `websites/{w}/blog_posts`, their state, filters, revisions and overlays. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, idsOf, list, snapshot, walk, withQuery } from '../support/fixtures.js';
import { DRIVE_MAX_PAGES } from '../../src/platform/db/database.js';
import { png, upload } from '../support/media.js';
import { runsScript, XSS_VECTORS } from '../support/xss.js';

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

const post = (body: unknown, user = alice) => t.request('POST', `${base(user)}/blog_posts`, { token: user.token, body });
const make = async (path: string, body: unknown, user = alice) => expectStatus(await t.request('POST', `${base(user)}/${path}`, { token: user.token, body }), 201);
const patch = (name: string, body: unknown, headers: Record<string, string> = {}) => t.request('PATCH', `${API}/${name}`, { token: alice.token, body, headers });
const call = (name: string, verb: string, body: unknown = {}, user = alice) => t.request('POST', `${API}/${name}:${verb}`, { token: user.token, body });
/** A post's revisions (nested List: operationId ListBlogPostRevisions). */
const revisionsOf = async (name: string, query: Record<string, string | number> = {}) => {
  const page = expectStatus(await t.request('GET', withQuery(`${API}/${name}/revisions`, query), { token: alice.token }), 200);
  await expectShape(t, 'ListBlogPostRevisions', 200, page);
  return page;
};
const get = async (name: string) => expectStatus(await t.request('GET', `${API}/${name}`, { token: alice.token }), 200);

describe('blog posts', () => {
  it('requires a signed-in user', async () => {
    expectError(await t.request('GET', `${base()}/blog_posts`), 401, 'UNAUTHENTICATED');
  });

  it('refuses bad input, naming the field', async () => {
    expectInvalid(await post({}), 'title');
    expectInvalid(await post({ title: '  ' }), 'title');
    expectInvalid(await post({ title: 'x', state: 'LIVE' }), 'state');
    expectInvalid(await post({ title: 'x', url_key: 'Not A Key' }), 'url_key');
    expectInvalid(await post({ title: 'x', canonical_url: 'javascript:alert(1)' }), 'canonical_url');
    expectInvalid(await post({ title: 'x', tag_ids: 'a' }), 'tag_ids');
    expectInvalid(await post({ title: 'x', unknown_field: 1 }), 'unknown_field');
    expectInvalid(await post({ title: 'x'.repeat(256) }), 'title');
  });

  it('creates a draft with url_key derived from the title and an excerpt derived from the content', async () => {
    const created = expectStatus(await post({ title: 'Our New Sourdough!', content: '<p>Three <b>days</b> of rising.</p>' }), 201);
    await expectShape(t, 'CreateBlogPost', 201, created);
    expect(created).toMatchObject({ url_key: 'our-new-sourdough', state: 'DRAFT', excerpt: 'Three days of rising.', author_ids: [], visible_view_ids: [] });
    const custom = expectStatus(await post({ title: 'Custom excerpt', custom_excerpt: 'Hand written', content: '<p>Body</p>' }), 201);
    expect(custom.excerpt).toBe('Hand written');
  });

  it('a derived excerpt is about 300 characters of text, cut at a word, never inside an entity', async () => {
    const words = Array.from({ length: 80 }, (_, i) => `w${i}`).join(' &amp; ');
    const p = expectStatus(await post({ title: 'Long', content: `<p>${words}</p>` }), 201);
    expect(p.excerpt.length).toBeLessThanOrEqual(301);
    expect(p.excerpt.endsWith('…')).toBe(true);
    expect(p.excerpt).not.toMatch(/&[a-z]*…$/);
    expect(p.excerpt).not.toContain('<');
  });

  it('validate_only checks a SCHEDULED post without writing it or its Operation', async () => {
    const count = async () => (await t.fresh.database.db.selectFrom('operations').select('id').where('type', '=', 'PUBLISH_SCHEDULED_BLOG_POST').execute()).length;
    const before = await count();
    const res = await t.request('POST', `${base()}/blog_posts?validate_only=true`, {
      token: alice.token,
      body: { title: 'Dry run', state: 'SCHEDULED', publish_time: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(res.statusCode).toBe(200);
    expect(await count()).toBe(before);
    expectError(await t.request('GET', `${base()}/blog_posts/${res.json().id}`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('url_key is unique per website and view scope', async () => {
    expectStatus(await post({ title: 'Dup', url_key: 'same-key' }), 201);
    expectError(await post({ title: 'Dup 2', url_key: 'same-key' }), 409, 'ALREADY_EXISTS');
    // Another website may use it.
    expectStatus(await post({ title: 'Dup', url_key: 'same-key' }, bob), 201);
  });

  it('script in content and excerpt is stripped (the XSS vectors of pages)', async () => {
    for (const [i, vector] of XSS_VECTORS.entries()) {
      const created = expectStatus(await post({ title: `X${i}`, url_key: `xss-${i}`, content: vector, custom_excerpt: vector }), 201);
      expect({ vector, content: runsScript(created.content ?? ''), excerpt: runsScript(created.excerpt ?? '') }).toEqual({ vector, content: undefined, excerpt: undefined });
    }
    const p = expectStatus(await post({ title: 'Overlay xss', url_key: 'overlay-xss' }), 201);
    for (const vector of XSS_VECTORS.slice(0, 10)) {
      const res = await t.request('PATCH', `${API}/${p.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { content: vector, custom_excerpt: vector } });
      expect([200, 201]).toContain(res.statusCode);
      expect(runsScript(res.json().content ?? '')).toBeUndefined();
      expect(runsScript(res.json().custom_excerpt ?? '')).toBeUndefined();
    }
  });

  it("refuses another website's media, categories, tags and authors, naming the field", async () => {
    const bobMedia = await upload(t, bob.token, bob.websiteId, 'b.png', await png(4, 4));
    const bobTag = await make('blog_tags', { display_name: 'Bob tag' }, bob);
    const bobCategory = await make('blog_categories', { display_name: 'Bob cat' }, bob);
    const bobAuthor = await make('blog_authors', { display_name: 'Bob' }, bob);
    expectInvalid(await post({ title: 'x', feature_image_media_id: bobMedia.id }), 'feature_image_media_id');
    expectInvalid(await post({ title: 'x', og_image_media_id: bobMedia.id }), 'og_image_media_id');
    expectInvalid(await post({ title: 'x', tag_ids: [bobTag.id] }), 'tag_ids');
    expectInvalid(await post({ title: 'x', category_ids: [bobCategory.id] }), 'category_ids');
    expectInvalid(await post({ title: 'x', author_ids: [bobAuthor.id] }), 'author_ids');
    expectInvalid(await post({ title: 'x', visible_view_ids: ['nope'] }), 'visible_view_ids');
    expectInvalid(await make('blog_authors', { display_name: 'Avatar' }).then((a) => patch(a.name, { avatar_media_id: bobMedia.id })), 'avatar_media_id');
    expectInvalid(await t.request('POST', `${base()}/blog_authors`, { token: alice.token, body: { display_name: 'U', user_id: bob.userId } }), 'user_id');
  });

  it("answers 404 to another tenant's posts and their methods", async () => {
    const p = expectStatus(await post({ title: 'Private' }), 201);
    expectError(await t.request('GET', `${API}/${p.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${API}/${p.name}`, { token: bob.token, body: { title: 'x' } }), 404, 'NOT_FOUND');
    expectError(await call(p.name, 'publish', {}, bob), 404, 'NOT_FOUND');
    expectError(await call(p.name, 'resolve', {}, bob), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/${p.name}/revisions`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${base()}/blog_posts/missing`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it('refuses a stale etag with 409 ABORTED (Update, :publish)', async () => {
    const p = expectStatus(await post({ title: 'Etag' }), 201);
    expectStatus(await patch(p.name, { title: 'Etag 2' }, { 'if-match': `"${p.etag}"` }), 200);
    expectError(await patch(p.name, { title: 'Etag 3' }, { 'if-match': `"${p.etag}"` }), 409, 'ABORTED');
    expectError(await call(p.name, 'publish', { etag: p.etag }), 409, 'ABORTED');
  });

  it(':publish and :unpublish; PUBLISHED stamps the time it went live', async () => {
    const p = expectStatus(await post({ title: 'Publish me' }), 201);
    const published = expectStatus(await call(p.name, 'publish'), 200);
    expect(published.state).toBe('PUBLISHED');
    expect(Date.parse(published.publish_time)).toBeGreaterThan(Date.parse(p.create_time) - 1);
    const draft = expectStatus(await call(p.name, 'unpublish'), 200);
    expect(draft.state).toBe('DRAFT');
    const backdated = expectStatus(await post({ title: 'Backdated', state: 'PUBLISHED', publish_time: '2020-01-01T00:00:00Z' }), 201);
    expect(backdated.publish_time).toBe('2020-01-01T00:00:00.000Z');
  });

  it('a SCHEDULED write with publish_time in the past (or none) is refused, naming publish_time', async () => {
    expectInvalid(await post({ title: 'Late', state: 'SCHEDULED', publish_time: '2020-01-01T00:00:00Z' }), 'publish_time');
    expectInvalid(await post({ title: 'Late', state: 'SCHEDULED' }), 'publish_time');
    const p = expectStatus(await post({ title: 'Later' }), 201);
    expectInvalid(await patch(p.name, { state: 'SCHEDULED', publish_time: '2020-01-01T00:00:00Z' }), 'publish_time');
  });

  it('filters by state, category, tag, author, publish_time and title; orders by publish_time', async () => {
    const cat = await make('blog_categories', { display_name: 'Filter cat' });
    const tag = await make('blog_tags', { display_name: 'Filter tag' });
    const author = await make('blog_authors', { display_name: 'Filter author' });
    const a = expectStatus(await post({ title: 'Filter A', category_ids: [cat.id], tag_ids: [tag.id], state: 'PUBLISHED', publish_time: '2021-01-01T00:00:00Z' }), 201);
    const b = expectStatus(await post({ title: 'Filter B', category_ids: [cat.id], author_ids: [author.id], state: 'PUBLISHED', publish_time: '2022-01-01T00:00:00Z' }), 201);
    expectStatus(await post({ title: 'Filter C', tag_ids: [tag.id] }), 201);
    const url = `${base()}/blog_posts`;
    expect(idsOf(await list(t, alice.token, url, { filter: `category_ids:"${cat.id}"`, order_by: 'publish_time desc' }), 'blog_posts')).toEqual([b.id, a.id]);
    expect(idsOf(await list(t, alice.token, url, { filter: `tag_ids:"${tag.id}" AND state = PUBLISHED` }), 'blog_posts')).toEqual([a.id]);
    expect(idsOf(await list(t, alice.token, url, { filter: `author_ids:"${author.id}"` }), 'blog_posts')).toEqual([b.id]);
    expect(idsOf(await list(t, alice.token, url, { filter: `publish_time > 2021-06-01T00:00:00Z AND title:"Filter"` }), 'blog_posts')).toEqual([b.id]);
    // Lists replaced whole: the side table follows.
    expectStatus(await patch(b.name, { category_ids: [] }), 200);
    expect(idsOf(await list(t, alice.token, url, { filter: `category_ids:"${cat.id}"` }), 'blog_posts')).toEqual([a.id]);
  });

  it('paging through a rare and a common category gives exactly its posts in order (side-table plan chosen by the total)', async () => {
    // At one post a page, the common category holds more than DRIVE_MAX_PAGES pages' worth (SQLite
    // walks the publish_time index probing the side table) and the rare one a few (SQLite starts
    // from the side table and sorts); PostgreSQL's planner chooses itself. Drafts have no
    // publish_time (first in `desc`, as PostgreSQL's NULL order) and equal times tie-break on id.
    const common = await make('blog_categories', { display_name: 'Common cat' });
    const rare = await make('blog_categories', { display_name: 'Rare cat' });
    const tag = await make('blog_tags', { display_name: 'Paging tag' });
    const posts: any[] = [];
    for (let i = 0; i < DRIVE_MAX_PAGES + 2; i++) {
      const inRare = i % 10 === 3;
      const body: Record<string, unknown> = { title: `Paging ${String(i % 7).padStart(2, '0')}`, url_key: `paging-${i}`, category_ids: inRare ? [common.id, rare.id] : [common.id] };
      if (i % 9 !== 0) Object.assign(body, { state: 'PUBLISHED', publish_time: new Date(Date.UTC(2021, 0, 1 + (i % 13))).toISOString() });
      if (i % 4 === 0) body.tag_ids = [tag.id];
      posts.push(expectStatus(await post(body), 201));
    }
    const time = (p: any) => (p.publish_time === undefined ? Infinity : Date.parse(p.publish_time));
    const newestFirst = (a: any, b: any) => time(b) - time(a) || (a.id < b.id ? 1 : -1);
    const byTitle = (a: any, b: any) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id < b.id ? -1 : 1);
    const url = `${base()}/blog_posts`;
    const walked = async (query: Record<string, string | number>) => (await walk(t, alice.token, url, query)).flatMap((page) => idsOf(page, 'blog_posts'));
    const ids = (filter: (p: any) => boolean, order: (a: any, b: any) => number) => posts.filter(filter).sort(order).map((p) => p.id);
    const inRare = (p: any) => p.category_ids.includes(rare.id);
    const tagged = (p: any) => p.tag_ids.includes(tag.id);

    expect(await walked({ filter: `category_ids:"${common.id}"`, order_by: 'publish_time desc', page_size: 1 })).toEqual(ids(() => true, newestFirst));
    expect(await walked({ filter: `category_ids:"${rare.id}"`, order_by: 'publish_time desc', page_size: 1 })).toEqual(ids(inRare, newestFirst));
    expect(await walked({ filter: `category_ids:"${rare.id}"`, order_by: 'title', page_size: 2 })).toEqual(ids(inRare, byTitle));
    expect(await walked({ filter: `tag_ids:"${tag.id}" AND category_ids:"${common.id}"`, order_by: 'title', page_size: 1 })).toEqual(ids(tagged, byTitle));
    const total = (await list(t, alice.token, url, { filter: `category_ids:"${rare.id}"`, page_size: 1 })).total_size;
    expect(total).toBe(posts.filter(inRare).length);
  });

  it('deleting a tag, author, category or media item detaches it from every post in the same transaction', async () => {
    const tag = await make('blog_tags', { display_name: 'Doomed tag' });
    const author = await make('blog_authors', { display_name: 'Doomed author' });
    const cat = await make('blog_categories', { display_name: 'Doomed cat' });
    const media = await upload(t, alice.token, alice.websiteId, 'f.png', await png(4, 4));
    const p = expectStatus(await post({ title: 'Detach', tag_ids: [tag.id], author_ids: [author.id], category_ids: [cat.id], feature_image_media_id: media.id }), 201);
    expect((await t.request('DELETE', `${API}/${tag.name}`, { token: alice.token })).statusCode).toBe(204);
    expect((await t.request('DELETE', `${API}/${author.name}`, { token: alice.token })).statusCode).toBe(204);
    expectError(await t.request('DELETE', `${API}/${cat.name}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect((await t.request('DELETE', `${API}/${cat.name}?force=true`, { token: alice.token })).statusCode).toBe(204);
    expect((await t.request('DELETE', `${API}/${media.name}`, { token: alice.token })).statusCode).toBe(204);
    const after = await get(p.name);
    expect(after).toMatchObject({ tag_ids: [], author_ids: [], category_ids: [] });
    expect(after.feature_image_media_id).toBeUndefined();
    expect(after.etag).not.toBe(p.etag);
  });

  it('deleting a view detaches its overlays; a post visible only there goes back to DRAFT', async () => {
    const view = expectStatus(await t.request('POST', `${base()}/views`, { token: alice.token, body: { display_name: 'FR', locale: 'fr-FR', url_prefix: 'fr' } }), 201);
    const p = expectStatus(await post({ title: 'Only FR', visible_view_ids: [view.id], state: 'PUBLISHED' }), 201);
    expect([200, 201]).toContain((await t.request('PATCH', `${API}/${p.name}/views/${view.id}?allow_missing=true`, { token: alice.token, body: { title: 'Seulement' } })).statusCode);
    expect((await t.request('DELETE', `${API}/${view.name}?force=true`, { token: alice.token })).statusCode).toBe(204);
    const after = await get(p.name);
    expect(after).toMatchObject({ state: 'DRAFT', visible_view_ids: [] });
    expect((await list(t, alice.token, `${API}/${p.name}/views`)).blog_post_views ?? (await list(t, alice.token, `${API}/${p.name}/views`)).views).toEqual([]);
  });

  it('a view overlay replaces the fields it lists in :resolve', async () => {
    const p = expectStatus(await post({ title: 'Base title', content: '<p>Base</p>', state: 'PUBLISHED' }), 201);
    const plain = expectStatus(await call(p.name, 'resolve', {}), 200);
    expect(plain).toMatchObject({ title: 'Base title', overridden_fields: [], is_visible: true, excerpt: 'Base', state: 'PUBLISHED' });
    expect([200, 201]).toContain((await t.request('PATCH', `${API}/${p.name}/views/${viewId}?allow_missing=true`, { token: alice.token, body: { title: 'View title', content: '<p>Seen</p>' } })).statusCode);
    const seen = expectStatus(await call(p.name, 'resolve', { view_id: viewId }), 200);
    expect(seen).toMatchObject({ title: 'View title', content: '<p>Seen</p>', excerpt: 'Seen', view_id: viewId });
    expect(seen.overridden_fields.sort()).toEqual(['content', 'title']);
    await expectShape(t, 'ResolveBlogPost', 200, seen);
    expectInvalid(await call(p.name, 'resolve', { view_id: 'nope' }), 'view_id');
  });

  it('fallback inherited: a view without an overlay of its own shows its fallback chain\'s post overlay; its own overlay wins', async () => {
    const view = async (locale: string, prefix: string, fallback?: string) =>
      expectStatus(await t.request('POST', `${base()}/views`, { token: alice.token, body: { display_name: locale, locale, url_prefix: prefix, ...(fallback ? { fallback_view_id: fallback } : {}) } }), 201).id;
    const de = await view('de', 'fb-de');
    const at = await view('de-AT', 'fb-at', de);
    const p = expectStatus(await post({ title: 'English title', content: '<p>English</p>', state: 'PUBLISHED' }), 201);
    expect((await t.request('PATCH', `${API}/${p.name}/views/${de}?allow_missing=true`, { token: alice.token, body: { title: 'Deutscher Titel', content: '<p>Deutsch</p>' } })).statusCode).toBe(201);
    const inherited = expectStatus(await call(p.name, 'resolve', { view_id: at }), 200);
    await expectShape(t, 'ResolveBlogPost', 200, inherited);
    expect(inherited).toMatchObject({ view_id: at, title: 'Deutscher Titel', content: '<p>Deutsch</p>', excerpt: 'Deutsch', field_sources: { title: `views/${de}`, content: `views/${de}` } });
    expect((await t.request('PATCH', `${API}/${p.name}/views/${at}?allow_missing=true`, { token: alice.token, body: { title: 'Österreichischer Titel' } })).statusCode).toBe(201);
    const own = expectStatus(await call(p.name, 'resolve', { view_id: at }), 200);
    expect(own).toMatchObject({ title: 'Österreichischer Titel', content: '<p>Deutsch</p>', field_sources: { title: `views/${at}`, content: `views/${de}` } });
    // Categories resolve the same way.
    const cat = await make('blog_categories', { display_name: 'Bread' });
    expect((await t.request('PATCH', `${API}/${cat.name}/views/${de}?allow_missing=true`, { token: alice.token, body: { display_name: 'Brot' } })).statusCode).toBe(201);
    expect(expectStatus(await call(cat.name, 'resolve', { view_id: at }), 200)).toMatchObject({ display_name: 'Brot', field_sources: { display_name: `views/${de}` } });
  });

  it('every content write keeps a revision (newest first, who and when); :restore writes a new one', async () => {
    const p = expectStatus(await post({ title: 'Rev 1', content: '<p>one</p>' }), 201);
    const v2 = expectStatus(await patch(p.name, { title: 'Rev 2', content: '<p>two</p>' }), 200);
    expectStatus(await call(p.name, 'publish'), 200);
    const revisions = (await revisionsOf(p.name)).revisions;
    expect(revisions.map((r: any) => r.snapshot.title)).toEqual(['Rev 2', 'Rev 1']);
    expect(revisions[0]).toMatchObject({ created_by: `users/${alice.userId}`, post_revision: 2 });
    expect(Date.parse(revisions[0].create_time)).toBe(Date.parse(v2.update_time));
    // Read-only.
    expect([404, 405]).toContain((await t.request('PATCH', `${API}/${revisions[1].name}`, { token: alice.token, body: {} })).statusCode);
    const current = await get(p.name);
    expectError(await call(revisions[1].name, 'restore', { etag: p.etag }), 409, 'ABORTED');
    const restored = expectStatus(await call(revisions[1].name, 'restore', { etag: current.etag }), 200);
    expect(restored).toMatchObject({ title: 'Rev 1', content: '<p>one</p>', state: 'PUBLISHED' });
    const after = (await revisionsOf(p.name)).revisions;
    expect(after.map((r: any) => r.snapshot.title)).toEqual(['Rev 1', 'Rev 2', 'Rev 1']);
  });

  it('keeps the newest 50 revisions of a post', async () => {
    const p = expectStatus(await post({ title: 'Many 0' }), 201);
    for (let i = 1; i <= 52; i++) expectStatus(await patch(p.name, { title: `Many ${i}` }), 200);
    const page = await revisionsOf(p.name, { page_size: 100 });
    expect(page.revisions).toHaveLength(50);
    expect(page.revisions[0].snapshot.title).toBe('Many 52');
    expect(page.revisions[49].snapshot.title).toBe('Many 3');
  });

  it('a refused write changes nothing', async () => {
    const before = await snapshot(t, alice.token, `${base()}/blog_posts`, 'blog_posts');
    expectInvalid(await post({ title: 'x', tag_ids: ['missing'] }), 'tag_ids');
    expect(await snapshot(t, alice.token, `${base()}/blog_posts`, 'blog_posts')).toEqual(before);
  });
});
