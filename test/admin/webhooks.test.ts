/**
 * Webhooks and Activity in Chromium against the real server (one server, one sign-up): a webhook
 * created to a loopback receiver (WEBHOOK_ALLOW_HOSTS) shows its secret once; a private URL is
 * refused on its field; a ping shows as a succeeded delivery; a post published through the API shows
 * as `blog_post.published` on the Activity screen, its type filter kept in the URL. axe on every
 * screen; any console error (but the one expected 400) fails the test.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';

let a: AdminBrowser;
let alice: TestUser;
let page: Page;
let receiver: Receiver;
const consoleErrors: string[] = [];
/** The refused private URL answers 400, which Chromium logs; nothing else may. */
const EXPECTED_400 = /^Failed to load resource: the server responded with a status of 400/;

beforeAll(async () => {
  receiver = await startReceiver();
  receiver.respond = () => ({ status: 200, body: 'thanks' });
  a = await startAdminBrowser({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  alice = await a.t.signUpProvisioned({ email: 'hooks@example.com', website_name: 'Hook Bakery' });
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => {
  await a?.close();
  await receiver?.close();
});

describe('webhooks and activity screens', { timeout: 120_000 }, () => {
  it('creates a webhook, shows its secret once, pings it and shows the delivery', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/webhooks`);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Webhooks' }).waitFor();
    await page.getByText('No webhooks').waitFor();
    await a.expectAccessible(page, 'webhooks (empty)');

    await page.getByRole('button', { name: 'New webhook' }).click();
    const url = page.getByRole('textbox', { name: 'Endpoint URL' });
    await url.fill('https://10.0.0.1/hook');
    const types = page.getByRole('combobox', { name: 'Event types' });
    await types.click();
    await page.getByRole('option', { name: 'blog_post.published', exact: true }).click();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    // The API's refusal of a private address shows on the URL field.
    await expect.poll(() => url.getAttribute('aria-invalid')).toBe('true');
    await page.getByText(/private|address|host/i).first().waitFor();
    await a.expectAccessible(page, 'webhook form with a field error');

    await url.fill(receiver.url('/admin'));
    await page.getByRole('textbox', { name: 'Description' }).fill('Rebuild the front end');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const secret = page.getByTestId('webhook-secret');
    await secret.waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    await page.getByText('you will not see it again').waitFor();
    await page.getByRole('button', { name: 'Copy the secret' }).waitFor();
    const row = page.getByRole('row').filter({ hasText: receiver.url('/admin') });
    await row.getByText('Active').waitFor();
    await a.expectAccessible(page, 'webhooks with the secret');
    await page.getByRole('button', { name: 'I have stored it' }).click();
    expect(await secret.count()).toBe(0);

    await row.getByRole('link').click();
    await page.getByRole('heading', { name: 'Webhook', level: 1 }).waitFor();
    // Get never answers the secret: the detail screen has none to show.
    expect(await page.getByTestId('webhook-secret').count()).toBe(0);
    await page.getByText('Nothing sent yet').waitFor();
    await page.getByRole('button', { name: 'Send a ping' }).click();
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const ping = deliveries.getByRole('row').filter({ hasText: 'webhook.ping' });
    await ping.getByText('Succeeded').waitFor({ timeout: 20_000 });
    await ping.getByText('200 in').waitFor();
    expect(receiver.on('/admin').map((r) => r.json.type)).toEqual(['webhook.ping']);
    await ping.getByRole('button', { name: 'Attempts' }).click();
    await deliveries.getByText('thanks').waitFor();
    await a.expectAccessible(page, 'webhook detail with deliveries');

    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByTestId('webhook-secret').waitFor();
    await page.getByText('old secret keeps signing').waitFor();
    expect(consoleErrors.filter((e) => !EXPECTED_400.test(e))).toEqual([]);
    expect(consoleErrors.filter((e) => EXPECTED_400.test(e))).toHaveLength(1);
  });

  it('shows a post published through the API on the Activity screen', async () => {
    const posts = `${API}/websites/${alice.websiteId}/blog_posts`;
    const post = expectStatus(await a.t.request('POST', posts, { token: alice.token, body: { title: 'Rye is back', content: '<p>Rye</p>' } }), 201);
    expectStatus(await a.t.request('POST', `${posts}/${post.id}:publish`, { token: alice.token, body: {} }), 200);

    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity', level: 1 }).waitFor();
    await page.mouse.move(0, 0); // off the navigation: axe reads colours, hover included
    const events = page.getByRole('table', { name: 'Events' });
    const published = events.getByRole('row').filter({ hasText: 'blog_post.published' });
    await published.getByRole('link', { name: /Rye is back/ }).waitFor();
    // The actor by the name the account's members list gives it, not the user id.
    const members = expectStatus(await a.t.request('GET', `${API}/accounts/${alice.accountId}/members`, { token: alice.token }), 200).members;
    const me = members.find((m: any) => m.user === `users/${alice.userId}`);
    await published.getByText(me.display_name || me.email).waitFor();
    await a.expectAccessible(page, 'activity');

    await page.getByRole('combobox', { name: 'Event type' }).click();
    await page.getByRole('option', { name: 'blog_post.published', exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get('type') === 'blog_post.published');
    await expect.poll(() => events.getByRole('row').count()).toBe(2); // the header and the one event
    await published.getByRole('button', { name: /Show the data/ }).click();
    await events.getByText('"state": "PUBLISHED"').waitFor();
    await a.expectAccessible(page, 'activity filtered, data shown');
    // A range after the publish: nothing matches (the time range goes to the API's occur_time filter).
    await page.getByLabel('From').fill('2099-01-01T00:00');
    await page.waitForURL((u) => u.searchParams.get('from') === new Date('2099-01-01T00:00').toISOString());
    await page.getByText('No event matches these filters.').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await published.waitFor();
    // The webhook subscribed to the type got it too.
    await expect.poll(() => receiver.on('/admin').map((r) => r.json.type), { timeout: 20_000 }).toContain('blog_post.published');
    expect(consoleErrors.filter((e) => !EXPECTED_400.test(e))).toEqual([]);
  });

  it('edits, disables and deletes the webhook', async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/webhooks`);
    await page.getByRole('row').filter({ hasText: receiver.url('/admin') }).getByRole('link').click();
    const description = page.getByRole('textbox', { name: 'Description' });
    await expect.poll(() => description.inputValue()).toBe('Rebuild the front end');
    await description.fill('Rebuild the static front end');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Paused', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await a.expectAccessible(page, 'delete confirmation');
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('No webhooks').waitFor();
    expect(expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/webhooks`, { token: alice.token }), 200).webhooks).toEqual([]);
    expect(consoleErrors.filter((e) => !EXPECTED_400.test(e))).toEqual([]);
  });
});
