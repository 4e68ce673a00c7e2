/**
 * Blog feeds on rendered websites (issue 15): RSS 2.0, Atom 1.0 and JSON Feed 1.1 per view, of the
 * newest live posts, with absolute URLs, their content types, escaping of hostile text, linked from
 * the head of blog pages; parsed with a real XML parser and checked for their required elements.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BLOG_FEED_SIZE } from '../../src/blog/blog.site.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { API } from '../support/fixtures.js';
import { blogSite, daysAgo, expectNoSecret, type BlogSite } from './blog-support.js';

let t: TestApp;
let s: BlogSite;
let bob: BlogSite;
const HOSTILE = `Bread & <script>alert(1)</script> ]]> "quoted" 'single'`;
const xmlParser = (lists: string[]) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', isArray: (name) => lists.includes(name) });
const parser = xmlParser(['item', 'category', 'dc:creator']);
const atomParser = xmlParser(['entry', 'link', 'category', 'author']);

beforeAll(async () => {
  t = await startTestApp();
  s = await blogSite(t);
  bob = await blogSite(t);
  const author = await s.create('blog_authors', { display_name: 'Ada & <Co>' });
  const tag = await s.create('blog_tags', { display_name: 'Crust ]]> & <crumb>' });
  // More posts than a feed holds; the oldest fall out.
  for (let i = 0; i < BLOG_FEED_SIZE; i++) await s.post({ title: `Post ${i}`, content: `<p>Body ${i}</p>`, state: 'PUBLISHED', publish_time: daysAgo(30 - i) });
  const hostile = await s.post({
    title: HOSTILE,
    url_key: 'hostile',
    content: '<p>Text with ]]&gt; and &lt;tags&gt; &amp; <a href="/blog/x">a link</a></p>',
    custom_excerpt: '<p>Short &amp; sharp ]]&gt;</p>',
    author_ids: [author.id],
    tag_ids: [tag.id],
    state: 'PUBLISHED',
    publish_time: daysAgo(1),
  });
  const de = await s.view({ display_name: 'Deutsch', locale: 'de', url_prefix: 'de' });
  await t.request('PATCH', `${API}/${hostile.name}/views/${de}?allow_missing=true`, { token: s.user.token, body: { title: 'Feindlich <&>' } });
  await s.post({ title: 'Secret draft', content: '<p>no</p>' });
  await s.post({ title: 'Future plans', state: 'SCHEDULED', publish_time: new Date(Date.now() + 3_600_000).toISOString() });
  await bob.post({ title: 'Bob private news', state: 'PUBLISHED', publish_time: daysAgo(0.5) });
  await s.until('/de/blog/feed.json', 200, (b) => b.includes('Feindlich'));
});
afterAll(() => t?.close());

const absolute = (url: string) => expect(url).toMatch(new RegExp(`^http://${s.host.replace(/\./g, '\\.')}/`));

describe('blog feeds', () => {
  it('RSS 2.0 is valid XML with the required channel and item elements, absolute links, the newest posts first', async () => {
    const res = await s.get('/blog/rss.xml');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(XMLValidator.validate(res.body)).toBe(true);
    const doc = parser.parse(res.body);
    expect(doc.rss['@version']).toBe('2.0');
    const channel = doc.rss.channel;
    for (const field of ['title', 'link', 'description']) expect(channel[field], field).toBeTruthy();
    absolute(channel.link);
    expect(channel.item).toHaveLength(BLOG_FEED_SIZE);
    for (const item of channel.item) {
      expect(item.title).toBeTruthy();
      absolute(item.link);
      expect(Number.isNaN(Date.parse(item.pubDate))).toBe(false);
      expect(item.pubDate).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    }
    const first = channel.item[0];
    expect(first.title).toBe(HOSTILE);
    expect(first['dc:creator']).toEqual(['Ada & <Co>']);
    expect(first.category).toEqual(['Crust ]]> & <crumb>']);
    expect(first['content:encoded']).toContain('Text with ]]&gt; and &lt;tags&gt;');
    expect(channel.item.map((i: any) => i.title)).not.toContain('Post 0');
  });

  it('Atom 1.0 is valid XML with id, title, updated and an author for every entry', async () => {
    const res = await s.get('/blog/atom.xml');
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(XMLValidator.validate(res.body)).toBe(true);
    const feed = atomParser.parse(res.body).feed;
    expect(feed['@xmlns']).toBe('http://www.w3.org/2005/Atom');
    for (const field of ['id', 'title', 'updated']) expect(feed[field], field).toBeTruthy();
    expect(feed.author.length + 0).toBeGreaterThan(0);
    expect(feed.link.find((l: any) => l['@rel'] === 'self')['@href']).toBe(`http://${s.host}/blog/atom.xml`);
    expect(feed.entry).toHaveLength(BLOG_FEED_SIZE);
    for (const entry of feed.entry) {
      for (const field of ['id', 'title', 'updated', 'published']) expect(entry[field], field).toBeTruthy();
      expect(Number.isNaN(Date.parse(entry.updated))).toBe(false);
      absolute(entry.link[0]['@href']);
    }
    const first = feed.entry[0];
    expect(first.title).toBe(HOSTILE);
    expect(first.author[0].name).toBe('Ada & <Co>');
    expect(first.content['#text']).toContain('<a href="/blog/x">a link</a>');
  });

  it('JSON Feed 1.1 has its required fields and absolute URLs', async () => {
    const res = await s.get('/blog/feed.json');
    expect(res.headers['content-type']).toBe('application/feed+json; charset=utf-8');
    const feed = JSON.parse(res.body);
    expect(feed.version).toBe('https://jsonfeed.org/version/1.1');
    expect(feed.title).toBeTruthy();
    absolute(feed.home_page_url);
    expect(feed.feed_url).toBe(`http://${s.host}/blog/feed.json`);
    expect(feed.items).toHaveLength(BLOG_FEED_SIZE);
    for (const item of feed.items) {
      expect(typeof item.id).toBe('string');
      absolute(item.url);
      expect(typeof item.content_html === 'string' || typeof item.content_text === 'string').toBe(true);
      expect(Number.isNaN(Date.parse(item.date_published))).toBe(false);
    }
    expect(feed.items[0]).toMatchObject({ title: HOSTILE, authors: [{ name: 'Ada & <Co>' }], tags: ['Crust ]]> & <crumb>'], summary: 'Short & sharp ]]>' });
  });

  it('feeds carry only live posts of this website and view', async () => {
    for (const path of ['/blog/rss.xml', '/blog/atom.xml', '/blog/feed.json', '/de/blog/rss.xml']) {
      const res = await s.get(path);
      expect(res.statusCode).toBe(200);
      expectNoSecret(res.body, 'Secret draft', 'Future plans', 'Bob private news');
    }
    const german = await s.get('/de/blog/rss.xml');
    const channel = parser.parse(german.body).rss.channel;
    expect(channel.language).toBe('de');
    expect(channel.item[0].title).toBe('Feindlich <&>');
    absolute(channel.item[0].link);
    expect(channel.item[0].link).toContain('/de/blog/hostile');
  });

  it('blog pages link the feeds of their view from <head>; feeds have no Markdown twin', async () => {
    for (const path of ['/blog', '/blog/hostile', '/de/blog']) {
      const html = (await s.get(path)).body;
      const head = html.slice(0, html.indexOf('</head>'));
      const prefix = path.startsWith('/de') ? '/de' : '';
      expect(head).toContain(`<link rel="alternate" type="application/rss+xml" title="RSS" href="http://${s.host}${prefix}/blog/rss.xml">`);
      expect(head).toContain(`<link rel="alternate" type="application/atom+xml" title="Atom" href="http://${s.host}${prefix}/blog/atom.xml">`);
      expect(head).toContain(`<link rel="alternate" type="application/feed+json" title="JSON Feed" href="http://${s.host}${prefix}/blog/feed.json">`);
    }
    expect((await s.get('/blog/rss.xml.md')).statusCode).toBe(404);
    // A hostile title is escaped in the HTML too.
    expect((await s.get('/blog/hostile')).body).not.toContain('<script>alert(1)</script>');
  });
});
