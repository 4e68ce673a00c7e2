/**
 * Issue 26, "Rendered websites people want to visit", through HTTP on the site's own host: the
 * default design is driven by the documented theme variables, images go through the media
 * transforms with srcset/sizes/dimensions, JSON-LD names the right types, the favicon answers,
 * light and dark schemes and print styles are in the CSS, and nothing blocks rendering.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { THEME_VARIABLES } from '../../src/theme/theme-variables.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { jpeg, png, publicGet, upload } from '../support/media.js';
import { blogSite, daysAgo, type BlogSite } from './blog-support.js';

let t: TestApp;
let s: BlogSite;
const ids: Record<string, any> = {};

const styleOf = (html: string) => /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
/** The design's stylesheet a page links to. */
const designCssOf = async (html: string) => {
  const href = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
  expect(href, 'stylesheet link').toBeTruthy();
  const res = await s.get(href!.replace(/&amp;/g, '&'));
  expect(res.statusCode).toBe(200);
  return res.body;
};
const jsonLdOf = (html: string) => [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]));
const imgTags = (html: string) => [...html.matchAll(/<img [^>]*>/g)].map((m) => m[0]);
const attr = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
const patchTheme = async (body: unknown) => expectStatus(await t.request('PATCH', `${s.base}/theme`, { token: s.user.token, body }), 200);

beforeAll(async () => {
  t = await startTestApp();
  s = await blogSite(t);
  expectStatus(await t.request('PATCH', `${s.base}/settings/general.site.tagline`, { token: s.user.token, body: { value: 'Sourdough since 1921' } }), 200);
  const crust = await upload(t, s.user.token, s.user.websiteId, 'crust.jpg', await jpeg(1600, 1000), { alt_text: 'A crust from the media library' });
  const rye = await upload(t, s.user.token, s.user.websiteId, 'rye.jpg', await jpeg(1200, 800), { alt_text: 'Rye loaves' });
  const category = await s.create('blog_categories', { display_name: 'Bread' });
  const author = await s.create('blog_authors', { display_name: 'Ada Baker' });
  ids.category = category;
  ids.oldest = await s.post({ title: 'The oldest post', content: '<p>Long ago.</p>', state: 'PUBLISHED', publish_time: daysAgo(5), feature_image_media_id: rye.id });
  ids.middle = await s.post({
    title: 'How we bake </script><script>alert(1)</script> rye',
    url_key: 'how-we-bake',
    content: `<p>${'Word '.repeat(700)}</p>`,
    state: 'PUBLISHED',
    publish_time: daysAgo(3),
    feature_image_media_id: crust.id,
    category_ids: [category.id],
    author_ids: [author.id],
  });
  ids.newest = await s.post({ title: 'The newest post', content: '<p>Today.</p>', state: 'PUBLISHED', publish_time: daysAgo(1), feature_image_media_id: crust.id, feature_image_alt: 'A loaf, just out of the oven' });
  ids.crust = crust;
  await s.until('/', 200, (b) => b.includes('The newest post') && b.includes('Sourdough since 1921'));
});
afterAll(() => t?.close());

describe('the theme drives the design', () => {
  it('the theme resource describes every variable the design uses: name, type, group, default; presets to apply', async () => {
    const theme = expectStatus(await t.request('GET', `${s.base}/theme`, { token: s.user.token }), 200);
    const byName = new Map(theme.variable_definitions.map((d: any) => [d.name, d]));
    for (const v of THEME_VARIABLES) {
      expect(byName.get(v.name), v.name).toMatchObject({ name: v.name, type: v.type, group: v.group, default: v.default });
      expect(theme.variables[v.name], v.name).toBe(v.default);
    }
    expect(theme.variable_definitions.find((d: any) => d.name === '--font-body').options.length).toBeGreaterThan(2);
    expect(theme.presets.map((p: any) => p.id)).toEqual(['business', 'magazine', 'personal']);
  });

  it('every documented theme variable is used by the CSS visitors get', async () => {
    const css = await designCssOf((await s.get('/')).body);
    for (const v of THEME_VARIABLES) expect(css, v.name).toContain(`var(${v.name})`);
  });

  it('a theme variable change reaches the CSS visitors get; an unknown variable survives the round trip and is rendered too', async () => {
    const before = styleOf((await s.get('/')).body);
    expect(before).toContain('--color-primary:#1f6feb');
    const updated = await patchTheme({ variables: { '--color-primary': '#b42318', '--font-heading': 'Charter, serif', '--x-brand': 'rebeccapurple' } });
    expect(updated.variables['--x-brand']).toBe('rebeccapurple');
    const after = styleOf(await s.until('/', 200, (b) => b.includes('--color-primary:#b42318')));
    expect(after).toContain('--font-heading:Charter, serif');
    expect(after).toContain('--x-brand:rebeccapurple');
    // The design reads the variable (buttons, the header's rule, …), so the change is what visitors see.
    expect(await designCssOf((await s.get('/')).body)).toContain('--c-primary:var(--color-primary)');
    await patchTheme({ variables: {} });
    await s.until('/', 200, (b) => b.includes('--color-primary:#1f6feb'));
  });

  it('dark scheme rules are present: prefers-color-scheme maps the dark palette, theme-color per scheme', async () => {
    const html = (await s.get('/')).body;
    const css = await designCssOf(html);
    const dark = /@media \(prefers-color-scheme:dark\)\{:root\{([^}]*)\}\}/.exec(css);
    expect(dark, 'dark scheme block').not.toBeNull();
    for (const name of ['--color-background-dark', '--color-text-dark', '--color-link-dark', '--color-primary-dark']) expect(dark![1]).toContain(`var(${name})`);
    expect(css).toContain('color-scheme:light dark');
    expect(html).toContain('<meta name="theme-color" media="(prefers-color-scheme: light)" content="#ffffff">');
    expect(html).toContain('<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#0d1117">');
  });

  it('print styles drop the navigation and print link targets', async () => {
    const css = await designCssOf((await s.get('/blog/how-we-bake')).body);
    expect(css).toMatch(/@media print\{[^]*\.site-nav[^]*display:none/);
    expect(css).toContain('attr(href)');
  });

  it('no render-blocking script; the CSS is one small file cached for a year under its version, the theme inline', async () => {
    const html = (await s.get('/')).body;
    for (const tag of html.match(/<script[^>]*>/g) ?? []) expect(tag).toMatch(/ defer|type="application\/ld\+json"/);
    const links = html.match(/<link rel="stylesheet" href="[^"]+">/g) ?? [];
    expect(links).toEqual([expect.stringMatching(/^<link rel="stylesheet" href="\/_site\/design\.css\?v=[A-Za-z0-9_-]+">$/)]);
    expect(html.match(/<style>/g)).toHaveLength(1);
    const href = /href="(\/_site\/design\.css[^"]+)"/.exec(links[0] ?? '')![1];
    const css = await s.get(href, { 'accept-encoding': 'br' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(css.headers['content-encoding']).toBe('br');
    expect(css.rawPayload.length).toBeLessThan(8 * 1024);
    expect((await s.get('/_site/design.css?v=old')).headers['cache-control']).toBe('public, max-age=300');
  });

  it('the maintenance page wears the theme', async () => {
    await patchTheme({ variables: { '--color-primary': '#116149' } });
    await s.until('/', 200, (b) => b.includes('--color-primary:#116149'));
    expectStatus(await t.request('PATCH', `${s.base}/settings/general.site.status`, { token: s.user.token, body: { value: 'MAINTENANCE' } }), 200);
    const page = await s.until('/', 503);
    expect(page).toContain('--color-primary:#116149');
    expect(page).toContain('class="error-page"');
    expectStatus(await t.request('PATCH', `${s.base}/settings/general.site.status`, { token: s.user.token, body: { value: 'LIVE' } }), 200);
    await patchTheme({ variables: {} });
    await s.until('/', 200, (b) => b.includes('--color-primary:#1f6feb'));
  });
});

describe('pages of the default design', () => {
  it('the home page shows the tagline and the newest posts as cards, newest first', async () => {
    const html = (await s.get('/')).body;
    expect(html).toContain('<p class="tagline">Sourdough since 1921</p>');
    const cards = [...html.matchAll(/<article class="card">[\s\S]*?<h3><a href="([^"]+)">/g)].map((m) => m[1]);
    expect(cards).toEqual(['/blog/' + ids.newest.url_key, '/blog/how-we-bake', '/blog/' + ids.oldest.url_key]);
    expect(html).toContain('<a href="/blog">All posts</a>');
  });

  it('a post shows author, date, reading time, category and links to the older and newer posts', async () => {
    const html = (await s.get('/blog/how-we-bake')).body;
    expect(html).toContain('<a rel="author" href="/blog/author/ada-baker">Ada Baker</a>');
    expect(html).toContain('<span>3 min read</span>');
    expect(html).toContain(`<a class="prev" rel="prev" href="/blog/${ids.oldest.url_key}"><span>Older post</span>The oldest post</a>`);
    expect(html).toContain(`<a class="next" rel="next" href="/blog/${ids.newest.url_key}"><span>Newer post</span>The newest post</a>`);
    expect(html).toContain('<ul class="chips blog-categories"><li><a href="/blog/category/bread">Bread</a></li></ul>');
  });

  it('the header has a menu button for small screens (a native disclosure, no script) and the 404 page is styled', async () => {
    const res = await s.get('/no-such-page');
    expect(res.statusCode).toBe(404);
    expect(res.body).toMatch(/<details class="nav-drawer"><summary>Menu<\/summary>/);
    expect(res.body).toContain('<p class="error-code" aria-hidden="true">404</p>');
    expect(res.body).toContain('<h1>Page not found</h1>');
  });
});

describe('images', () => {
  it('srcset and dimensions present: cards and feature images go through the transforms with srcset, sizes, width, height and alt_text', async () => {
    const html = (await s.get('/blog')).body;
    const cards = imgTags(html).filter((tag) => tag.includes('/media/'));
    expect(cards).toHaveLength(3);
    for (const tag of cards) {
      expect(attr(tag, 'srcset')).toMatch(/\?w=320&amp;fmt=auto&amp;sig=[^ ]+ 320w, .+ 640w/);
      expect(attr(tag, 'sizes')).toBeTruthy();
      expect(Number(attr(tag, 'width'))).toBeGreaterThan(0);
      expect(Number(attr(tag, 'height'))).toBeGreaterThan(0);
    }
    // The first card is the likely largest paint: fetched at once; the ones below the fold lazily.
    expect(cards[0]).toContain('fetchpriority="high"');
    expect(cards[0]).not.toContain('loading="lazy"');
    for (const tag of cards.slice(1)) expect(tag).toContain('loading="lazy"');
    // The post's own alt text, else the media's alt_text.
    expect(attr(cards[0], 'alt')).toBe('A loaf, just out of the oven');
    expect(attr(cards[1], 'alt')).toBe('A crust from the media library');
    expect(attr(cards[0], 'width')).toBe('1600');
    expect(attr(cards[0], 'height')).toBe('1000');
  });

  it('modern formats by Accept: a srcset variant answers WebP or AVIF to a browser that takes them, the stored format otherwise', async () => {
    const html = (await s.get('/blog/how-we-bake')).body;
    const feature = imgTags(html).find((tag) => tag.includes(`/media/${ids.crust.id}/`))!;
    const url = new URL(attr(feature, 'src')!.replace(/&amp;/g, '&'));
    const modern = await publicGet(t, url.pathname + url.search, { accept: 'image/avif,image/webp,*/*' });
    expect(modern.statusCode).toBe(200);
    expect(modern.headers['content-type']).toMatch(/^image\/(avif|webp)/);
    expect(String(modern.headers.vary)).toMatch(/accept/i);
    const plain = await publicGet(t, url.pathname + url.search, { accept: 'image/*' });
    expect(plain.headers['content-type']).toBe('image/jpeg');
  });

  it('media-library images inside page content get srcset, sizes, width and height, lazy loading; other images stay as written', async () => {
    const content = `<p><img src="${t.config.publicBaseUrl}/engine-api/v1/${ids.crust.name}" alt="Crust close-up"></p><p><img src="https://example.org/elsewhere.png" alt="Elsewhere"></p>`;
    expectStatus(await t.request('POST', `${s.base}/cms_pages`, { token: s.user.token, body: { title: 'Gallery', url_key: 'gallery', content } }), 201);
    const html = await s.until('/gallery', 200);
    const [own, other] = imgTags(html).filter((tag) => tag.includes('Crust close-up') || tag.includes('Elsewhere'));
    expect(attr(own, 'srcset')).toMatch(/w=320&amp;fmt=auto&amp;sig=[^ ]+ 320w/);
    expect(attr(own, 'sizes')).toBe('(min-width: 44rem) 42rem, 100vw');
    expect([attr(own, 'width'), attr(own, 'height')]).toEqual(['1600', '1000']);
    expect(own).toContain('loading="lazy"');
    expect(attr(own, 'alt')).toBe('Crust close-up');
    expect(other).toBe('<img src="https://example.org/elsewhere.png" alt="Elsewhere" />');
  });

  it('an Open Graph image for posts: a 1200 px transformed feature image with its alt text', async () => {
    const html = (await s.get(`/blog/${ids.newest.url_key}`)).body;
    expect(html).toMatch(/<meta property="og:image" content="http:\/\/api\.test\/engine-api\/v1\/websites\/[^"]+\/crust\.jpg\?w=1200&amp;fmt=jpeg&amp;sig=[^"]+">/);
    expect(html).toContain('<meta property="og:image:alt" content="A loaf, just out of the oven">');
  });
});

describe('structured data and meta', () => {
  it('JSON-LD parses and names the right types: WebSite with SearchAction on the home page, BlogPosting and BreadcrumbList on a post, BreadcrumbList on an archive', async () => {
    const home = jsonLdOf((await s.get('/')).body);
    expect(home.map((d) => d['@type'])).toEqual(['WebSite']);
    expect(home[0]).toMatchObject({ '@context': 'https://schema.org', url: `http://${s.host}/`, inLanguage: 'en' });
    expect(home[0].potentialAction).toMatchObject({ '@type': 'SearchAction', target: { urlTemplate: `http://${s.host}/search?q={search_term_string}` }, 'query-input': 'required name=search_term_string' });

    const post = jsonLdOf((await s.get('/blog/how-we-bake')).body);
    expect(post.map((d) => d['@type'])).toEqual(['BreadcrumbList', 'BlogPosting']);
    expect(post[0].itemListElement.map((i: any) => i.name)).toEqual([expect.any(String), 'Blog', 'Bread', ids.middle.title]);
    expect(post[0].itemListElement[3]).toMatchObject({ position: 4, item: `http://${s.host}/blog/how-we-bake` });
    expect(post[1]).toMatchObject({ headline: ids.middle.title, author: [{ '@type': 'Person', name: 'Ada Baker' }], articleSection: ['Bread'], inLanguage: 'en' });
    expect(post[1].datePublished).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(post[1].image[0]).toContain('w=1200');

    const archive = jsonLdOf((await s.get('/blog/category/bread')).body);
    expect(archive.map((d) => d['@type'])).toEqual(['BreadcrumbList']);
  });

  it('JSON-LD cannot end its script element: a title holding </script> stays inside the data block', async () => {
    const html = (await s.get('/blog/how-we-bake')).body;
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('\\u003c/script\\u003e');
  });

  it('every page has a meta description: its own, else the start of its content, else the tagline', async () => {
    const page = expectStatus(await t.request('POST', `${s.base}/cms_pages`, { token: s.user.token, body: { title: 'Opening hours', url_key: 'hours', content: '<p>Open daily from 7 &amp; closed on <strong>Mondays</strong>.</p>' } }), 201);
    expect(page.id).toBeTruthy();
    const html = await s.until('/hours', 200);
    expect(html).toContain('<meta name="description" content="Open daily from 7 &amp; closed on Mondays .">');
    expect((await s.get('/blog')).body).toContain('<meta name="description" content="Sourdough since 1921">');
  });

  it('<html lang> per view', async () => {
    const de = await s.view({ display_name: 'Deutsch', locale: 'de-DE', url_prefix: 'de' });
    expect(de).toBeTruthy();
    const html = await s.until('/de', 200);
    expect(html).toContain('<html lang="de-DE">');
    expect(html).toContain('<meta property="og:locale" content="de_DE">');
    expect((await s.get('/')).body).toContain('<html lang="en">');
  });
});

describe('favicon', () => {
  it('favicon answers: /favicon.ico leads to the generated icon while the theme has none, to the theme’s favicon as a square PNG once set', async () => {
    const none = await s.get('/favicon.ico');
    expect(none.statusCode).toBe(302);
    expect(none.headers.location).toBe('/favicon.svg');
    const svg = await s.get('/favicon.svg');
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toMatch(/^<svg [^>]*>.*<text [^>]*>[A-Z]<\/text><\/svg>$/);
    expect((await s.get('/')).body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');

    const icon = await upload(t, s.user.token, s.user.websiteId, 'icon.png', await png(256, 256));
    await patchTheme({ favicon_media_id: icon.id });
    const page = await s.until('/', 200, (b) => b.includes(`${icon.id}/icon.png`));
    expect(page).toMatch(/<link rel="icon" href="[^"]+\/icon\.png\?w=48&amp;h=48&amp;crop=1&amp;fmt=png&amp;sig=[^"]+" type="image\/png">/);
    expect(page).toMatch(/<link rel="apple-touch-icon" href="[^"]+\/icon\.png\?w=180&amp;h=180&amp;crop=1&amp;fmt=png&amp;sig=[^"]+">/);
    const set = await s.get('/favicon.ico');
    expect(set.statusCode).toBe(302);
    const target = new URL(String(set.headers.location));
    const answer = await publicGet(t, target.pathname + target.search);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('image/png');
    await patchTheme({ favicon_media_id: null });
  });
});
