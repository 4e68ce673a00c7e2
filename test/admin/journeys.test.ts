/**
 * The admin's journeys before and around signing in, in Chromium against the real server (issue 25):
 * sign-up through provisioning to the website (errors in place), the mailed links of password
 * reset and email confirmation (read from the `.eml` files in DATA_DIR/outbox), accepting an
 * invitation as a new user and as a signed-in one. axe on every screen visited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { API, expectStatus } from '../support/fixtures.js';

let a: AdminBrowser;
let alice: TestUser;

beforeAll(async () => {
  a = await startAdminBrowser();
  alice = await a.t.signUpProvisioned({ email: 'alice@example.com', website_name: 'Alice Bakes' });
}, 120_000);
afterAll(async () => a?.close());

describe('admin journeys', { timeout: 120_000 }, () => {
  it('signs up through provisioning to the new website, with errors in place', async () => {
    const page = await a.newPage();
    await page.goto(`${a.origin}/`);
    await page.waitForURL(`${a.origin}/sign-in`);
    // The sign-in screen links the API references and the health check.
    for (const name of ['Tenant API reference', 'Tenant API (OpenAPI)', 'Health check']) await page.getByRole('link', { name }).waitFor();
    await page.getByRole('link', { name: 'Create a website' }).click();
    await page.getByRole('heading', { name: 'Create your website' }).waitFor();
    await a.expectAccessible(page, 'sign-up');

    // An address that has an account is refused on its field.
    await page.getByLabel('Email').fill(alice.email);
    await page.getByLabel('Bot check').fill('dev-captcha');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText('This address already has an account').waitFor();
    await a.expectAccessible(page, 'sign-up, address taken');

    await page.getByLabel('Email').fill('erin@example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Website name').fill("Erin's Garden");
    await page.getByRole('textbox', { name: 'Password' }).fill('onlyletters');
    await page.getByRole('button', { name: 'Create website' }).click();
    // The weak password's violation (details[].field = password) under its field.
    await page.getByText('Must contain a letter and a digit.').waitFor();
    await a.expectAccessible(page, 'sign-up, weak password');

    await page.getByRole('textbox', { name: 'Password' }).fill('growing-tomatoes-7');
    await page.getByRole('button', { name: 'Create website' }).click();
    await page.waitForURL(/\/w\/[^/]+$/, { timeout: 60_000 });
    await page.getByRole('heading', { level: 1, name: "Erin's Garden" }).waitFor();
    await page.getByText('ACTIVE').waitFor();
    await a.expectAccessible(page, 'new website home');
  });

  it('resets a forgotten password from the mailed link', async () => {
    const page = await a.newPage();
    await page.goto(`${a.origin}/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    // The sign-in screen has an Email field too: fill the reset screen's, not the one leaving.
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(alice.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByText('Check your mail').waitFor();
    await a.expectAccessible(page, 'forgot password');

    const link = await a.mailedLink(alice.email, '/reset-password');
    expect(link.startsWith(`${a.origin}/reset-password#token=`)).toBe(true);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await a.expectAccessible(page, 'reset password');
    await page.getByRole('textbox', { name: 'New password' }).fill('short');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Must be at least 8 characters.').waitFor();
    await a.expectAccessible(page, 'reset password, weak password');
    await page.getByRole('textbox', { name: 'New password' }).fill('new-secret-42');
    await page.getByRole('button', { name: 'Set the password' }).click();
    await page.getByText('Password changed').waitFor();
    alice = { ...alice, password: 'new-secret-42' };
    await signInPage(a, page, alice);
  });

  it('confirms a new email address from the mailed link', async () => {
    const token = expectStatus(await a.t.request('POST', `${API}/users:authenticate`, { body: { email: alice.email, password: alice.password } }), 200).token;
    expectStatus(await a.t.request('POST', `${API}/users/me:change_email`, { token, body: { new_email: 'alice.new@example.com', current_password: alice.password } }), 200);
    const link = await a.mailedLink('alice.new@example.com', '/confirm-email');
    const page = await a.newPage();
    await page.goto(link);
    await page.getByText('Address confirmed').waitFor();
    await a.expectAccessible(page, 'confirm email');
    alice = { ...alice, email: 'alice.new@example.com' };
    await page.getByRole('link', { name: 'Sign in' }).click();
    await signInPage(a, page, alice);
  });

  it('accepts an invitation as a new user, and as a signed-in one', async () => {
    const token = expectStatus(await a.t.request('POST', `${API}/users:authenticate`, { body: { email: alice.email, password: alice.password } }), 200).token;
    expectStatus(await a.t.request('POST', `${API}/accounts/${alice.accountId}/invitations`, { token, body: { email: 'carol@example.com', role: 'roles/editor' } }), 201);
    const page = await a.newPage();
    await page.goto(await a.mailedLink('carol@example.com', '/accept-invitation'));
    await page.getByRole('heading', { name: 'Join the team' }).waitFor();
    await a.expectAccessible(page, 'accept invitation');
    await page.getByLabel('Your name').fill('Carol');
    await page.getByRole('textbox', { name: 'Password' }).fill('carols-secret-9');
    await page.getByRole('button', { name: 'Accept the invitation' }).click();
    await page.waitForURL(`${a.origin}/a/${alice.accountId}`);
    await a.expectAccessible(page, 'account home after joining');

    const dave = await a.t.signUpProvisioned({ email: 'dave@example.com', website_name: 'Dave Digs' });
    expectStatus(await a.t.request('POST', `${API}/accounts/${alice.accountId}/invitations`, { token, body: { email: dave.email, role: 'roles/editor' } }), 201);
    const link = await a.mailedLink(dave.email, '/accept-invitation');
    const davePage = await a.newPage();
    // Not signed in yet, with an address that has a user: sign in first, then accept.
    await davePage.goto(link);
    await davePage.getByRole('link', { name: 'Sign in first' }).click();
    await davePage.getByRole('heading', { name: 'Sign in' }).waitFor();
    await davePage.getByLabel('Email').fill(dave.email);
    await davePage.getByRole('textbox', { name: 'Password' }).fill(dave.password);
    await davePage.getByRole('button', { name: 'Sign in' }).click();
    await davePage.getByRole('button', { name: 'Accept the invitation' }).click();
    await davePage.waitForURL(`${a.origin}/a/${alice.accountId}`);
    const members = expectStatus(await a.t.request('GET', `${API}/accounts/${alice.accountId}/members`, { token }), 200).members.map((m: { email: string }) => m.email);
    expect(members).toEqual(expect.arrayContaining(['carol@example.com', dave.email]));
  });
});
