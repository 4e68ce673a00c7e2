/**
 * The theme screen's live preview on the site's host (src/theme/theme-preview.site.ts): a page asked
 * with `?theme_preview=1` loads the first-party preview script naming the admin's origin; no other
 * rendering carries it (a cached one neither), and the script listens to that origin only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { blogSite, type BlogSite } from './blog-support.js';

let t: TestApp;
let s: BlogSite;
const ADMIN = 'https://admin.example.test';

beforeAll(async () => {
  t = await startTestApp({ ADMIN_BASE_URL: ADMIN });
  s = await blogSite(t);
  await s.until('/', 200);
});
afterAll(() => t?.close());

const previewTag = (html: string) => /<script src="\/_site\/theme-preview\.js"[^>]*><\/script>/.exec(html)?.[0];

describe('theme preview on the site', () => {
  it('a page asked with theme_preview=1 loads the preview script naming the admin origin; others never do', async () => {
    // The plain page first: it is cached, and the preview rendering must not be served from it (nor the reverse).
    const plain = await s.get('/');
    expect(plain.statusCode).toBe(200);
    expect(previewTag(plain.body)).toBeUndefined();
    const preview = await s.get('/?theme_preview=1');
    expect(preview.statusCode).toBe(200);
    expect(previewTag(preview.body)).toContain(`data-admin="${ADMIN}"`);
    expect(previewTag((await s.get('/')).body)).toBeUndefined();
    expect(previewTag((await s.get('/?theme_preview=0')).body)).toBeUndefined();
  });

  it('the preview script is first-party JavaScript that applies only messages from the admin inside a frame', async () => {
    const res = await s.get('/_site/theme-preview.js');
    expect(res.statusCode).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^text\/javascript/);
    expect(res.body).toContain('e.origin !== admin');
    expect(res.body).toContain('window.parent === window');
    expect(res.body).toContain("style.setProperty(name, value)");
  });
});
