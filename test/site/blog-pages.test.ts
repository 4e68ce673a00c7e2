/**
 * The blog on rendered websites (issue 15): index, posts, archives and their rules through HTTP on
 * the site's own host — only live posts (PUBLISHED, publish_time reached, visible in the view, of
 * this website), per-view overlays along the fallback chain, bounded pagination, the Markdown twin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { jpeg, upload } from '../support/media.js';
import { blogSite, daysAgo, expectNoSecret, type BlogSite } from './blog-support.js';

let t: TestApp;
let s: BlogSite;
let bob: BlogSite;
let de: string;
let ids: Record<string, any> = {};

beforeAll(async () => {
  t = await startTestApp();
  s = await blogSite(t);
  bob = await blogSite(t);
  const defaultView = (await t.request('GET', `${s.base}/views`, { token: s.user.token })).json().views[0].id;
  de = await s.view({ display_name: 'Deutsch', locale: 'de-DE', url_prefix: 'de', fallback_view_id: defaultView });
  const at = await s.view({ display_name: 'Österreich', locale: 'de-AT', url_prefix: 'at', fallback_view_id: de });
  const image = await upload(t, s.user.token, s.user.websiteId, 'loaf.jpg', await jpeg(1400, 900), { alt_text: 'Media alt' });
  const ada = await s.create('blog_authors', { display_name: 'Ada Baker' });
  const bread = await s.create('blog_tags', { display_name: 'Bread' });
  const recipes = await s.create('blog_categories', { display_name: 'Recipes' });
  const sourdough = await s.create('blog_categories', { display_name: 'Sourdough', parent_id: recipes.id });
  await s.create('blog_tags', { display_name: 'Unused' });
  const draftOnly = await s.create('blog_authors', { display_name: 'Draft Writer' });
  ids = { defaultView, at, image, ada, bread, recipes, sourdough };
  ids.hello = await s.post({
    title: 'Hello bread',
    content: '<p>We bake <strong>every</strong> morning.</p>',
    custom_excerpt: '<p>Crust &amp; crumb</p>',
    meta_title: 'Hello bread — SEO',
    meta_description: 'All about bread',
    og_title: 'Bread for the social web',
    feature_image_media_id: image.id,
    feature_image_alt: 'A loaf on a board',
    author_ids: [ada.id],
    tag_ids: [bread.id],
    category_ids: [recipes.id],
    state: 'PUBLISHED',
    publish_time: daysAgo(3),
  });
  ids.older = await s.post({ title: 'Older post', content: '<p>Old</p>', state: 'PUBLISHED', publish_time: daysAgo(10), category_ids: [sourdough.id] });
  ids.newer = await s.post({ title: 'Newer post', content: '<p>New</p>', state: 'PUBLISHED', publish_time: daysAgo(1) });
  ids.draft = await s.post({ title: 'Secret draft', content: '<p>draft</p>', author_ids: [draftOnly.id] });
  ids.scheduled = await s.post({ title: 'Future plans', content: '<p>later</p>', state: 'SCHEDULED', publish_time: new Date(Date.now() + 3_600_000).toISOString() });
  ids.deOnly = await s.post({ title: 'Nur auf Deutsch', url_key: 'nur-deutsch', state: 'PUBLISHED', publish_time: daysAgo(2), visible_view_ids: [de] });
  ids.bobs = await bob.post({ title: 'Bob private news', url_key: 'bob-news', state: 'PUBLISHED', publish_time: daysAgo(1) });
  // German overlay of the post: the Austrian view falls back to it.
  expect((await t.request('PATCH', `${API}/${ids.hello.name}/views/${de}?allow_missing=true`, { token: s.user.token, body: { title: 'Hallo Brot', content: '<p>Wir backen.</p>' } })).statusCode).toBe(201);
  await s.until('/de/blog/hello-bread', 200, (b) => b.includes('Hallo Brot'));
  await s.until('/blog', 200, (b) => b.includes('Newer post') && b.includes('Older post'));
});
afterAll(() => t?.close());

const titlesIn = (html: string) => [...html.matchAll(/<h2><a href="[^"]*">([^<]*)<\/a><\/h2>/g)].map((m) => m[1]);

describe('blog index', () => {
  it('lists only live posts of the view, newest first, with dates as <time datetime>', async () => {
    const res = await s.get('/blog');
    expect(res.statusCode).toBe(200);
    expect(titlesIn(res.body)).toEqual(['Newer post', 'Hello bread', 'Older post']);
    expect(res.body).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z">/);
    expectNoSecret(res.body, 'Secret draft', 'Future plans', 'Nur auf Deutsch', 'Bob private news');
    // The German view shows its own post and the overlay's title.
    const german = await s.get('/de/blog');
    expect(titlesIn(german.body)).toEqual(['Newer post', 'Nur auf Deutsch', 'Hallo Brot', 'Older post']);
    expect(german.body).toContain('<html lang="de-DE">');
  });

  it('is paginated by design.pagination.page_size with rel prev/next; ?page= garbage, 0, negative and beyond the last are 404', async () => {
    expectStatus(await t.request('PATCH', `${s.base}/settings/design.pagination.page_size`, { token: s.user.token, body: { value: 2 } }), 200);
    const first = await s.until('/blog', 200, (b) => titlesIn(b).length === 2);
    expect(titlesIn(first)).toEqual(['Newer post', 'Hello bread']);
    expect(first).toContain('<link rel="next" href="/blog?page=2">');
    expect(first).toContain('<a rel="next" href="/blog?page=2">');
    expect(first).not.toContain('rel="prev"');
    const second = await s.get('/blog?page=2');
    expect(second.statusCode).toBe(200);
    expect(titlesIn(second.body)).toEqual(['Older post']);
    expect(second.body).toContain('<a rel="prev" href="/blog">');
    expect(second.body).toContain('<link rel="canonical" href="http://' + s.host + '/blog?page=2">');
    expect(second.body).not.toContain('rel="next"');
    for (const page of ['3', '0', '-1', 'abc', '1.5', '01', '2e3', '99999999']) {
      const res = await s.get(`/blog?page=${page}`);
      expect(res.statusCode, `?page=${page}`).toBe(404);
    }
    for (const page of ['%00', '%FF', `${'9'.repeat(5000)}`]) {
      const res = await s.get(`/blog?page=${page}`);
      expect(res.statusCode, `?page=${page}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, `?page=${page}`).toBeLessThan(500);
    }
    expect((await s.get('/blog?page=1')).statusCode).toBe(200);
    expect((await s.get('/blog?page=')).statusCode).toBe(200);
    expect((await s.get('/blog/tag/bread?page=2')).statusCode).toBe(404);
    expect((await s.get('/blog/tag/bread?page=x')).statusCode).toBe(404);
    expectStatus(await t.request('PATCH', `${s.base}/settings/design.pagination.page_size`, { token: s.user.token, body: { value: 12 } }), 200);
    await s.until('/blog', 200, (b) => titlesIn(b).length === 3);
  });
});

describe('blog post page', () => {
  it('shows title, sanitised content, excerpt, date, author and tag links, categories and the feature image with srcset and alt', async () => {
    const res = await s.get('/blog/hello-bread');
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain('<h1>Hello bread</h1>');
    expect(html).toContain('<div class="prose blog-content"><p>We bake <strong>every</strong> morning.</p></div>');
    expect(html).toContain('<p>Crust &amp; crumb</p>');
    expect(html).toMatch(/<time datetime="\d{4}-\d\d-\d\dT[^"]+Z">/);
    expect(html).toContain('<a rel="author" href="/blog/author/ada-baker">Ada Baker</a>');
    expect(html).toContain('<a rel="tag" href="/blog/tag/bread">Bread</a>');
    expect(html).toContain('<a href="/blog/category/recipes">Recipes</a>');
    const img = html.match(/<img src="([^"]+)" srcset="([^"]+)"[^>]* alt="([^"]*)"/);
    expect(img, 'feature image').not.toBeNull();
    expect(img![1]).toContain(`/media/${ids.image.id}/`);
    expect(img![2]).toMatch(/ 320w, .* 640w/);
    expect(img![3]).toBe('A loaf on a board');
  });

  it('carries SEO and social meta: meta title and description, og:*, article type and times, canonical, hreflang across the views it is visible in', async () => {
    const html = (await s.get('/blog/hello-bread')).body;
    expect(html).toContain('<title>Hello bread — SEO</title>');
    expect(html).toContain('<meta name="description" content="All about bread">');
    expect(html).toContain('<meta property="og:title" content="Bread for the social web">');
    expect(html).toContain('<meta property="og:type" content="article">');
    expect(html).toMatch(/<meta property="og:image" content="http:\/\/api\.test\/[^"]+">/);
    expect(html).toMatch(/<meta property="article:published_time" content="\d{4}-[^"]+Z">/);
    expect(html).toContain(`<link rel="canonical" href="http://${s.host}/blog/hello-bread">`);
    for (const [lang, path] of [['en', '/blog/hello-bread'], ['de-DE', '/de/blog/hello-bread'], ['de-AT', '/at/blog/hello-bread']]) {
      expect(html).toContain(`<link rel="alternate" hreflang="${lang}" href="http://${s.host}${path}">`);
    }
    // A post visible in one view lists only that view.
    const only = (await s.get('/de/blog/nur-deutsch')).body;
    expect(only).toContain(`hreflang="de-DE" href="http://${s.host}/de/blog/nur-deutsch"`);
    expect(only).not.toContain('<link rel="alternate" hreflang="en"');
  });

  it('shows a view overlay in its view and along the fallback chain; the default view keeps the post', async () => {
    expect((await s.get('/de/blog/hello-bread')).body).toContain('<h1>Hallo Brot</h1>');
    const austrian = (await s.get('/at/blog/hello-bread')).body;
    expect(austrian).toContain('<h1>Hallo Brot</h1>');
    expect(austrian).toContain('<p>Wir backen.</p>');
    expect((await s.get('/blog/hello-bread')).body).toContain('<h1>Hello bread</h1>');
  });

  it('drafts, scheduled posts, posts invisible in the view and posts of another website are 404', async () => {
    for (const path of [`/blog/${ids.draft.url_key}`, `/blog/${ids.scheduled.url_key}`, '/blog/nur-deutsch', '/at/blog/nur-deutsch', '/blog/bob-news', '/de/blog/bob-news']) {
      const res = await s.get(path);
      expect(res.statusCode, path).toBe(404);
      expectNoSecret(res.body, 'Secret draft', 'Future plans', 'Nur auf Deutsch', 'Bob private news');
    }
    expect((await bob.get('/blog/bob-news')).statusCode).toBe(200);
    expect((await bob.get('/blog/hello-bread')).statusCode).toBe(404);
  });

  it('hostile post paths are a clean 4xx: traversal, overlong, bad characters, unknown views', async () => {
    for (const path of ['/blog/..%2F..%2Fetc', '/blog/%E0%A4%A', `/blog/${'a'.repeat(300)}`, '/blog/UPPER', '/blog/a%20b', '/xx/blog/hello-bread', '/blog/hello-bread/extra']) {
      const res = await s.get(path);
      expect(res.statusCode, path).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, path).toBeLessThan(500);
    }
  });

  it('has a Markdown twin at {path}.md and by Accept: text/markdown', async () => {
    const md = await s.get('/blog/hello-bread.md');
    expect(md.statusCode).toBe(200);
    expect(md.headers['content-type']).toMatch(/^text\/markdown/);
    expect(md.body).toContain('title: "Hello bread — SEO"');
    expect(md.body).toContain('We bake **every** morning.');
    expect(md.body).toContain(`url: "http://${s.host}/blog/hello-bread"`);
    const negotiated = await s.get('/de/blog/hello-bread', { accept: 'text/markdown' });
    expect(negotiated.headers['content-type']).toMatch(/^text\/markdown/);
    expect(negotiated.body).toContain('Wir backen.');
    expect((await s.get(`/blog/${ids.draft.url_key}.md`)).statusCode).toBe(404);
    expect((await s.get('/blog/hello-bread')).headers.link).toContain('/blog/hello-bread.md>; rel="alternate"; type="text/markdown"');
  });
});

describe('blog archives', () => {
  it('tag, author and category archives list their live posts; a category links its sub-categories with content', async () => {
    const tag = await s.get('/blog/tag/bread');
    expect(tag.statusCode).toBe(200);
    expect(titlesIn(tag.body)).toEqual(['Hello bread']);
    expect(titlesIn((await s.get('/blog/author/ada-baker')).body)).toEqual(['Hello bread']);
    const category = (await s.get('/blog/category/recipes')).body;
    expect(titlesIn(category)).toEqual(['Hello bread']);
    expect(category).toContain('<a href="/blog/category/sourdough">Sourdough</a>');
    expect(titlesIn((await s.get('/blog/category/sourdough')).body)).toEqual(['Older post']);
    expect((await s.get('/de/blog/tag/bread')).body).toContain('Hallo Brot');
  });

  it('archives without a live post in the view, unknown ones and other websites’ are 404', async () => {
    await bob.create('blog_tags', { display_name: 'Bobs tag' });
    for (const path of ['/blog/tag/unused', '/blog/author/draft-writer', '/blog/tag/nope', '/blog/category/nope', '/blog/author/nope', '/blog/tag/bobs-tag', '/blog/tag/BAD!']) {
      const res = await s.get(path);
      expect(res.statusCode, path).toBe(404);
      expectNoSecret(res.body, 'Draft Writer', 'Secret draft');
    }
  });
});

describe('scheduled posts on the site', () => {
  it('a scheduled post appears on the site once its publish job has run, not before', async () => {
    const post = await s.post({ title: 'Soon live', url_key: 'soon-live', content: '<p>now</p>', state: 'SCHEDULED', publish_time: new Date(Date.now() + 1500).toISOString() });
    const before = await s.get('/blog/soon-live');
    expect(before.statusCode).toBe(404);
    expect((await s.get('/blog')).body).not.toContain('Soon live');
    await s.until('/blog/soon-live', 200, (b) => b.includes('<h1>Soon live</h1>'));
    expect(expectStatus(await t.request('GET', `${API}/${post.name}`, { token: s.user.token }), 200).state).toBe('PUBLISHED');
    await s.until('/blog', 200, (b) => titlesIn(b)[0] === 'Soon live');
    await s.until('/blog/feed.json', 200, (b) => JSON.parse(b).items[0].title === 'Soon live');
  });
});
