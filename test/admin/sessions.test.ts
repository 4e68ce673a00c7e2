/**
 * Sessions in the admin, in Chromium against the real server (issue 25 "Sessions"): sign-in with
 * `users:authenticate`, the token refreshed through `users:refresh_token` before it ends, a 401
 * anywhere back to sign-in and then back where the person was, sign out, sign out everywhere.
 * Tokens live 8 s here so a refresh happens within the test.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';
import { repositoryRoot } from '../../src/admin-app/build.js';
import { addMember } from '../support/access.js';

let a: AdminBrowser;
let alice: TestUser;

beforeAll(async () => {
  a = await startAdminBrowser({ TOKEN_LIFETIME_SECONDS: '8' });
  alice = await a.t.signUpProvisioned({ email: 'alice@example.com', website_name: 'Alice Bakes' });
}, 120_000);
afterAll(async () => a?.close());

const storedToken = (page: Page) => page.evaluate(() => JSON.parse(localStorage.getItem('siteplatform.admin.session') ?? 'null')?.token as string | undefined);

describe('sessions in the admin', { timeout: 90_000 }, () => {
  it('signs in from a deep link and lands back on it, with errors in place', async () => {
    const page = await a.newPage();
    await page.goto(`${a.origin}/w/${alice.websiteId}`);
    await page.waitForURL(/\/sign-in\?redirect=/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await a.expectAccessible(page, 'sign-in');

    await page.getByLabel('Email').fill(alice.email);
    await page.getByRole('textbox', { name: 'Password' }).fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/email or password/i);
    await a.expectAccessible(page, 'sign-in with an error');

    await page.getByRole('textbox', { name: 'Password' }).fill(alice.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${a.origin}/w/${alice.websiteId}`);
    await page.getByRole('heading', { level: 1, name: 'Alice Bakes' }).waitFor();
    await page.getByText('ACTIVE').waitFor();
    await a.expectAccessible(page, 'website home');
    // docs/admin-screenshot.png (the README's picture): written when missing or asked for, so a test run leaves the tree clean.
    const shot = join(repositoryRoot(), 'docs', 'admin-screenshot.png');
    if (process.env.TEST_DIALECT === 'sqlite' && (process.env.UPDATE_SCREENSHOTS === '1' || !existsSync(shot))) {
      await mkdir(join(repositoryRoot(), 'docs'), { recursive: true });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.screenshot({ path: shot });
    }
  });

  it('refreshes the token before it ends and stays signed in', async () => {
    const page = await a.newPage();
    await signInPage(a, page, alice, `/sign-in?redirect=/w/${alice.websiteId}`);
    const first = await storedToken(page);
    expect(first).toBeTruthy();
    // 8 s tokens: the admin refreshes at half their life at the latest.
    await expect.poll(() => storedToken(page), { timeout: 15_000, interval: 250 }).not.toBe(first);
    await page.waitForTimeout(5_000); // past the first token's end
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Alice Bakes' }).waitFor();
    expect(page.url()).toBe(`${a.origin}/w/${alice.websiteId}`);
  });

  it('answers a 401 anywhere with sign-in, then returns where the person was', async () => {
    const bob = await a.t.signUpProvisioned({ email: 'bob@example.com', website_name: 'Bob Builds' });
    const page = await a.newPage();
    await signInPage(a, page, bob, `/sign-in?redirect=${encodeURIComponent('/websites')}`);
    await page.getByRole('heading', { name: 'Your websites' }).waitFor();
    await page.locator(`a[href="/w/${bob.websiteId}"]`).waitFor();
    await a.expectAccessible(page, 'websites');
    // Every token of Bob's revoked from elsewhere: the next call of this tab answers 401.
    expectStatus(await a.t.request('POST', `${API}/users:sign_out_everywhere`, { token: await storedToken(page) }), 200);
    await page.locator(`a[href="/w/${bob.websiteId}"]`).click();
    await page.waitForURL(/\/sign-in\?redirect=/);
    await page.getByText('Your session ended').waitFor();
    await page.getByLabel('Email').fill(bob.email);
    await page.getByRole('textbox', { name: 'Password' }).fill(bob.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${a.origin}/w/${bob.websiteId}`);
    await page.getByRole('heading', { level: 1, name: 'Bob Builds' }).waitFor();
  });

  it('signs out, and signs out everywhere', async () => {
    const here = await a.newPage();
    const there = await a.newPage();
    await signInPage(a, here, alice);
    await signInPage(a, there, alice);

    await here.getByRole('button', { name: 'Your account' }).click();
    await here.getByRole('menuitem', { name: 'Sign out', exact: true }).click();
    await here.waitForURL(`${a.origin}/sign-in`);
    expect(await storedToken(here)).toBeUndefined();
    await here.goto(`${a.origin}/w/${alice.websiteId}`);
    await here.waitForURL(/\/sign-in\?redirect=/);

    await signInPage(a, here, alice);
    await here.getByRole('button', { name: 'Your account' }).click();
    await here.getByRole('menuitem', { name: 'Sign out everywhere' }).click();
    await here.waitForURL(`${a.origin}/sign-in`);
    // The other browser's token was revoked too: its next call ends its session.
    await there.reload();
    await there.waitForURL(/\/sign-in\?redirect=/);
  });

  it('offers a member only the areas their role reaches', async () => {
    const frank = await a.t.signUpProvisioned({ email: 'frank@example.com', website_name: 'Frank Fixes' });
    // Restricted to reading the account and its websites: no AI.
    await addMember(a.t, frank, alice.accountId, { role: 'restricted', grants: [{ section: 'account', access: 'READ' }, { section: 'website', access: 'READ' }] });
    const page = await a.newPage();
    await signInPage(a, page, frank, `/sign-in?redirect=/w/${alice.websiteId}`);
    const nav = page.getByRole('navigation', { name: 'Areas' });
    await nav.getByRole('link', { name: 'Posts' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Pages' }).count()).toBe(1);
    expect(await nav.getByRole('link', { name: 'Members' }).count()).toBe(1);
    for (const name of ['Agents', 'Instructions', 'Runs', 'Connections']) expect(await nav.getByRole('link', { name }).count(), name).toBe(0);
    await a.expectAccessible(page, 'website home of a restricted member');

    // Alice, an administrator, is offered the AI area too.
    const own = await a.newPage();
    await signInPage(a, own, alice, `/sign-in?redirect=/w/${alice.websiteId}`);
    await own.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Agents' }).waitFor();
  });

  it('changes the password on the profile screen, with errors on their fields', async () => {
    const page = await a.newPage();
    await signInPage(a, page, alice);
    await page.getByRole('button', { name: 'Your account' }).click();
    await page.getByRole('menuitem', { name: 'Profile and security' }).click();
    await page.getByText(`Signed in as ${alice.email}`).waitFor();
    await a.expectAccessible(page, 'profile and security');
    await page.getByRole('textbox', { name: 'Current password' }).fill('not-my-password-1');
    await page.getByRole('textbox', { name: 'New password' }).fill('another-secret-7');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Is not the current password.').waitFor();
    await a.expectAccessible(page, 'profile and security, wrong password');
    await page.getByRole('textbox', { name: 'Current password' }).fill(alice.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed').waitFor();
    alice = { ...alice, password: 'another-secret-7' };
    expectStatus(await a.t.request('POST', `${API}/users:authenticate`, { body: { email: alice.email, password: alice.password } }), 200);
  });
});
