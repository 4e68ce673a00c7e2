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
}

const post = (f: AccessibilityFixture, collection: string, body: unknown) =>
  f.t.request('POST', `${API}/websites/${f.user.websiteId}/${collection}`, { token: f.user.token, body });

export const ACCESSIBILITY_PAGES: AccessibilityPage[] = [
  { name: 'home page', status: 200, setup: async () => '/' },
  {
    name: 'content page with headings, a list, an image, a link and a block',
    status: 200,
    async setup(f) {
      const image = await upload(f.t, f.user.token, f.user.websiteId, 'loaves.png', await png(640, 480), { alt_text: 'Three loaves' });
      expectStatus(await post(f, 'cms_blocks', { identifier: 'a11y-note', title: 'Note', content: '<p>Open daily from 7 to 18.</p>' }), 201);
      const content =
        '<p>We bake <strong>sourdough</strong> every morning.</p><h2>Our breads</h2><ul><li>Rye</li><li>Spelt</li></ul>' +
        `<figure><img src="${image.name ? `${f.t.config.publicBaseUrl}/engine-api/v1/${image.name}` : ''}" alt="Three loaves on a board" width="640" height="480"><figcaption>Fresh this morning</figcaption></figure>` +
        '<h3>Find us</h3><p>Read <a href="https://example.org/map">the map to the bakery</a>.</p><div data-block="a11y-note"></div>';
      const page = expectStatus(await post(f, 'cms_pages', { title: 'About the bakery', url_key: 'a11y/about', content, meta_description: 'Who we are' }), 201);
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
  { name: 'not-found page', status: 404, setup: async () => '/a11y-no-such-page' },
];
