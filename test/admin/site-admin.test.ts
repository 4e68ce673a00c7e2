/**
 * Views, email templates and projects in Chromium against the real server (one server, one sign-up):
 * a view created in the admin (after the API refused a bad URL prefix on its field) makes the site
 * answer under its prefix; an email template's subject is edited, previewed through `:render` and
 * saved; a project is created and a website in it, whose provisioning the screen follows to a link.
 * axe on every screen; any console error but the one provoked 400 fails the test.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let a: AdminBrowser;
let alice: TestUser;
let page: Page;
let siteHost: string;
const consoleErrors: string[] = [];
/** The refused URL prefix answers 400, which Chromium logs; nothing else may. */
const EXPECTED_400 = /^Failed to load resource: the server responded with a status of 400/;

beforeAll(async () => {
  a = await startAdminBrowser();
  alice = await a.t.signUpProvisioned({ email: 'sites@example.com', website_name: 'Crumb Bakery' });
  const website = expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
  siteHost = new URL(website.website_url).host;
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => a?.close());

describe('views, email templates and projects screens', { timeout: 120_000 }, () => {
  it('creates a view, its field error shown in place, and the site answers in it', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/views`);
    const table = page.getByRole('table', { name: 'Views' });
    await table.getByText('Default').waitFor();
    await a.expectAccessible(page, 'views');

    await page.getByRole('button', { name: 'New view' }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Deutsch');
    await page.getByRole('textbox', { name: 'Language' }).fill('de');
    const prefix = page.getByRole('textbox', { name: 'URL prefix' });
    await prefix.fill('-bad-');
    await page.getByRole('button', { name: 'Create view' }).click();
    await expect.poll(() => prefix.getAttribute('aria-invalid')).toBe('true');
    await a.expectAccessible(page, 'view form with a field error');
    await prefix.fill('');
    await page.getByRole('combobox', { name: 'Fallback view' }).click();
    await page.getByRole('option').first().click();
    await page.getByRole('button', { name: 'Create view' }).click();
    const row = table.getByRole('row').filter({ hasText: 'Deutsch' });
    await row.getByText('/de/').waitFor();
    // The fallback chain names the default view.
    expect(await row.getByRole('cell').nth(3).textContent()).not.toBe('—');
    await row.getByRole('link', { name: 'Open site in Deutsch' }).waitFor();

    await expect
      .poll(async () => {
        const res = await a.t.request('GET', '/de', { headers: { host: siteHost } });
        return `${res.statusCode} ${/<html lang="([^"]*)"/.exec(res.body)?.[1]}`;
      })
      .toBe('200 de');

    // Deleting says what happens to posts visible only in the view.
    await row.getByRole('button', { name: 'Delete Deutsch' }).click();
    await page.getByRole('dialog').getByText('go back to draft').waitFor();
    await a.expectAccessible(page, 'delete view dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  });

  it('edits an email template’s subject with a rendered preview', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/email_templates`);
    await page.getByRole('table', { name: 'Email templates' }).getByRole('link', { name: 'Customer welcome' }).click();
    await page.getByRole('heading', { level: 1, name: 'Customer welcome' }).waitFor();
    await page.getByRole('table', { name: 'Placeholders' }).getByText('{{site_name}}').waitFor();
    await a.expectAccessible(page, 'email template');

    await page.getByRole('textbox', { name: 'Subject' }).fill('Fresh bread awaits at {{site_name}}');
    await page.getByRole('button', { name: 'Preview' }).click();
    // `:render` fills the unsaved subject with the placeholder's sample value.
    await expect.poll(() => page.getByTestId('preview-subject').textContent()).toMatch(/^Fresh bread awaits at (?!\{\{)/);
    await page.getByRole('button', { name: 'Save template' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.getByText('Customised').waitFor();
    await a.expectAccessible(page, 'email template saved, with preview');
    const list = expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/email_templates`, { token: alice.token }), 200);
    expect(list.email_templates.find((t: { kind: string }) => t.kind === 'customer_welcome').subject).toBe('Fresh bread awaits at {{site_name}}');
  });

  it('creates a project and a website in it, following provisioning to a link', async () => {
    await page.goto(`${a.origin}/a/${alice.accountId}/r/projects`);
    await page.getByRole('table', { name: /^Websites of / }).getByRole('link', { name: 'Crumb Bakery' }).waitFor();
    await a.expectAccessible(page, 'projects');

    await page.getByRole('button', { name: 'New project' }).click();
    await page.getByRole('textbox', { name: 'Project name' }).fill('Pop-up shops');
    await page.getByRole('button', { name: 'Create project' }).click();
    const project = page.getByRole('region', { name: 'Pop-up shops' });
    await project.getByText('No websites yet.').waitFor();
    await project.getByRole('button', { name: 'New website' }).click();
    await project.getByRole('textbox', { name: 'Website name' }).fill('Summer Stall');
    await project.getByRole('button', { name: 'Create website' }).click();
    const open = project.getByRole('link', { name: 'Open Summer Stall' });
    await open.waitFor({ timeout: 60_000 });
    await project.getByRole('table', { name: 'Websites of Pop-up shops' }).getByRole('cell', { name: 'Ready' }).waitFor();
    await a.expectAccessible(page, 'projects, website provisioned');
    await open.click();
    await page.waitForURL(/\/w\/[^/]+$/);
    expect(page.url()).not.toContain(alice.websiteId);
  });

  it('logged no console error but the provoked 400', () => {
    expect(consoleErrors.filter((m) => !EXPECTED_400.test(m))).toEqual([]);
  });
});
