/**
 * Blog (issue 13), the rules an outside check probes that the area's own files left untested:
 * url_key view scope and derivation, excerpt following the content, sanitising on Update,
 * references refused on Update, :publish / :unpublish transitions and etags, orders and garbage
 * filters, the fallback chain for tags and authors, restore across tenants, and hostile input on
 * every blog route (never a 500, always the canonical error naming the field).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { canonicalErrorProblem } from '../support/canonical.js';
import { API, expectError, expectInvalid, expectStatus, idsOf, list, walk } from '../support/fixtures.js';
import { png, upload } from '../support/media.js';
import { runsScript, XSS_VECTORS } from '../support/xss.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let viewId: string;
const base = (u: TestUser = alice) => `${API}/websites/${u.websiteId}`;

beforeAll(async () => {
  t = await startTestApp();
  [alice, bob] = await Promise.all([t.signUpProvisioned(), t.signUpProvisioned()]);
  viewId = (await list(t, alice.token, `${base()}/views`)).views[0].id;
});
afterAll(() => t?.close());

const req = (method: string, url: string, body?: unknown, user = alice, headers: Record<string, string> = {}) => t.request(method, url, { token: user.token, body, headers });
const make = async (path: string, body: unknown, user = alice) => expectStatus(await req('POST', `${base(user)}/${path}`, body, user), 201);
const post = (body: unknown, user = alice) => req('POST', `${base(user)}/blog_posts`, body, user);
const patch = (name: string, body: unknown, headers: Record<string, string> = {}) => req('PATCH', `${API}/${name}`, body, alice, headers);
const call = (name: string, verb: string, body: unknown = {}, user = alice, headers: Record<string, string> = {}) => req('POST', `${API}/${name}:${verb}`, body, user, headers);
const get = async (name: string) => expectStatus(await req('GET', `${API}/${name}`), 200);
/** A post's revisions, newest first. */
const revisionsOf = async (postName: string, user = alice) => expectStatus(await req('GET', `${API}/${postName}/revisions`, undefined, user), 200).revisions as any[];
/** INVALID_ARGUMENT naming the filter or the field inside it (SPEC: the message names the field). */
const expectBadFilter = (res: Awaited<ReturnType<typeof req>>, ...fields: string[]) => {
  const error = expectError(res, 400, 'INVALID_ARGUMENT');
  const named = error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => d.field);
  expect(named.some((f: string) => ['filter', ...fields].includes(f)), `names filter or ${fields.join('/')}: ${JSON.stringify(named)}`).toBe(true);
};
let n = 0;
const view = async (locale: string, fallback?: string) => {
  n += 1;
  return (await make('views', { display_name: `${locale} ${n}`, locale, url_prefix: `audit-${n}`, ...(fallback ? { fallback_view_id: fallback } : {}) })).id as string;
};

describe('blog posts: url_key', () => {
  it('url_key is unique per view scope: disjoint visible_view_ids may share it, overlapping or every-view may not', async () => {
    const a = await view('fr');
    const b = await view('it');
    const inA = expectStatus(await post({ title: 'Scoped A', url_key: 'scoped-key', visible_view_ids: [a] }), 201);
    const inB = expectStatus(await post({ title: 'Scoped B', url_key: 'scoped-key', visible_view_ids: [b] }), 201);
    expectError(await post({ title: 'Scoped all', url_key: 'scoped-key' }), 409, 'ALREADY_EXISTS');
    expectError(await post({ title: 'Scoped AB', url_key: 'scoped-key', visible_view_ids: [a, b] }), 409, 'ALREADY_EXISTS');
    // Widening one post's views into the other's is refused; the post stays as it was.
    expectError(await patch(inB.name, { visible_view_ids: [a, b] }), 409, 'ALREADY_EXISTS');
    expect((await get(inB.name)).visible_view_ids).toEqual([b]);
    // Renaming into a taken key in an overlapping scope is refused too.
    const other = expectStatus(await post({ title: 'Scoped other', url_key: 'scoped-other', visible_view_ids: [a] }), 201);
    expectError(await patch(other.name, { url_key: inA.url_key }), 409, 'ALREADY_EXISTS');
  });

  it('url_key derived from the title: accents folded, punctuation dropped; a derived key already taken gets a numeric suffix', async () => {
    const first = expectStatus(await post({ title: 'Crème Brûlée: the Basics!' }), 201);
    expect(first.url_key).toBe('creme-brulee-the-basics');
    const second = expectStatus(await post({ title: 'Crème brûlée — the basics' }), 201);
    expect(second.url_key).toBe('creme-brulee-the-basics-2');
    const third = expectStatus(await post({ title: 'Creme brulee the basics' }), 201);
    expect(third.url_key).toBe('creme-brulee-the-basics-3');
    // A key sent by the client is never renamed: a taken one is ALREADY_EXISTS naming url_key.
    const error = expectError(await post({ title: 'x', url_key: 'creme-brulee-the-basics' }), 409, 'ALREADY_EXISTS');
    expect(error.message).toContain('url_key');
  });

  it('url_key derived from a title in another script is transliterated, not a placeholder', async () => {
    expect(expectStatus(await post({ title: 'Привет мир' }), 201).url_key).toBe('privet-mir');
    expect(expectStatus(await post({ title: '你好世界' }), 201).url_key).toBe('ni-hao-shi-jie');
    expect(expectStatus(await post({ title: 'Große Straße' }), 201).url_key).toBe('grosse-strasse');
  });

  it('url_key cleared on Update is derived from the title again', async () => {
    const p = expectStatus(await post({ title: 'Cleared key', url_key: 'custom-cleared' }), 201);
    const cleared = expectStatus(await patch(`${p.name}?update_mask=url_key`, {}), 200);
    expect(cleared.url_key).toBe('cleared-key');
  });

  it('categories, tags and authors derive url_key from display_name, suffixing a taken one', async () => {
    for (const path of ['blog_categories', 'blog_tags', 'blog_authors']) {
      const a = await make(path, { display_name: 'Same Name' });
      const b = await make(path, { display_name: 'Same name' });
      expect([a.url_key, b.url_key]).toEqual(['same-name', 'same-name-2']);
      expectError(await req('POST', `${base()}/${path}`, { display_name: 'x', url_key: 'same-name' }), 409, 'ALREADY_EXISTS');
      expectError(await patch(b.name, { url_key: 'same-name' }), 409, 'ALREADY_EXISTS');
    }
  });
});

describe('blog: url_key under concurrent writes', () => {
  it('concurrent creates of one title or name each get their own derived url_key; of one sent url_key, one wins and the rest are ALREADY_EXISTS naming url_key', async () => {
    for (const [path, body] of [
      ['blog_posts', { title: 'Race' }],
      ['blog_categories', { display_name: 'Race' }],
      ['blog_tags', { display_name: 'Race' }],
      ['blog_authors', { display_name: 'Race' }],
    ] as const) {
      const derived = await Promise.all(Array.from({ length: 5 }, () => req('POST', `${base()}/${path}`, body)));
      expect(derived.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
      expect(derived.map((r) => r.json().url_key).sort()).toEqual(['race', 'race-2', 'race-3', 'race-4', 'race-5']);
      const sent = await Promise.all(Array.from({ length: 4 }, () => req('POST', `${base()}/${path}`, { ...body, url_key: 'race-sent' })));
      expect(sent.filter((r) => r.statusCode === 201)).toHaveLength(1);
      for (const refused of sent.filter((r) => r.statusCode !== 201)) expect(expectError(refused, 409, 'ALREADY_EXISTS').details.some((d: any) => d.field === 'url_key')).toBe(true);
    }
  });
});

describe('blog posts: excerpt and sanitising', () => {
  it('excerpt follows the content on Update; custom_excerpt wins while set; content of tags only gives none', async () => {
    const p = expectStatus(await post({ title: 'Excerpt follows', content: '<p>First</p>' }), 201);
    expect(p.excerpt).toBe('First');
    expect(expectStatus(await patch(p.name, { content: '<h2>Second</h2><p>version</p>' }), 200).excerpt).toBe('Second version');
    expect(expectStatus(await patch(p.name, { custom_excerpt: 'Mine' }), 200).excerpt).toBe('Mine');
    expect(expectStatus(await patch(`${p.name}?update_mask=custom_excerpt`, {}), 200).excerpt).toBe('Second version');
    const empty = expectStatus(await post({ title: 'No text', content: '<p> </p><img src="https://example.com/a.png">' }), 201);
    expect(empty.excerpt).toBeUndefined();
  });

  it('a written excerpt becomes the custom one (sanitised); sending back the shown excerpt changes nothing; clearing it derives again', async () => {
    const p = expectStatus(await post({ title: 'Excerpt written', content: '<p>Body text</p>', excerpt: 'Mine<script>alert(1)</script>' }), 201);
    expect(p.excerpt).toBe('Mine');
    expect(p.custom_excerpt).toBe('Mine');
    // custom_excerpt wins when both are sent.
    expect(expectStatus(await post({ title: 'Excerpt both', excerpt: 'A', custom_excerpt: 'B' }), 201).excerpt).toBe('B');
    // A read-modify-write of a post whose excerpt is derived keeps it derived.
    const derived = expectStatus(await post({ title: 'Excerpt round trip', content: '<p>Old body</p>' }), 201);
    const roundTrip = expectStatus(await patch(derived.name, { excerpt: derived.excerpt, content: '<p>New body</p>' }), 200);
    expect(roundTrip.excerpt).toBe('New body');
    expect(roundTrip.custom_excerpt).toBeUndefined();
    expect(expectStatus(await patch(derived.name, { excerpt: 'Hand made' }), 200)).toMatchObject({ excerpt: 'Hand made', custom_excerpt: 'Hand made' });
    const cleared = expectStatus(await patch(`${derived.name}?update_mask=excerpt`, {}), 200);
    expect(cleared.excerpt).toBe('New body');
    expect(cleared.custom_excerpt).toBeUndefined();
    expectInvalid(await post({ title: 'Excerpt long', excerpt: 'x'.repeat(2001) }), 'excerpt');
  });

  it('script in content and custom_excerpt is stripped on Update and in :resolve', async () => {
    const p = expectStatus(await post({ title: 'XSS update', content: '<p>ok</p>' }), 201);
    for (const vector of XSS_VECTORS) {
      const updated = expectStatus(await patch(p.name, { content: `<p>a</p>${vector}`, custom_excerpt: vector }), 200);
      expect({ vector, content: runsScript(updated.content ?? ''), excerpt: runsScript(updated.excerpt ?? '') }).toEqual({ vector, content: undefined, excerpt: undefined });
    }
    const resolved = expectStatus(await call(p.name, 'resolve', {}), 200);
    expect(runsScript(resolved.content ?? '')).toBeUndefined();
    // The derived excerpt of sanitised content cannot carry markup either.
    const derived = expectStatus(await post({ title: 'XSS derived', content: '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p><img src=x onerror=alert(1)>' }), 201);
    expect(runsScript(derived.excerpt ?? '')).toBeUndefined();
    expect(derived.excerpt).not.toContain('<');
  });

  it('NUL and control characters in plain-text SEO fields never fail a write (Create and Update)', async () => {
    for (const field of ['meta_title', 'meta_description', 'og_title', 'og_description', 'feature_image_alt']) {
      const p = expectStatus(await post({ title: `Ctl ${field}` }), 201);
      for (const value of ['\u0001', 'x\u0001', '1', 'null', '[1]', '{"a":1}']) {
        const res = await patch(p.name, { [field]: value });
        expect({ field, value, status: res.statusCode < 500 }).toEqual({ field, value, status: true });
        if (res.statusCode === 400) expectInvalid(res, field);
        else expect(expectStatus(res, 200)[field]).toBe(value);
      }
    }
  });
});

describe('blog posts: references', () => {
  it("another website's media, categories, tags and authors are refused on Update too, naming the field, and nothing is written", async () => {
    const bobMedia = await upload(t, bob.token, bob.websiteId, 'b.png', await png(4, 4));
    const bobTag = await make('blog_tags', { display_name: 'Bob ref tag' }, bob);
    const bobCategory = await make('blog_categories', { display_name: 'Bob ref cat' }, bob);
    const bobAuthor = await make('blog_authors', { display_name: 'Bob ref author' }, bob);
    const mine = await make('blog_tags', { display_name: 'Alice ref tag' });
    const p = expectStatus(await post({ title: 'Ref update', tag_ids: [mine.id] }), 201);
    expectInvalid(await patch(p.name, { feature_image_media_id: bobMedia.id }), 'feature_image_media_id');
    expectInvalid(await patch(p.name, { og_image_media_id: bobMedia.id }), 'og_image_media_id');
    expectInvalid(await patch(p.name, { tag_ids: [mine.id, bobTag.id] }), 'tag_ids');
    expectInvalid(await patch(p.name, { category_ids: [bobCategory.id] }), 'category_ids');
    expectInvalid(await patch(p.name, { author_ids: [bobAuthor.id] }), 'author_ids');
    const after = await get(p.name);
    expect(after.etag).toBe(p.etag);
    expect(idsOf(await list(t, alice.token, `${base()}/blog_posts`, { filter: `tag_ids:"${mine.id}"` }), 'blog_posts')).toEqual([p.id]);
    // Another website's category as a parent, or as the place to move to.
    expectInvalid(await req('POST', `${base()}/blog_categories`, { display_name: 'Foreign parent', parent_id: bobCategory.id }), 'parent_id');
    const cat = await make('blog_categories', { display_name: 'Move foreign' });
    expectInvalid(await call(cat.name, 'move', { parent_id: bobCategory.id }), 'parent_id');
  });
});

describe('blog posts: publishing', () => {
  it(':publish and :unpublish change the etag, honour If-Match, and keep publish_time as documented', async () => {
    const p = expectStatus(await post({ title: 'Transitions' }), 201);
    expect(p.publish_time).toBeUndefined();
    const published = expectStatus(await call(p.name, 'publish', {}, alice, { 'if-match': `"${p.etag}"` }), 200);
    expect(published).toMatchObject({ state: 'PUBLISHED' });
    expect(published.etag).not.toBe(p.etag);
    // Publishing a published post keeps the time it went live.
    const again = expectStatus(await call(p.name, 'publish'), 200);
    expect(again.publish_time).toBe(published.publish_time);
    expectError(await call(p.name, 'unpublish', {}, alice, { 'if-match': `"${p.etag}"` }), 409, 'ABORTED');
    const draft = expectStatus(await call(p.name, 'unpublish', { etag: again.etag }), 200);
    expect(draft).toMatchObject({ state: 'DRAFT', publish_time: published.publish_time });
    expect(draft.etag).not.toBe(again.etag);
    // A state change adds no revision.
    expect((await revisionsOf(p.name))).toHaveLength(1);
  });

  it('a PUBLISHED post given a future publish_time is published now, not in the future', async () => {
    const future = new Date(Date.now() + 86_400_000).toISOString();
    const created = expectStatus(await post({ title: 'Future published', state: 'PUBLISHED', publish_time: future }), 201);
    expect(Date.parse(created.publish_time)).toBeLessThan(Date.parse(future));
    const updated = expectStatus(await patch(created.name, { publish_time: future }), 200);
    expect(updated.state).toBe('PUBLISHED');
    expect(Date.parse(updated.publish_time)).toBeLessThan(Date.parse(future));
  });

  it('SCHEDULED to a future time from PUBLISHED or DRAFT is accepted; the state filter sees each state', async () => {
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const p = expectStatus(await post({ title: 'State filter', state: 'PUBLISHED' }), 201);
    const scheduled = expectStatus(await patch(p.name, { state: 'SCHEDULED', publish_time: future }), 200);
    expect(scheduled).toMatchObject({ state: 'SCHEDULED', publish_time: future.replace(/Z$/, 'Z') });
    const ids = async (state: string) => idsOf(await list(t, alice.token, `${base()}/blog_posts`, { filter: `state = ${state} AND title = "State filter"` }), 'blog_posts');
    expect(await ids('SCHEDULED')).toEqual([p.id]);
    expect(await ids('PUBLISHED')).toEqual([]);
    expectBadFilter(await req('GET', `${base()}/blog_posts?filter=${encodeURIComponent('state = LIVE')}`), 'state');
  });
});

describe('blog posts: lists', () => {
  it('orders by create_time and title both ways, paging through every post once', async () => {
    const tag = await make('blog_tags', { display_name: 'Order tag' });
    const made: any[] = [];
    for (const title of ['Order c', 'Order a', 'Order b', 'Order a']) made.push(expectStatus(await post({ title, tag_ids: [tag.id] }), 201));
    const walked = async (order_by: string) =>
      (await walk(t, alice.token, `${base()}/blog_posts`, { filter: `tag_ids:"${tag.id}"`, order_by, page_size: 1 })).flatMap((page) => idsOf(page, 'blog_posts'));
    const byCreate = [...made].sort((a, b) => Date.parse(a.create_time) - Date.parse(b.create_time) || (a.id < b.id ? -1 : 1)).map((p) => p.id);
    expect(await walked('create_time')).toEqual(byCreate);
    expect(await walked('create_time desc')).toEqual([...byCreate].reverse());
    const byTitle = [...made].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id < b.id ? -1 : 1)).map((p) => p.id);
    expect(await walked('title')).toEqual(byTitle);
    expect(await walked('title desc')).toEqual([...byTitle].reverse());
  });

  it('garbage filters and orders are INVALID_ARGUMENT naming the parameter, never a 500', async () => {
    const url = `${base()}/blog_posts`;
    for (const filter of [
      'category_ids = "x"',
      'category_ids:',
      'tag_ids:"a" OR',
      'publish_time > yesterday',
      'publish_time > 99999-01-01T00:00:00Z',
      'content:"x"',
      'title:"\u0000"',
      '(((((((((((((((((((((((((((((((state = DRAFT)))))))))))))))))))))))))))))))',
      'author_ids:"' + 'a'.repeat(5000) + '"',
    ]) {
      const res = await req('GET', `${url}?filter=${encodeURIComponent(filter)}`);
      expect({ filter: filter.slice(0, 40), status: res.statusCode }).toEqual({ filter: filter.slice(0, 40), status: res.statusCode < 500 ? res.statusCode : 'not 5xx' });
      if (res.statusCode >= 400) expectBadFilter(res, 'category_ids', 'tag_ids', 'author_ids', 'publish_time', 'content', 'title', 'state');
    }
    for (const order_by of ['content', 'publish_time sideways', 'title,, create_time', 'category_ids']) {
      expectInvalid(await req('GET', `${url}?order_by=${encodeURIComponent(order_by)}`), 'order_by');
    }
  });
});

describe('blog categories and authors', () => {
  it(':move with after_id orders siblings (sort_order), first when after_id is null; a non-sibling after_id is refused', async () => {
    const parent = await make('blog_categories', { display_name: 'Order parent' });
    const kids: any[] = [];
    for (const name of ['Kid a', 'Kid b', 'Kid c']) kids.push(await make('blog_categories', { display_name: name, parent_id: parent.id }));
    const order = async () =>
      expectStatus(await req('GET', `${base()}/blog_categories?filter=${encodeURIComponent(`parent_id = "${parent.id}"`)}&order_by=sort_order`), 200).blog_categories.map((r: any) => [r.id, r.sort_order]);
    expect(await order()).toEqual([[kids[0].id, 0], [kids[1].id, 1], [kids[2].id, 2]]);
    expectStatus(await call(kids[2].name, 'move', { parent_id: parent.id, after_id: kids[0].id }), 200);
    expect(await order()).toEqual([[kids[0].id, 0], [kids[2].id, 1], [kids[1].id, 2]]);
    expectStatus(await call(kids[1].name, 'move', { parent_id: parent.id, after_id: null }), 200);
    expect(await order()).toEqual([[kids[1].id, 0], [kids[0].id, 1], [kids[2].id, 2]]);
    expectInvalid(await call(kids[1].name, 'move', { parent_id: parent.id, after_id: parent.id }), 'after_id');
    // parent_id is set by :move only.
    expectInvalid(await patch(kids[1].name, { parent_id: kids[0].id }), 'parent_id');
  });

  it("an author may be a member of the website's account (user_id), and is found by it", async () => {
    const author = await make('blog_authors', { display_name: 'Member author', user_id: alice.userId });
    expect(author.user_id).toBe(alice.userId);
    expect(idsOf(await list(t, alice.token, `${base()}/blog_authors`, { filter: `user_id = "${alice.userId}"` }), 'blog_authors')).toEqual([author.id]);
  });
});

describe('blog: overlays and the fallback chain', () => {
  it('tags and authors resolve through the fallback chain field by field; their own overlay wins', async () => {
    const de = await view('de');
    const at = await view('de-AT', de);
    const tag = await make('blog_tags', { display_name: 'Bread', description: 'About bread' });
    const author = await make('blog_authors', { display_name: 'Ada', bio: 'Bakes' });
    expectStatus(await patch(`${tag.name}/views/${de}?allow_missing=true`, { display_name: 'Brot', description: 'Über Brot' }), 201);
    expectStatus(await patch(`${author.name}/views/${de}?allow_missing=true`, { bio: 'Backt' }), 201);
    expect(expectStatus(await call(tag.name, 'resolve', { view_id: at }), 200)).toMatchObject({
      display_name: 'Brot',
      description: 'Über Brot',
      field_sources: { display_name: `views/${de}`, description: `views/${de}` },
    });
    expect(expectStatus(await call(author.name, 'resolve', { view_id: at }), 200)).toMatchObject({ display_name: 'Ada', bio: 'Backt', overridden_fields: ['bio'], field_sources: { bio: `views/${de}` } });
    expectStatus(await patch(`${tag.name}/views/${at}?allow_missing=true`, { display_name: 'Brot (AT)' }), 201);
    const own = expectStatus(await call(tag.name, 'resolve', { view_id: at }), 200);
    expect(own).toMatchObject({ display_name: 'Brot (AT)', description: 'Über Brot', field_sources: { display_name: `views/${at}`, description: `views/${de}` } });
    // The default view without overlays shows the stored values.
    expect(expectStatus(await call(tag.name, 'resolve', {}), 200)).toMatchObject({ display_name: 'Bread', overridden_fields: [] });
  });

  it("an overlay for another website's view, or on another tenant's post, is refused", async () => {
    const bobView = (await list(t, bob.token, `${base(bob)}/views`)).views[0].id;
    const p = expectStatus(await post({ title: 'Overlay scope' }), 201);
    const res = await patch(`${p.name}/views/${bobView}?allow_missing=true`, { title: 'x' });
    expect([400, 404]).toContain(res.statusCode);
    if (res.statusCode === 400) expectInvalid(res, 'view_id');
    else expectError(res, 404, 'NOT_FOUND');
    expectError(await req('PATCH', `${API}/${p.name}/views/${bobView}?allow_missing=true`, { title: 'x' }, bob), 404, 'NOT_FOUND');
    expectError(await req('GET', `${API}/${p.name}/views/${viewId}`, undefined, bob), 404, 'NOT_FOUND');
    expectInvalid(await call(p.name, 'resolve', { view_id: bobView }), 'view_id');
  });
});

describe('blog: revisions and tenancy', () => {
  it("another tenant's revision, or a revision of another post, cannot be read or restored", async () => {
    const p = expectStatus(await post({ title: 'Rev tenancy' }), 201);
    const other = expectStatus(await post({ title: 'Rev other' }), 201);
    const [revision] = (await revisionsOf(p.name));
    expectError(await req('GET', `${API}/${revision.name}`, undefined, bob), 404, 'NOT_FOUND');
    expectError(await call(revision.name, 'restore', {}, bob), 404, 'NOT_FOUND');
    expectError(await call(`${other.name}/revisions/${revision.id}0`, 'restore'), 404, 'NOT_FOUND');
    // A NUL in a path id is refused before any lookup (the engine's rule for every path id).
    expectInvalid(await call(`${other.name}/revisions/%00`, 'restore'), 'revision_id');
    expect((await get(p.name)).etag).toBe(p.etag);
  });

  it(':restore writes a new revision even when the restored state is the current one', async () => {
    const p = expectStatus(await post({ title: 'Restore newest' }), 201);
    const [newest] = await revisionsOf(p.name);
    const restored = expectStatus(await call(newest.name, 'restore'), 200);
    expect(restored.etag).not.toBe(p.etag);
    const after = await revisionsOf(p.name);
    expect(after).toHaveLength(2);
    expect(after[0]).toMatchObject({ created_by: `users/${alice.userId}`, snapshot: { title: 'Restore newest' } });
    expect(after[0].post_revision).toBeGreaterThan(newest.post_revision);
  });

  it('a restore skips ids deleted since and keeps the rest', async () => {
    const keep = await make('blog_tags', { display_name: 'Restore keep' });
    const gone = await make('blog_tags', { display_name: 'Restore gone' });
    const p = expectStatus(await post({ title: 'Restore refs', tag_ids: [keep.id, gone.id] }), 201);
    expectStatus(await patch(p.name, { title: 'Restore refs 2', tag_ids: [] }), 200);
    expect((await req('DELETE', `${API}/${gone.name}`)).statusCode).toBe(204);
    const oldest = (await revisionsOf(p.name)).at(-1);
    const restored = expectStatus(await call(oldest.name, 'restore'), 200);
    expect(restored).toMatchObject({ title: 'Restore refs', tag_ids: [keep.id] });
    expect(idsOf(await list(t, alice.token, `${base()}/blog_posts`, { filter: `tag_ids:"${keep.id}"` }), 'blog_posts')).toEqual([p.id]);
  });
});

describe('blog: hostile input on every route', () => {
  it('wrong types, unknown fields, oversize values and malformed ids answer the canonical 4xx naming the field, never 5xx', async () => {
    const cat = await make('blog_categories', { display_name: 'Hostile cat' });
    const tag = await make('blog_tags', { display_name: 'Hostile tag' });
    const author = await make('blog_authors', { display_name: 'Hostile author' });
    const p = expectStatus(await post({ title: 'Hostile', category_ids: [cat.id] }), 201);
    const [revision] = (await revisionsOf(p.name));
    const big = 'x'.repeat(600_000);
    const bodies: unknown[] = [
      null, [], 'text', 42, true,
      { title: 42 }, { title: null }, { title: ['a'] }, { title: { a: 1 } }, { title: big },
      { content: 42 }, { content: big }, { custom_excerpt: big }, { custom_excerpt: ['x'] },
      { tag_ids: [42] }, { tag_ids: [null] }, { tag_ids: [''] }, { tag_ids: ['x'.repeat(65)] }, { tag_ids: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      { category_ids: {} }, { author_ids: 'a' }, { visible_view_ids: [{}] },
      { state: 'published' }, { state: 1 }, { publish_time: 'tomorrow' }, { publish_time: 1_700_000_000_000 }, { publish_time: '2026-13-45T00:00:00Z' },
      { url_key: '../etc' }, { url_key: '' }, { url_key: 'a'.repeat(256) }, { canonical_url: 'ftp://x' },
      { feature_image_media_id: 42 }, { feature_image_media_id: 'x'.repeat(65) }, { display_name: 42 }, { display_name: big }, { parent_id: 42 },
      { post_ids: 'a' }, { post_ids: [42] }, { post_ids: Array.from({ length: 1001 }, (_, i) => `p${i}`) }, { view_id: 42 }, { view_id: 'x'.repeat(65) },
      { after_id: 42 }, { overridden: ['state'] }, { overridden: 'title' }, { etag: 42 }, { unknown_field: 1 }, { bio: big }, { user_id: 42 }, { avatar_media_id: ['x'] },
    ];
    const targets: Array<[string, string]> = [
      ['POST', `${base()}/blog_posts`],
      ['PATCH', `${API}/${p.name}`],
      ['POST', `${API}/${p.name}:publish`],
      ['POST', `${API}/${p.name}:unpublish`],
      ['POST', `${API}/${p.name}:resolve`],
      ['PATCH', `${API}/${p.name}/views/${viewId}?allow_missing=true`],
      ['POST', `${API}/${revision.name}:restore`],
      ['POST', `${base()}/blog_categories`],
      ['PATCH', `${API}/${cat.name}`],
      ['POST', `${API}/${cat.name}:move`],
      ['POST', `${API}/${cat.name}:set_posts`],
      ['POST', `${API}/${cat.name}:resolve`],
      ['PATCH', `${API}/${cat.name}/views/${viewId}?allow_missing=true`],
      ['POST', `${base()}/blog_tags`],
      ['PATCH', `${API}/${tag.name}`],
      ['POST', `${API}/${tag.name}:resolve`],
      ['PATCH', `${API}/${tag.name}/views/${viewId}?allow_missing=true`],
      ['POST', `${base()}/blog_authors`],
      ['PATCH', `${API}/${author.name}`],
      ['POST', `${API}/${author.name}:resolve`],
      ['PATCH', `${API}/${author.name}/views/${viewId}?allow_missing=true`],
    ];
    const findings: string[] = [];
    for (const [method, url] of targets) {
      for (const body of bodies) {
        const res = await t.app.inject({
          method: method as never,
          url,
          headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
          payload: JSON.stringify(body),
        });
        const label = `${method} ${url.replace(base(), '')} ${JSON.stringify(body).slice(0, 80)}`;
        if (res.statusCode >= 500) findings.push(`${label}: ${res.statusCode}`);
        else if (res.statusCode >= 400 && canonicalErrorProblem(res)) findings.push(`${label}: ${canonicalErrorProblem(res)}`);
        else if (res.statusCode === 400 && body && typeof body === 'object' && !Array.isArray(body)) {
          // A field-level refusal names a field of the body.
          const error = res.json().error;
          const named = error.details.filter((d: any) => d.type === 'FIELD_VIOLATION').map((d: any) => String(d.field));
          const sent = Object.keys(body);
          const requiredMissing = named.some((f: string) => ['title', 'display_name', 'post_ids'].includes(f) && !sent.includes(f));
          if (!requiredMissing && !named.some((f: string) => sent.some((s) => f === s || f.startsWith(`${s}[`) || f.startsWith(`${s}.`)))) findings.push(`${label}: 400 naming ${named.join(',') || 'nothing'}`);
        }
      }
    }
    expect(findings).toEqual([]);
  });

  it('a refused field whose path is longer than the error shape allows (huge keys) is named shortened, never a 500', async () => {
    const p = expectStatus(await post({ title: 'Huge key' }), 201);
    const cat = await make('blog_categories', { display_name: 'Huge key' });
    // The lone surrogate (refused everywhere) travels as a JSON escape: JSON.stringify writes it so.
    const huge = { ['k'.repeat(400)]: { ['j'.repeat(400)]: '\ud800' } };
    for (const [method, url] of [['PATCH', `${API}/${p.name}`], ['POST', `${API}/${p.name}:publish`], ['POST', `${API}/${cat.name}:set_posts`]] as const) {
      const res = await t.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
        payload: `{"post_ids":[],"etag":[${JSON.stringify(huge)}]}`,
      });
      const error = expectError(res, 400, 'INVALID_ARGUMENT');
      const [violation] = error.details.filter((d: any) => d.type === 'FIELD_VIOLATION');
      expect(violation.field.startsWith('etag[0].kkk')).toBe(true);
      expect(Array.from(violation.field as string).length).toBeLessThanOrEqual(512);
    }
  });

  it("malformed ids and another tenant's ids answer NOT_FOUND on every blog item route", async () => {
    const bobPost = await make('blog_posts', { title: 'Bob hostile' }, bob);
    const bobCat = await make('blog_categories', { display_name: 'Bob hostile' }, bob);
    const bobTag = await make('blog_tags', { display_name: 'Bob hostile' }, bob);
    const bobAuthor = await make('blog_authors', { display_name: 'Bob hostile' }, bob);
    const [bobRevision] = (await revisionsOf(bobPost.name, bob));
    const ids = [bobPost.id, bobCat.id, bobTag.id, bobAuthor.id, 'x'.repeat(64), '%E2%80%AE', "'%20OR%201=1", '%F0%9F%92%A9', '-1'];
    const bodyOf: Record<string, unknown> = { blog_posts: { title: 'x' }, blog_categories: { description: 'x' }, blog_tags: { description: 'x' }, blog_authors: { bio: 'x' } };
    const findings: string[] = [];
    const expect404 = async (method: string, url: string, body: unknown = {}) => {
      const res = await t.app.inject({ method: method as never, url, headers: { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' }, payload: method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(body) });
      if (res.statusCode !== 404 || canonicalErrorProblem(res)) findings.push(`${method} ${url.replace(base(), '')}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    };
    for (const id of ids) {
      for (const collection of ['blog_posts', 'blog_categories', 'blog_tags', 'blog_authors']) {
        const item = `${base()}/${collection}/${id}`;
        await expect404('GET', item);
        await expect404('PATCH', item, bodyOf[collection]);
        await expect404('DELETE', item);
        await expect404('POST', `${item}:resolve`);
        await expect404('GET', `${item}/views`);
        await expect404('GET', `${item}/views/${viewId}`);
        await expect404('PATCH', `${item}/views/${viewId}?allow_missing=true`, bodyOf[collection]);
      }
      await expect404('POST', `${base()}/blog_posts/${id}:publish`);
      await expect404('POST', `${base()}/blog_posts/${id}:unpublish`);
      await expect404('GET', `${base()}/blog_posts/${id}/revisions`);
      await expect404('POST', `${base()}/blog_posts/${id}/revisions/1:restore`);
      await expect404('POST', `${base()}/blog_categories/${id}:move`);
      await expect404('POST', `${base()}/blog_categories/${id}:set_posts`, { post_ids: [] });
    }
    // Bob's revision under Bob's post, addressed by Alice, and Bob's website itself.
    await expect404('GET', `${API}/${bobRevision.name}`);
    await expect404('POST', `${API}/${bobRevision.name}:restore`);
    await expect404('GET', `${base(bob)}/blog_posts`);
    await expect404('POST', `${base(bob)}/blog_posts`, { title: 'x' });
    expect(findings).toEqual([]);
    // A NUL or an id longer than any id is refused before any lookup, as on every route.
    expectInvalid(await req('GET', `${base()}/blog_posts/%00`), 'blog_post_id');
    expectError(await req('GET', `${base()}/blog_tags/${'x'.repeat(300)}`), 400, 'INVALID_ARGUMENT');
    // Bob's rows are untouched.
    expect(expectStatus(await req('GET', `${API}/${bobPost.name}`, undefined, bob), 200).etag).toBe(bobPost.etag);
  });
});
