/**
 * The rendered pages the accessibility test (test/site/accessibility.test.ts) runs axe-core over.
 * Each part of the site adds its pages here (the blog its index and post, the customers area its
 * sign-in form): `setup` creates what the page shows through the tenant API and answers its site path.
 */
import type { TestApp, TestUser } from './app.js';
import { API, expectStatus } from './fixtures.js';
import { png, upload } from './media.js';

export interface AccessibilityFixture {
  t: TestApp;
  user: TestUser;
  /** Id of a second view, url_prefix `de`, locale `de`. */
  deViewId: string;
}

export interface AccessibilityPage {
  name: string;
  /** HTTP status the page answers with. */
  status: number;
  /** Creates what the page needs; answers its site path (`/about`, `/de/about`). */
  setup(fixture: AccessibilityFixture): Promise<string>;
  /** Photographed at phone and desktop widths (a kind of page a visitor sees often). */
  screenshot?: boolean;
}

const post = (f: AccessibilityFixture, collection: string, body: unknown) =>
  f.t.request('POST', `${API}/websites/${f.user.websiteId}/${collection}`, { token: f.user.token, body });

export const ACCESSIBILITY_PAGES: AccessibilityPage[] = [
  { name: 'home page with the newest posts', status: 200, screenshot: true, setup: async () => '/' },
  {
    name: 'content page with headings, a list, an image, a link and a block',
    status: 200,
    screenshot: true,
    async setup(f) {
      const image = await upload(f.t, f.user.token, f.user.websiteId, 'loaves.png', await png(640, 480), { alt_text: 'Three loaves' });
      expectStatus(await post(f, 'cms_blocks', { identifier: 'a11y-note', title: 'Note', content: '<p>Open daily from 7 to 18.</p>' }), 201);
      const content =
        '<p>We bake <strong>sourdough</strong> every morning.</p><h2>Our breads</h2><ul><li>Rye</li><li>Spelt</li></ul>' +
        `<figure><img src="${image.name ? `${f.t.config.publicBaseUrl}/engine-api/v1/${image.name}` : ''}" alt="Three loaves on a board" width="640" height="480"><figcaption>Fresh this morning</figcaption></figure>` +
        '<h3>Find us</h3><p>Read <a href="https://example.org/map">the map to the bakery</a>.</p><div data-block="a11y-note"></div>';
      const page = expectStatus(await post(f, 'cms_pages', { title: 'About the bakery', url_key: 'a11y/about', content, meta_description: 'Who we are' }), 201);
      // The header's main menu (with a sub-item) and the footer's secondary menu (identifier `footer`).
      const about = expectStatus(await post(f, 'navigation_menus/main/items', { label: 'About', cms_page_id: page.id }), 201);
      expectStatus(await post(f, 'navigation_menus/main/items', { label: 'Our story', url: 'https://example.org/story', parent_id: about.id }), 201);
      expectStatus(await post(f, 'navigation_menus/main/items', { label: 'Blog', url: '/blog' }), 201);
      const footer = expectStatus(await post(f, 'navigation_menus', { display_name: 'Legal', identifier: 'footer' }), 201);
      expectStatus(await post(f, `navigation_menus/${footer.id}/items`, { label: 'Imprint', url: '/imprint' }), 201);
      expectStatus(await post(f, `navigation_menus/${footer.id}/items`, { label: 'Privacy', url: '/privacy' }), 201);
      return `/${page.url_key}`;
    },
  },
  {
    name: 'page in a second view',
    status: 200,
    async setup(f) {
      const page = expectStatus(await post(f, 'cms_pages', { title: 'Über uns', url_key: 'a11y-ueber-uns', content: '<p>Wir backen.</p><h2>Brot</h2><ol><li>Roggen</li></ol>', visible_view_ids: [f.deViewId] }), 201);
      return `/de/${page.url_key}`;
    },
  },
  { name: 'not-found page', status: 404, screenshot: true, setup: async () => '/a11y-no-such-page' },
  {
    name: 'search results page',
    status: 200,
    screenshot: true,
    async setup(f) {
      expectStatus(await post(f, 'cms_pages', { title: 'Croissant guide', url_key: 'a11y-croissants', content: '<p>Butter croissants, baked at dawn.</p>' }), 201);
      // The background indexer adds the page to the search index.
      for (let i = 0; i < 200; i++) {
        const index = expectStatus(await f.t.request('GET', `${API}/websites/${f.user.websiteId}/search_index`, { token: f.user.token }), 200);
        if (index.pending_count === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      return '/search?q=croissants';
    },
  },
];

/** The blog: its index (paged), a post with everything a post page shows, its archives, a post in a second view. */
const blogFixture = new WeakMap<AccessibilityFixture, Promise<Record<string, string>>>();
function blogOf(f: AccessibilityFixture): Promise<Record<string, string>> {
  let made = blogFixture.get(f);
  if (!made) {
    made = (async () => {
      const base = `${API}/websites/${f.user.websiteId}`;
      const create = async (collection: string, body: unknown) => expectStatus(await f.t.request('POST', `${base}/${collection}`, { token: f.user.token, body }), 201);
      // One post per page, so `?page=2` exists.
      expectStatus(await f.t.request('PATCH', `${base}/settings/design.pagination.page_size`, { token: f.user.token, body: { value: 1 } }), 200);
      const bread = await create('blog_categories', { display_name: 'Bread', url_key: 'a11y-bread' });
      await create('blog_categories', { display_name: 'Rye', url_key: 'a11y-rye', parent_id: bread.id });
      const tag = await create('blog_tags', { display_name: 'Baking', url_key: 'a11y-baking' });
      const author = await create('blog_authors', { display_name: 'Ada Baker', url_key: 'a11y-ada' });
      const image = await upload(f.t, f.user.token, f.user.websiteId, 'crust.png', await png(800, 600), { alt_text: 'A crust' });
      const day = 86_400_000;
      const post = await create('blog_posts', {
        title: 'How we bake rye',
        content: '<p>Slowly.</p><h2>Flour</h2><p>Stone-ground.</p>',
        state: 'PUBLISHED',
        publish_time: new Date(Date.now() - day).toISOString(),
        category_ids: [bread.id],
        tag_ids: [tag.id],
        author_ids: [author.id],
        feature_image_media_id: image.id,
        feature_image_alt: 'A dark rye loaf',
      });
      for (const n of [2, 3]) await create('blog_posts', { title: `Older post ${n}`, content: '<p>Earlier.</p>', state: 'PUBLISHED', publish_time: new Date(Date.now() - n * day).toISOString() });
      const de = await create('blog_posts', { title: 'Roggen backen', content: '<p>Langsam.</p>', state: 'PUBLISHED', publish_time: new Date(Date.now() - 4 * day).toISOString(), visible_view_ids: [f.deViewId] });
      return { post: post.url_key, category: bread.url_key, tag: tag.url_key, author: author.url_key, de: de.url_key };
    })();
    blogFixture.set(f, made);
  }
  return made;
}

ACCESSIBILITY_PAGES.push(
  { name: 'blog index', status: 200, screenshot: true, setup: async (f) => (await blogOf(f), '/blog') },
  { name: 'blog index, page 2', status: 200, setup: async (f) => (await blogOf(f), '/blog?page=2') },
  { name: 'blog post with image, authors, tags and categories', status: 200, screenshot: true, setup: async (f) => `/blog/${(await blogOf(f)).post}` },
  { name: 'blog category archive with a sub-category', status: 200, screenshot: true, setup: async (f) => `/blog/category/${(await blogOf(f)).category}` },
  { name: 'blog tag archive', status: 200, setup: async (f) => `/blog/tag/${(await blogOf(f)).tag}` },
  { name: 'blog author archive', status: 200, setup: async (f) => `/blog/author/${(await blogOf(f)).author}` },
  { name: 'blog post in a second view', status: 200, setup: async (f) => `/de/blog/${(await blogOf(f)).de}` },
);

/** Visitors' forms (src/customers/customers.site.ts). */
ACCESSIBILITY_PAGES.push(
  {
    name: 'sign-up form with registration attributes',
    status: 200,
    screenshot: true,
    async setup(f) {
      for (const body of [
        { key: 'a11y_size', display_name: 'Shoe size', type: 'NUMBER', is_required: true, show_in_registration: true, description: 'EU sizes' },
        { key: 'a11y_news', display_name: 'Newsletter', type: 'BOOLEAN', show_in_registration: true },
        { key: 'a11y_topics', display_name: 'Topics', type: 'MULTISELECT', show_in_registration: true, options: [{ value: 'bread', display_name: 'Bread' }, { value: 'cake', display_name: 'Cake' }] },
        { key: 'a11y_shop', display_name: 'Shop', type: 'SELECT', show_in_registration: true, options: [{ value: 'north', display_name: 'North' }] },
        { key: 'a11y_bio', display_name: 'About you', type: 'TEXTAREA', show_in_registration: true },
        { key: 'a11y_birthday', display_name: 'Birthday', type: 'DATE', show_in_registration: true },
      ]) expectStatus(await post(f, 'customer_attributes', body), 201);
      return '/account/sign-up';
    },
  },
  { name: 'sign-in form', status: 200, setup: async () => '/account/sign-in' },
  { name: 'password reset request form', status: 200, setup: async () => '/account/password-reset' },
  { name: 'sign-in form in a second view', status: 200, setup: async () => '/account/sign-in?view=de' },
  { name: 'password reset link that does not work', status: 400, setup: async () => '/account/password-reset/confirm?token=nope' },
);
