/**
 * The rendered website as a visitor meets it (issue 26), measured, not asserted:
 *
 *   npm run build && node dist/bench/site-showcase.js [--screenshots] [--lighthouse]
 *
 * Starts the platform (`node dist/src/main.js`, fresh DATA_DIR, SQLite) on a loopback port, signs
 * up two websites — one left as provisioned, one seeded with pages, posts, images, menus and a
 * footer — then
 *   - prints the page weight of each page (HTML + CSS + JS brotli-compressed as the server sends
 *     them, before images: the design's one stylesheet, the only JS the deferred analytics script);
 *   - `--screenshots`: photographs both websites at desktop (1280×800) and phone (390×844) widths
 *     into docs/screenshots/ (Debian's Chromium through playwright-core, CHROMIUM_PATH);
 *   - `--lighthouse`: runs Lighthouse (mobile, its default configuration) over home, a page, a post
 *     with images, the blog index and a category archive, and prints the four category scores.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync } from 'node:zlib';
import sharp from 'sharp';
import { apiClient, signUp, TENANT, type Api, type BenchUser } from './api.js';
import { delay, startServer } from './server.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_JS = join(ROOT, 'dist', 'src', 'main.js');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const args = new Set(process.argv.slice(2));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function must(answer: { status: number; text: string; body: any }, status: number, what: string): any {
  if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${answer.text.slice(0, 400)}`);
  return answer.body;
}

/** A photo-like image: a soft gradient with a few shapes, as a JPEG (what an owner uploads). */
async function picture(width: number, height: number, hues: [string, string, string]): Promise<Buffer> {
  const [a, b, c] = hues;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${a}"/><stop offset="1" stop-color="${b}"/></linearGradient>
<radialGradient id="r" cx="0.7" cy="0.35" r="0.5"><stop offset="0" stop-color="${c}" stop-opacity="0.9"/><stop offset="1" stop-color="${c}" stop-opacity="0"/></radialGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/><rect width="100%" height="100%" fill="url(#r)"/>
<ellipse cx="${width * 0.3}" cy="${height * 0.78}" rx="${width * 0.36}" ry="${height * 0.16}" fill="#000" opacity="0.18"/>
<ellipse cx="${width * 0.32}" cy="${height * 0.62}" rx="${width * 0.26}" ry="${height * 0.2}" fill="${c}" opacity="0.85"/>
</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 82 }).toBuffer();
}

async function uploadImage(api: Api, websiteId: string, filename: string, data: Buffer, altText: string): Promise<any> {
  const form = new FormData();
  form.append('alt_text', altText);
  form.append('file', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), filename);
  const res = await fetch(`${api.baseUrl}${TENANT}/websites/${websiteId}/media`, { method: 'POST', headers: { authorization: `Bearer ${api.token}` }, body: form });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`upload ${filename}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** A bakery's website: tagline, pages, menus, a footer, posts with feature images in categories. */
async function seed(api: Api, user: BenchUser): Promise<Record<string, string>> {
  const base = `${TENANT}/websites/${user.websiteId}`;
  const post = async (path: string, body: unknown) => must(await api.call('POST', `${base}/${path}`, body), 201, `POST ${path}`);
  must(await api.call('PATCH', `${base}/settings/general.site.tagline`, { value: 'Sourdough, rye and pastries, baked by hand every morning since 1921.' }), 200, 'tagline');
  must(await api.call('PATCH', `${base}/settings/general.site.name`, { value: 'Market Street Bakery' }), 200, 'name');
  must(
    await api.call('PATCH', `${base}/cms_pages/home`, { content_heading: 'Bread worth getting up for', content: '<p>Drop in for a warm loaf, stay for a coffee and a slice of cherry tart. <a href="/about">Meet the bakers</a>.</p>' }),
    200,
    'home page',
  );
  const images = [];
  const palettes: Array<[string, string, string, string]> = [
    ['#f3d9b1', '#b5652b', '#7a3b12', 'A round sourdough loaf with a deep brown crust'],
    ['#e8e0cf', '#8c7a5b', '#3e2f1c', 'Dark rye loaves cooling on a rack'],
    ['#fbe9d0', '#e0a15a', '#c2571a', 'Croissants on a baking tray'],
    ['#dfe8e1', '#6f8f7a', '#2f4a3a', 'The bakery’s shop front in the morning light'],
    ['#f5e6e8', '#c47a86', '#7d2e3c', 'A cherry tart on a marble counter'],
  ];
  for (const [i, [a, b, c, alt]] of palettes.entries()) images.push(await uploadImage(api, user.websiteId, `photo-${i + 1}.jpg`, await picture(1600, 1000, [a, b, c]), alt));

  const about = await post('cms_pages', {
    title: 'About the bakery',
    url_key: 'about',
    meta_description: 'Who we are and how we bake.',
    content:
      '<p>We are a family bakery in the old town. Every loaf is shaped by hand and baked in a stone oven that has been warm since five in the morning.</p>' +
      '<h2>Our breads</h2><ul><li>Country sourdough, fermented for 36 hours</li><li>Dark rye with sunflower seeds</li><li>Spelt and honey</li></ul>' +
      `<figure><img src="${api.baseUrl}/engine-api/v1/${images[3].name}?w=960" alt="The bakery’s shop front in the morning light" width="960" height="600"><figcaption>Our shop on Market Street</figcaption></figure>` +
      '<h2>Visit us</h2><p>Open Tuesday to Sunday, 7:00 to 18:00. Read <a href="/blog">our blog</a> for the bread of the week.</p>',
  });
  const visit = await post('cms_pages', { title: 'Visit us', url_key: 'visit', content: '<p>Market Street 12, open Tuesday to Sunday from 7:00 to 18:00.</p>', meta_description: 'Where to find us.' });
  const footer = await post('cms_blocks', { identifier: 'footer', title: 'Footer', content: '<p>Market Street 12 · Open Tue–Sun, 7:00–18:00</p>' });
  await post('navigation_menus/main/items', { label: 'About', cms_page_id: about.id });
  await post('navigation_menus/main/items', { label: 'Blog', url: '/blog' });
  await post('navigation_menus/main/items', { label: 'Visit us', cms_page_id: visit.id });
  const footerMenu = await post('navigation_menus', { display_name: 'Information', identifier: 'footer' });
  await post(`navigation_menus/${footerMenu.id}/items`, { label: 'Imprint', url: '/visit' });
  await post(`navigation_menus/${footerMenu.id}/items`, { label: 'RSS feed', url: '/blog/rss.xml' });
  must(await api.call('PATCH', `${base}/theme`, { footer_block_id: footer.id }), 200, 'theme');

  const bread = await post('blog_categories', { display_name: 'Bread', url_key: 'bread', description: 'Loaves, old and new.' });
  const pastry = await post('blog_categories', { display_name: 'Pastry', url_key: 'pastry' });
  const tag = await post('blog_tags', { display_name: 'Sourdough', url_key: 'sourdough' });
  const author = await post('blog_authors', { display_name: 'Ada Baker', url_key: 'ada' });
  const paragraph = '<p>Good bread takes time. We mix the dough in the afternoon, let it rest overnight in the cool cellar and shape it before dawn, so the crust cracks just right when it leaves the oven.</p>';
  const posts = [
    { title: 'The secret of a crackling crust', image: 0, category: bread.id, days: 1 },
    { title: 'Why our rye rests for two days', image: 1, category: bread.id, days: 4 },
    { title: 'Butter, flour and patience: our croissants', image: 2, category: pastry.id, days: 8 },
    { title: 'A new oven for the old shop', image: 3, category: bread.id, days: 15 },
    { title: 'Cherry season at the bakery', image: 4, category: pastry.id, days: 30 },
  ];
  const made = [];
  for (const p of posts) {
    made.push(
      await post('blog_posts', {
        title: p.title,
        content: `${paragraph}<h2>How we do it</h2>${paragraph.repeat(3)}<blockquote><p>Bread is the warmest, kindest of words.</p></blockquote>${paragraph}`,
        custom_excerpt: '<p>From the oven to your table: what we learned this week about flour, water, salt and time.</p>',
        state: 'PUBLISHED',
        publish_time: daysAgo(p.days),
        feature_image_media_id: images[p.image].id,
        category_ids: [p.category],
        tag_ids: [tag.id],
        author_ids: [author.id],
      }),
    );
  }
  return { page: '/about', post: `/blog/${made[1].url_key}`, blog: '/blog', category: '/blog/category/bread' };
}

async function siteOrigin(api: Api, user: BenchUser, port: number): Promise<string> {
  const website = must(await api.call('GET', `${TENANT}/websites/${user.websiteId}`), 200, 'website');
  return `http://${website.code}.localhost:${port}`;
}

/** GET of a site URL on loopback with the site's Host (`*.localhost` need not resolve here). */
function get(url: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: '127.0.0.1', port: u.port, path: u.pathname + u.search, headers: { host: u.host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** Polls until the site answers `path` with 200 and `check` holds (writes reach the site within 1 s). */
async function until(origin: string, path: string, check: (body: string) => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await get(`${origin}${path}`).catch(() => undefined);
    if (res?.status === 200 && check(res.body)) return;
    if (Date.now() > deadline) throw new Error(`${origin}${path} did not become ready`);
    await delay(100);
  }
}

/** HTML, linked CSS and first-party JS of a page, as sent brotli-compressed (images not counted). */
async function pageWeight(origin: string, path: string): Promise<{ html: number; css: number; js: number; raw: number }> {
  const html = (await get(`${origin}${path}`)).body;
  const br = async (href: string) => brotliCompressSync(Buffer.from((await get(new URL(href.replace(/&amp;/g, '&'), origin).href)).body)).length;
  let js = 0;
  let css = 0;
  for (const m of html.matchAll(/<script src="([^"]+)"/g)) js += await br(m[1]);
  for (const m of html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)) css += await br(m[1]);
  return { html: brotliCompressSync(Buffer.from(html)).length, css, js, raw: Buffer.byteLength(html) };
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'siteplatform-showcase-'));
  const port = await freePort();
  const server = await startServer({
    mainJs: MAIN_JS,
    cwd: ROOT,
    env: { DATA_DIR: join(tmp, 'data'), PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, MEDIA_AVIF_EFFORT: '2' },
  });
  try {
    mkdirSync(join(tmp, 'data'), { recursive: true });
    const base = `http://127.0.0.1:${port}`;
    const freshApi = apiClient(base);
    const fresh = await signUp(freshApi);
    const api = apiClient(base);
    const user = await signUp(api);
    const paths = await seed(api, user);
    const freshOrigin = await siteOrigin(freshApi, fresh, port);
    const origin = await siteOrigin(api, user, port);
    await until(origin, '/', (b) => b.includes('crackling crust'));
    await until(origin, paths.category, () => true);

    const pages: Array<[string, string]> = [['home', '/'], ['page', paths.page], ['post with images', paths.post], ['blog index', paths.blog], ['category archive', paths.category]];
    console.log(`site: ${origin}`);
    for (const [name, path] of pages) {
      const w = await pageWeight(origin, path);
      const kb = (n: number) => (n / 1024).toFixed(1);
      console.log(`weight ${name} (${path}): HTML ${kb(w.html)} KB br (${kb(w.raw)} KB uncompressed), CSS ${kb(w.css)} KB br, JS ${kb(w.js)} KB br, total ${kb(w.html + w.css + w.js)} KB`);
    }
    // Every image variant a browser will ask for is made once, before anything is timed.
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
    try {
      const warm = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
      for (const [, path] of pages) await warm.goto(`${origin}${path}`, { waitUntil: 'networkidle' });
      await warm.close();
      if (args.has('--screenshots')) {
        const dir = join(ROOT, 'docs', 'screenshots');
        mkdirSync(dir, { recursive: true });
        const shots: Array<[string, string, string]> = [['fresh', freshOrigin, '/'], ['seeded-home', origin, '/'], ['seeded-post', origin, paths.post]];
        for (const [name, o, path] of shots) {
          for (const [width, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]] as const) {
            const tab = await browser.newPage({ viewport, deviceScaleFactor: width === 'phone' ? 2 : 1 });
            await tab.goto(`${o}${path}`, { waitUntil: 'networkidle' });
            await tab.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: width === 'desktop' });
            await tab.close();
            console.log(`screenshot docs/screenshots/${name}-${width}.png`);
          }
        }
      }
    } finally {
      await browser.close();
    }

    if (args.has('--lighthouse')) {
      // Lighthouse is a devDependency; loaded only when asked for.
      const { default: lighthouse } = await import('lighthouse' as string);
      const chromeLauncher = await import('chrome-launcher' as string);
      const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP *.localhost 127.0.0.1'] });
      try {
        const results: Record<string, unknown>[] = [];
        for (const [name, path] of pages) {
          const run = await lighthouse(`${origin}${path}`, { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance', 'accessibility', 'best-practices', 'seo'] });
          const categories = run.lhr.categories;
          const score = (id: string) => Math.round((categories[id]?.score ?? 0) * 100);
          const row = { page: name, path, performance: score('performance'), accessibility: score('accessibility'), best_practices: score('best-practices'), seo: score('seo') };
          results.push(row);
          const failing = Object.values(run.lhr.audits as Record<string, any>)
            .filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative' && a.scoreDisplayMode !== 'notApplicable')
            .map((a) => a.id);
          console.log(`lighthouse ${name} (${path}): performance ${row.performance}, accessibility ${row.accessibility}, best practices ${row.best_practices}, SEO ${row.seo}${failing.length ? ` — below 0.9: ${failing.join(', ')}` : ''}`);
        }
        writeFileSync(join(tmp, 'lighthouse.json'), JSON.stringify(results, null, 2));
      } finally {
        await chrome.kill();
      }
    }
  } finally {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
