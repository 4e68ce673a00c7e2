/**
 * The blog's site inventory (issue 15: what sitemap.xml, llms.txt and the read API list): every
 * live post of the view once, newest first, read in keyset batches (so memory stays bounded at any
 * size, ties in publish_time included), with hreflang alternates; archives only when they have
 * content. Driven through the blog's real contribution against the real database (the sitemap that
 * consumes it over HTTP is built by another part of issue 15).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_INVENTORY_BATCH, blogSite as blogContribution } from '../../src/blog/blog.site.js';
import type { SiteContext, SiteEntry, SiteView } from '../../src/platform/area.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { API } from '../support/fixtures.js';
import { blogSite, daysAgo, type BlogSite } from './blog-support.js';

let t: TestApp;
let s: BlogSite;
let bob: BlogSite;
let views: SiteView[];
let ctx: SiteContext;
const BULK = BLOG_INVENTORY_BATCH * 2 + 7;

beforeAll(async () => {
  t = await startTestApp();
  s = await blogSite(t);
  bob = await blogSite(t);
  const de = await s.view({ display_name: 'Deutsch', locale: 'de', url_prefix: 'de' });
  const tag = await s.create('blog_tags', { display_name: 'Bread' });
  await s.create('blog_tags', { display_name: 'Empty tag' });
  const post = await s.post({ title: 'Tagged', url_key: 'tagged', state: 'PUBLISHED', publish_time: daysAgo(1), tag_ids: [tag.id], meta_description: 'About bread' });
  await t.request('PATCH', `${API}/${post.name}/views/${de}?allow_missing=true`, { token: s.user.token, body: { title: 'Verschlagwortet' } });
  await s.post({ title: 'Only German', url_key: 'only-german', state: 'PUBLISHED', publish_time: daysAgo(1), visible_view_ids: [de] });
  await s.post({ title: 'Secret draft', url_key: 'secret-draft' });
  await bob.post({ title: 'Bob private news', url_key: 'bob-news', state: 'PUBLISHED', publish_time: daysAgo(1) });
  // Many posts sharing a few publish times, written directly (the keyset must break ties by id).
  const now = Date.now();
  const rows = Array.from({ length: BULK }, (_, i) => ({
    website_id: s.user.websiteId,
    id: `bulk-${String(i).padStart(5, '0')}`,
    account_id: s.user.accountId,
    title: `Bulk ${i}`,
    url_key: `bulk-${i}`,
    author_ids: '[]',
    category_ids: '[]',
    tag_ids: '[]',
    visible_view_ids: '[]',
    state: 'PUBLISHED',
    publish_time: now - 10 * 86_400_000 - (i % 3) * 1000,
    revision: 1,
    create_time: now,
    update_time: now,
  }));
  const db = t.fresh.database.db;
  for (let i = 0; i < rows.length; i += 200) await db.insertInto('blog_posts').values(rows.slice(i, i + 200)).execute();
  views = (await t.request('GET', `${s.base}/views`, { token: s.user.token })).json().views.map((v: any) => ({
    id: v.id,
    displayName: v.display_name,
    locale: v.locale,
    urlPrefix: v.is_default ? '' : v.url_prefix,
    isDefault: v.is_default,
    fallbackViewId: v.fallback_view_id ?? null,
  }));
  views.sort((a, b) => Number(b.isDefault) - Number(a.isDefault));
  const website = (await t.request('GET', `${API}/websites/${s.user.websiteId}`, { token: s.user.token })).json();
  ctx = {
    website: { id: s.user.websiteId, accountId: s.user.accountId, code: website.code, displayName: website.display_name, defaultLanguage: 'en', timeZone: 'UTC', ready: true },
    host: { hostname: s.host, kind: 'platform', code: website.code },
    origin: `http://${s.host}`,
    version: 1,
    views,
    defaultView: views[0],
    now: Date.now(),
  };
});
afterAll(() => t?.close());

async function entries(view: SiteView): Promise<SiteEntry[]> {
  const out: SiteEntry[] = [];
  for await (const entry of blogContribution(t.platform.deps).inventory!(ctx, view)) out.push(entry);
  return out;
}

describe('blog inventory', () => {
  it('lists every live post of the view exactly once across keyset batches, newest first, nothing else', async () => {
    const list = await entries(views[0]);
    const posts = list.filter((e) => e.kind === 'post');
    expect(posts).toHaveLength(BULK + 1);
    expect(new Set(posts.map((p) => p.path)).size).toBe(BULK + 1);
    expect(posts[0]).toMatchObject({ path: '/blog/tagged', title: 'Tagged', description: 'About bread', viewId: views[0].id });
    const paths = posts.map((p) => p.path);
    for (const hidden of ['/blog/only-german', '/blog/secret-draft', '/blog/bob-news']) expect(paths).not.toContain(hidden);
    // Newest first: update times aside, the bulk posts come after the newer one.
    expect(paths.indexOf('/blog/tagged')).toBe(0);
  });

  it('gives posts hreflang alternates in the views they are visible in, with the view overlay’s title', async () => {
    const german = await entries(views[1]);
    const tagged = german.find((e) => e.path === '/de/blog/tagged')!;
    expect(tagged.title).toBe('Verschlagwortet');
    expect(tagged.alternates).toEqual({ [views[0].id]: '/blog/tagged', [views[1].id]: '/de/blog/tagged' });
    const only = german.find((e) => e.path === '/de/blog/only-german')!;
    expect(only.alternates).toEqual({ [views[1].id]: '/de/blog/only-german' });
  });

  it('lists the blog index and archives that have content, never empty ones', async () => {
    const list = await entries(views[0]);
    expect(list.filter((e) => e.kind !== 'post').map((e) => [e.kind, e.path])).toEqual([
      ['blog', '/blog'],
      ['blog_tag', '/blog/tag/bread'],
    ]);
  });

  it('every listed post answers 200 on the site', async () => {
    const list = (await entries(views[1])).slice(0, 3);
    await s.until(list[0].path, 200);
    for (const entry of list) expect((await s.get(entry.path)).statusCode, entry.path).toBe(200);
  });
});
