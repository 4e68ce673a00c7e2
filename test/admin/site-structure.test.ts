/**
 * Issue 28, the site-structure screens in Chromium against the real server (one server and one
 * sign-up for the file): a menu entry moved by keyboard changes the site's menu; a category's posts
 * reordered by drag and drop change the archive order; the primary colour changes the preview
 * before saving and the site after; settings saved in one batch; the custom domain screen. axe on
 * every screen; any console error fails the test.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import { AXE_TAGS, startAdminBrowser, signInPage, type AdminBrowser, screenshotWidths } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { eventually } from '../support/fixtures-auth.js';
import { API, expectStatus } from '../support/fixtures.js';

let a: AdminBrowser;
let alice: TestUser;
let base: string;
let host: string;
let page: Page;
const consoleErrors: string[] = [];

const api = async (method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) =>
  expectStatus(await a.t.request(method, `${base}${path}`, { token: alice.token, body }), status);
const site = (path: string) => a.t.request('GET', path, { headers: { host } });
/** The site's `path` once `check` holds (writes reach the site within the content-version bound). */
const siteUntil = async (path: string, check: (html: string) => boolean, show: (html: string) => unknown = (html) => html.slice(0, 300)) => {
  let last = '';
  return eventually(async () => {
    const res = await site(path);
    last = res.body;
    return res.statusCode === 200 && check(res.body) ? res.body : undefined;
  }, `${path} on the site`, 15_000).catch((err) => {
    throw new Error(`${err.message}; last seen: ${JSON.stringify(show(last))}`);
  });
};
const menuLabels = (html: string) => [...(/<nav class="site-menu"[^>]*>([\s\S]*?)<\/nav>/.exec(html)?.[1] ?? '').matchAll(/<a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]);
const cardTitles = (html: string) => [...html.matchAll(/<h[23][^>]*>\s*<a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1].trim());

beforeAll(async () => {
  a = await startAdminBrowser();
  alice = await a.t.signUpProvisioned({ email: 'structure@example.com', website_name: 'Structure Bakery' });
  base = `${API}/websites/${alice.websiteId}`;
  host = `${expectStatus(await a.t.request('GET', base, { token: alice.token }), 200).code}.localhost`;
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => a?.close());

describe('site structure screens', { timeout: 120_000 }, () => {
  it('moves a menu entry by keyboard and the site menu changes', async () => {
    const menus = await api('GET', '/navigation_menus');
    const menu = menus.navigation_menus.find((m: any) => m.identifier === 'main') ?? (await api('POST', '/navigation_menus', { display_name: 'Main', identifier: 'main' }));
    for (const item of (await api('GET', `/navigation_menus/${menu.id}/items`)).items) await api('DELETE', `/navigation_menus/${menu.id}/items/${item.id}`, undefined, 204);
    for (const [label, url] of [['Home', '/'], ['Blog', '/blog'], ['Contact', '/contact']]) await api('POST', `/navigation_menus/${menu.id}/items`, { label, url });
    await api('PATCH', '/theme', { main_menu_id: menu.id });
    await siteUntil('/', (html) => menuLabels(html).join() === 'Home,Blog,Contact', menuLabels);

    await page.goto(`${a.origin}/w/${alice.websiteId}/r/navigation_menus/${menu.id}`);
    const list = page.getByRole('list', { name: `Entries of ${menu.display_name}` });
    await list.getByText('Contact', { exact: true }).waitFor();
    await a.expectAccessible(page, 'menus');

    // dnd-kit's keyboard sensor: Space picks the entry up, an arrow moves it, Space drops it.
    await page.getByRole('button', { name: 'Drag Contact' }).focus();
    // Each step waits for dnd-kit's live announcement of where the entry would go.
    const announced = (text: string) => page.getByText(text, { exact: true }).waitFor({ state: 'attached' });
    await page.keyboard.press('Space');
    await announced('Contact would go at the top level, after Blog.');
    await page.keyboard.press('ArrowUp');
    await announced('Contact would go at the top level, after Home.');
    await page.keyboard.press('ArrowUp');
    await announced('Contact would go at the top level, first.');
    await page.keyboard.press('Space');
    await page.getByText('Contact moved.').waitFor();
    await siteUntil('/', (html) => menuLabels(html).join() === 'Contact,Home,Blog', menuLabels);

    // The move buttons: Blog one level in, under Home.
    await page.getByRole('button', { name: 'Move Blog in one level' }).click();
    await page.getByText('Blog moved.').waitFor();
    const items = (await api('GET', `/navigation_menus/${menu.id}/items`)).items;
    const home = items.find((i: any) => i.label === 'Home');
    expect(items.find((i: any) => i.label === 'Blog')).toMatchObject({ parent_id: home.id, level: 1 });

    // An entry pointing at a page found by its title.
    const about = await api('POST', '/cms_pages', { title: 'About our ovens', url_key: 'about-ovens', content: '<p>Hot.</p>', is_active: true });
    await page.getByRole('button', { name: 'Add entry' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Label').fill('Ovens');
    await dialog.getByRole('combobox', { name: 'Page' }).fill('ovens');
    await page.getByRole('option', { name: /About our ovens/ }).click();
    await a.expectAccessible(page, 'menu entry dialog');
    await dialog.getByRole('button', { name: 'Add entry' }).click();
    await page.getByText('Ovens saved.').waitFor();
    expect((await api('GET', `/navigation_menus/${menu.id}/items`)).items.find((i: any) => i.label === 'Ovens')).toMatchObject({ cms_page_id: about.id });
    await siteUntil('/', (html) => menuLabels(html).includes('Ovens'));
    await screenshotWidths(page, 'admin-menus');
  });

  it("reorders a category's posts by drag and drop and the archive shows the new order", async () => {
    const category = await api('POST', '/blog_categories', { display_name: 'Breads' });
    await api('POST', '/blog_categories', { display_name: 'Rye', parent_id: category.id });
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    const posts = [];
    for (const [i, title] of ['Sourdough', 'Baguette', 'Focaccia'].entries()) {
      posts.push(await api('POST', '/blog_posts', { title, content: `<p>${title}</p>`, state: 'PUBLISHED', publish_time: day(i + 1), category_ids: [category.id] }));
    }
    await api('POST', `/blog_categories/${category.id}:set_posts`, { post_ids: posts.map((p) => p.id) }, 200);
    const archive = `/blog/category/${category.url_key}`;
    await siteUntil(archive, (html) => cardTitles(html).join() === 'Sourdough,Baguette,Focaccia', cardTitles);

    await page.goto(`${a.origin}/w/${alice.websiteId}/r/blog_categories/${category.id}`);
    const order = page.getByRole('list', { name: 'Posts of Breads, in order' });
    await order.getByText('Focaccia').waitFor();
    await page.getByRole('list', { name: 'Categories' }).getByRole('button', { name: 'Rye', exact: true }).waitFor();
    await a.expectAccessible(page, 'blog categories');

    // Focaccia dragged by its handle above Sourdough.
    const handle = await page.getByRole('button', { name: 'Drag Focaccia' }).boundingBox();
    const target = await page.getByRole('button', { name: 'Drag Sourdough' }).boundingBox();
    await page.mouse.move(handle!.x + handle!.width / 2, handle!.y + handle!.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(handle!.x + handle!.width / 2, handle!.y + ((target!.y - 8 - handle!.y) * i) / 10);
    await page.mouse.up();
    await page.getByText('Order saved.').waitFor();
    const read = await api('GET', `/blog_categories/${category.id}/posts`);
    expect(read.posts.map((p: any) => p.post_id)).toEqual([posts[2].id, posts[0].id, posts[1].id]);
    await siteUntil(archive, (html) => cardTitles(html).join() === 'Focaccia,Sourdough,Baguette', cardTitles);

    // A category's own fields in place.
    await page.getByRole('button', { name: 'Edit Rye' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Rye breads');
    await a.expectAccessible(page, 'category dialog');
    await dialog.getByRole('button', { name: 'Save category' }).click();
    await page.getByRole('list', { name: 'Categories' }).getByRole('button', { name: 'Rye breads', exact: true }).waitFor();
    await screenshotWidths(page, 'admin-blog-categories');
  });

  it('changes the primary colour: the preview shows it before saving, the site after', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/theme`);
    const primary = page.getByRole('textbox', { name: 'Primary', exact: true });
    await primary.waitFor();
    const preview = page.frameLocator('iframe[title^="Preview of the website"]');
    await preview.locator('header.site-header').waitFor();
    await a.expectAccessible(page, 'theme');
    const previewPrimary = () => preview.locator('html').evaluate((el) => getComputedStyle(el).getPropertyValue('--color-primary').trim());
    expect(await previewPrimary()).toBe('#1f6feb');

    await primary.fill('#b42318');
    await primary.press('Tab');
    await expect.poll(previewPrimary, { timeout: 10_000 }).toBe('#b42318');
    // Not saved yet: the site still has the old colour.
    expect((await site('/')).body).not.toContain('--color-primary:#b42318');

    // A pale accent makes white button text unreadable: a contrast warning names the pair.
    await primary.fill('#ffe066');
    await primary.press('Tab');
    await page.getByText(/Button text on the accent colour: contrast \d\.\d\d:1/).first().waitFor();
    // The admin part only: the framed site shows the unreadable accent on purpose (what the warning is about).
    const adminOnly = await new AxeBuilder({ page }).withTags(AXE_TAGS).exclude('iframe').analyze();
    expect(adminOnly.violations.map((v) => v.id), 'axe on theme with a contrast warning').toEqual([]);
    await primary.fill('#b42318');
    await primary.press('Tab');
    await page.getByRole('button', { name: 'Save theme' }).click();
    await page.getByText('Theme saved.').waitFor();
    expect((await api('GET', '/theme')).variables['--color-primary']).toBe('#b42318');
    await siteUntil('/', (html) => html.includes('--color-primary:#b42318'));
    await expect.poll(previewPrimary, { timeout: 10_000 }).toBe('#b42318');
    await screenshotWidths(page, 'admin-theme');
  });

  it('saves several settings in one batch; defaults and overrides are shown as such', async () => {
    // A second view holding its own value of a view-overridable setting.
    const view = await api('POST', '/views', { display_name: 'Deutsch', locale: 'de' });
    await api('PATCH', `/views/${view.id}/settings/agents.markdown.enabled`, { value: false });
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/settings`);
    await page.getByRole('tab', { name: /Agents/ }).click();
    await page.getByText('Overridden in view').first().waitFor();
    expect(await page.getByText(/Overridden in view Deutsch \(de\)/).count()).toBe(1);
    await page.getByRole('tab', { name: /General/ }).click();
    const tagline = page.getByRole('textbox', { name: 'Tagline' });
    await tagline.waitFor();
    await a.expectAccessible(page, 'settings');
    await tagline.fill('Bread since 1921');
    await page.getByRole('textbox', { name: 'Name' }).first().fill('Structure Bakery & Co');
    await page.getByRole('button', { name: 'Save 2 changes' }).click();
    await page.getByText('2 settings saved.').waitFor();
    expect((await api('GET', '/settings/general.site.tagline')).value).toBe('Bread since 1921');
    expect((await api('GET', '/settings/general.site.name')).value).toBe('Structure Bakery & Co');
    await siteUntil('/', (html) => html.includes('Bread since 1921'));
    await page.getByRole('tab', { name: /Agents/ }).click();
    await screenshotWidths(page, 'admin-settings');
  });

  it('shows the custom domain, the record to create and what :verify found', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/custom_domain`);
    await page.getByText('Not configured').waitFor();
    await a.expectAccessible(page, 'custom domain');
    await page.getByRole('textbox', { name: 'Custom domain' }).fill('www.structure-bakery.test');
    await page.getByRole('button', { name: 'Save domain' }).click();
    await page.getByText('Record to create at your DNS provider').waitFor();
    const domain = await api('GET', '/custom_domain');
    await page.getByRole('table').getByText(domain.dns_record.value, { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Verify now' }).click();
    await page.getByText(/^Checked: /).waitFor({ timeout: 30_000 });
    await a.expectAccessible(page, 'custom domain after verify');
    expect(consoleErrors).toEqual([]);
  });
});

