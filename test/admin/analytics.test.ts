/**
 * The admin's analytics dashboard and search screens in Chromium against the real server (issue
 * 29): visits sent to the rendered site over HTTP (its host, the collection endpoint the site's
 * script posts to) appear on the dashboard reached from the website's home; the period control
 * lives in the URL; edit mode moves, removes and adds widgets and saves the layout, which a reload
 * keeps, and reset brings the default back; the search index reindexes with its progress and the
 * site's search finds the page. axe on every screen; any console error fails the journey.
 */
import { request as httpRequest } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser, screenshotWidths } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { eventually } from '../support/fixtures-auth.js';
import { addMember } from '../support/access.js';

let a: AdminBrowser;
let alice: TestUser;
let page: Page;
let siteHost: string;
const consoleErrors: string[] = [];

/** A real HTTP request to the rendered site: the platform's port, the website's host name. */
function site(method: string, path: string, opts: { body?: unknown; ua?: string } = {}): Promise<{ status: number; body: string }> {
  const url = new URL(a.origin);
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { host: siteHost, 'user-agent': opts.ua ?? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36', ...(payload && { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const BROWSERS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
];

beforeAll(async () => {
  a = await startAdminBrowser();
  alice = await a.t.signUpProvisioned({ email: 'pat@example.com', website_name: 'Pat Pottery' });
  const website = expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
  siteHost = new URL(website.website_url).host;
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => a?.close());

describe('dashboard and search screens', { timeout: 180_000 }, () => {
  it('shows visits sent to the rendered site on the dashboard, reached from the website home', async () => {
    // Three browsers (three visitors): each opens the home page and sends its page views the way the site's script does.
    for (const [i, ua] of BROWSERS.entries()) {
      expect((await site('GET', '/', { ua })).status).toBe(200);
      const paths = i === 0 ? ['/', '/classes'] : ['/'];
      for (const path of paths) expect((await site('POST', '/_site/event', { ua, body: { events: [{ name: 'pageview', url: `http://${siteHost}${path}` }] } })).status).toBe(202);
    }
    // The ingest writes in batches: wait until the API answers them before looking.
    await eventually(async () => {
      const answer = expectStatus(await a.t.request('POST', `${API}/websites/${alice.websiteId}/analytics:query`, { token: alice.token, body: { date_range: '7d', metrics: ['visitors', 'pageviews'] } }), 200);
      return answer.totals.pageviews === 4;
    }, 'the four page views');

    await page.goto(`${a.origin}/w/${alice.websiteId}`);
    await page.getByRole('heading', { name: 'Last 7 days' }).waitFor();
    await a.expectAccessible(page, 'website home with analytics');
    await page.getByRole('link', { name: 'Open the dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await expect.poll(() => page.locator('[data-metric="visitors"]').textContent()).toBe('3');
    expect(await page.locator('[data-metric="pageviews"]').textContent()).toBe('4');
    const topPages = page.getByRole('table', { name: 'Top pages' });
    await topPages.getByRole('cell', { name: '/classes' }).waitFor();
    await page.getByRole('img', { name: /Visitors graph: Unique visitors per day .* total 3/ }).waitFor();
    await a.expectAccessible(page, 'dashboard');

    await page.getByRole('combobox', { name: 'Period' }).click();
    await page.getByRole('option', { name: 'Last 7 days' }).click();
    await page.waitForURL(/range=7d/);
    await expect.poll(() => page.locator('[data-metric="visitors"]').textContent()).toBe('3');
    await page.getByRole('button', { name: 'Show data table' }).first().click();
    await page.getByRole('columnheader', { name: /^Unique visitors \(/ }).first().waitFor();
    await a.expectAccessible(page, 'dashboard, 7 days, data table');
    await screenshotWidths(page, 'admin-dashboard');
  });

  it('edits the layout (move, remove, add), keeps it over a reload, and resets it to the default', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/dashboard`);
    await page.getByText('The default layout.').waitFor();
    await page.getByRole('button', { name: 'Edit dashboard' }).click();
    await page.getByRole('button', { name: 'Move Top pages earlier' }).click();
    await page.getByRole('button', { name: 'Make Top pages wider' }).click();
    await page.getByRole('button', { name: 'Remove Devices' }).click();
    await page.getByRole('combobox', { name: 'Add a widget' }).click();
    await page.getByRole('option', { name: /^Exit pages/ }).click();
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('heading', { name: 'Exit pages' }).waitFor();
    await a.expectAccessible(page, 'dashboard, edit mode');
    await page.getByRole('button', { name: 'Save layout' }).click();
    await page.getByText('A layout of your own.').waitFor();

    await page.reload();
    await page.getByText('A layout of your own.').waitFor();
    const headings = await page.getByRole('main').getByRole('heading', { level: 2 }).allTextContents();
    expect(headings.slice(0, 4)).toEqual(['Key metrics', 'Visitors graph', 'Top pages', 'Top sources']);
    expect(headings).toContain('Exit pages');
    expect(headings).not.toContain('Devices');
    const dashboard = expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/dashboard`, { token: alice.token }), 200);
    expect(dashboard.widgets.find((w: any) => w.id === 'top_pages')).toMatchObject({ position: { x: 0, y: 7 }, size: { width: 7, height: 6 } });

    await page.getByRole('button', { name: 'Reset to default' }).click();
    await page.getByRole('dialog', { name: 'Reset the dashboard?' }).waitFor();
    await a.expectAccessible(page, 'dashboard, reset dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Reset to default' }).click();
    await page.getByText('The default layout.').waitFor();
    await page.getByRole('heading', { name: 'Devices' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Exit pages' }).count()).toBe(0);
  });

  it('reindexes the site search with its progress and tries the site’s search', async () => {
    expectStatus(
      await a.t.request('POST', `${API}/websites/${alice.websiteId}/cms_pages`, {
        token: alice.token,
        body: { title: 'Raku firing workshop', url_key: 'raku', content: '<p>Glazes crackle in the raku kiln.</p>', is_active: true },
      }),
      201,
    );
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/search_index`);
    await page.getByRole('heading', { level: 1, name: 'Search index' }).waitFor();
    await page.getByTestId('document-count').waitFor();
    await a.expectAccessible(page, 'search index');
    await page.getByRole('button', { name: 'Reindex now' }).click();
    await page.getByRole('status').filter({ hasText: /Reindex search: done\./ }).waitFor({ timeout: 30_000 });
    await page.getByText(/Last full reindex: .* — \d+ documents in/).waitFor();
    await page.getByText('Current', { exact: true }).waitFor();
    await a.expectAccessible(page, 'search index, reindexed');

    await page.getByLabel('Search for').fill('raku');
    const href = await page.getByRole('link', { name: /Open the site’s search for “raku”/ }).getAttribute('href');
    const target = new URL(href!);
    expect(target.host).toBe(siteHost);
    const results = await site('GET', `${target.pathname}${target.search}`);
    expect(results.status).toBe(200);
    // The results page marks the matched word: look for the rest of the title and its link.
    expect(results.body).toContain('firing workshop');
    expect(results.body).toContain('/raku');
    expect(consoleErrors).toEqual([]);
  });

  it('a member who may only read sees the dashboard and the index, without edit, reset or reindex', async () => {
    const bob = await a.t.signUp();
    await addMember(a.t, bob, alice.accountId, { role: 'restricted', grants: [{ section: 'account', access: 'READ' }, { section: 'website', access: 'READ' }], websiteIds: [alice.websiteId] });
    const reader = await a.newPage();
    await signInPage(a, reader, bob);
    await reader.goto(`${a.origin}/w/${alice.websiteId}/r/dashboard`);
    await expect.poll(() => reader.locator('[data-metric="visitors"]').textContent()).toBe('3');
    expect(await reader.getByRole('button', { name: 'Edit dashboard' }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Reset to default' }).count()).toBe(0);
    await reader.goto(`${a.origin}/w/${alice.websiteId}/r/search_index`);
    await reader.getByTestId('document-count').waitFor();
    await reader.getByRole('link', { name: /Open the site’s search/ }).waitFor();
    expect(await reader.getByRole('button', { name: 'Reindex now' }).count()).toBe(0);
  });
});

