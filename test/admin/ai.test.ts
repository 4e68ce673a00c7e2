/**
 * The admin's AI and billing screens in Chromium against the real server (issue 29): an own key
 * added (write-only, verified against the provider stand-in), an instruction with a second
 * version and its diff, an agent on the platform key, a run watched live until it succeeds with
 * its cost, a second run cancelled, the runs list filtered by state in the URL, and the run's
 * charge on the billing screen (balance, usage chart with its data table, ledger). axe on every
 * screen; any console error fails the journey.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser, screenshotWidths } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';
import { aiContext } from '../../src/ai/ai.area.js';
import { addMember } from '../support/access.js';

let a: AdminBrowser;
let standin: ProviderStandin;
let alice: TestUser;
let page: Page;
const consoleErrors: string[] = [];

beforeAll(async () => {
  standin = await startProviderStandin();
  a = await startAdminBrowser({ ...standinEnv(standin), AI_STARTING_CREDIT: '0' });
  alice = await a.t.signUpProvisioned({ email: 'ada@example.com', website_name: 'Ada Labs' });
  // Operators grant credit with `npm run ai:grant-credit`; the same service call here: $5.
  await aiContext(a.t.platform.deps).billing.grantCredit(alice.accountId, 5_000_000_000, 'Test credit', Date.now());
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => {
  await a?.close();
  await standin?.close();
});

const at = (path: string) => page.goto(`${a.origin}/a/${alice.accountId}/r/${path}`);
/** A field by its label; a required field's label ends with Mantine's asterisk. */
const field = (label: string) => page.getByLabel(new RegExp(`^${label.replace(/[()]/g, '\\$&')}( \\*)?$`));
async function choose(label: string, option: string | RegExp) {
  await page.getByRole('combobox', { name: label, exact: true }).click();
  await page.getByRole('option', { name: option }).click();
}

describe('AI and billing screens', { timeout: 180_000 }, () => {
  it('adds an own key that is never shown again and verifies it with the provider', async () => {
    standin.validKeys.add('sk-own-admin-0042');
    await at('ai_connections');
    await page.getByRole('heading', { level: 1, name: 'AI connections' }).waitFor();
    // Every account has the platform key per provider from creation.
    await page.getByText('Platform (openai)').waitFor();
    await a.expectAccessible(page, 'connections');
    await page.getByRole('button', { name: 'Add your own key' }).click();
    await field('Name').fill('Our OpenAI key');
    await page.getByRole('textbox', { name: 'API key' }).fill('sk-own-admin-0042');
    await page.getByLabel('Priority').fill('200');
    await a.expectAccessible(page, 'connections, new key');
    await page.getByRole('button', { name: 'Save connection' }).click();
    await page.getByText('it ends in …0042').waitFor();
    expect(await page.content()).not.toContain('sk-own-admin-0042');
    await page.getByRole('button', { name: 'Verify Our OpenAI key' }).click();
    await page.getByText('Verified: Valid').waitFor();
    await a.expectAccessible(page, 'connections, verified');
  });

  it('creates an instruction, adds a version and shows what changed', async () => {
    await at('ai_instructions');
    await page.getByText('No instructions yet').waitFor();
    await a.expectAccessible(page, 'instructions, empty');
    await page.getByRole('button', { name: 'New instruction' }).click();
    await field('Name').fill('Writer');
    await page.getByRole('combobox', { name: 'Variables' }).fill('topic');
    await page.getByRole('combobox', { name: 'Variables' }).press('Enter');
    await field('Instruction text (version 1)').fill('Write a short note about {{topic}}.');
    await page.getByRole('button', { name: 'Create instruction' }).click();
    await page.getByRole('heading', { level: 1, name: 'Writer' }).waitFor();
    await page.getByLabel('Instruction text').fill('Write a friendly short note about {{topic}} for bakers.');
    await page.getByLabel('Notes').fill('Friendlier');
    await page.getByRole('button', { name: 'Save as version 2' }).click();
    await page.getByRole('cell', { name: 'Friendlier' }).waitFor();
    const diff = page.getByLabel('Changes from version 1 to version 2');
    await expect.poll(() => diff.locator('ins').allTextContents()).toEqual(['friendly ', ' for bakers']);
    await page.getByRole('button', { name: 'Make version 2 active' }).click();
    await page.getByText('runs use version 2').waitFor();
    await a.expectAccessible(page, 'instruction with versions and diff');
  });

  it('creates an agent on the platform key, runs it and watches the run finish with its cost', async () => {
    await at('ai_agents');
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'New agent' }).waitFor();
    await field('Name').fill('Note writer');
    await choose('Instruction', /Writer/);
    await choose('Model', /^GPT-5 — available/);
    await choose('Connections runs may use', 'Platform key only (charged to the balance)');
    await a.expectAccessible(page, 'new agent');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('heading', { level: 1, name: 'Note writer' }).waitFor();
    // Platform key only: the own OpenAI key (priority 200) is not among the connections it uses.
    await page.getByText(/^1\. Platform \(openai\) — platform key/).waitFor();
    expect(await page.getByText(/own key …0042/).count()).toBe(0);
    await a.expectAccessible(page, 'agent');

    // gpt-5: 1000 × $1.25/M + 2000 × $10/M = $0.02125. A slow answer: the run is seen running.
    standin.script('openai', { delayMs: 1500, text: 'Fresh bread every morning.', usage: { input: 1000, output: 2000 } });
    await field('Variable topic').fill('sourdough');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await page.waitForURL(/\/r\/ai_executions\/[^/]+$/);
    await page.getByRole('heading', { level: 1, name: 'Run of Note writer' }).waitFor();
    await page.getByRole('status', { name: /State: (Queued|Running)/ }).waitFor();
    await a.expectAccessible(page, 'run, in progress');
    await page.getByRole('status', { name: 'State: Succeeded' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByTestId('run-cost').textContent()).toBe('$0.02125');
    expect(await page.getByTestId('run-output').textContent()).toBe('Fresh bread every morning.');
    await page.getByRole('cell', { name: 'Answered' }).waitFor();
    await a.expectAccessible(page, 'run, succeeded');
    await screenshotWidths(page, 'admin-execution');
    const runUrl = page.url();

    // A second, slow run asked to stop: the request is recorded at once.
    standin.script('openai', { delayMs: 4000, usage: { input: 10, output: 10 } });
    await page.getByRole('link', { name: /Note writer \(v1\)/ }).click();
    await field('Variable topic').fill('rye');
    await page.getByRole('button', { name: 'Start a run' }).click();
    await page.waitForURL((u) => /\/r\/ai_executions\/[^/]+$/.test(u.pathname) && u.href !== runUrl);
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByRole('button', { name: 'Cancelling…' }).waitFor();
    await page.getByRole('status', { name: /State: (Cancelled|Succeeded)/ }).waitFor({ timeout: 20_000 });
  });

  it('lists runs filtered by state, with the filter in the URL', async () => {
    await at('ai_executions?state=SUCCEEDED');
    await page.getByRole('heading', { level: 1, name: 'AI runs' }).waitFor();
    await page.getByRole('cell', { name: '$0.02125' }).waitFor();
    await a.expectAccessible(page, 'runs, succeeded');
    await choose('State', 'Failed');
    await page.waitForURL(/state=FAILED/);
    await page.getByText('No run matches these filters.').waitFor();
    await a.expectAccessible(page, 'runs, none failed');
  });

  it('shows the run’s charge on the billing screen: balance, usage over time and the ledger', async () => {
    await at('ai_billing');
    await page.getByRole('heading', { level: 1, name: 'AI billing' }).waitFor();
    // $5 credit less the first run's $0.02125 and whatever the cancelled run cost (it may have finished).
    const balance = await page.getByTestId('balance').textContent();
    // The cancelled run: 10 × $1.25/M + 10 × $10/M = $0.0001125 when it finished anyway.
    expect(['$4.97875', '$4.9786375']).toContain(balance);
    await page.getByText(/AI spend per day from .* in all over [12] attempts/).first().waitFor();
    await page.getByRole('img', { name: /AI spend per day/ }).waitFor();
    await page.getByRole('cell', { name: 'Test credit' }).waitFor();
    await page.getByRole('cell', { name: '-$0.02125' }).waitFor();
    await a.expectAccessible(page, 'billing');
    await page.getByRole('button', { name: 'Show data table' }).click();
    await page.getByRole('columnheader', { name: 'Cost (US$)' }).waitFor();
    await a.expectAccessible(page, 'billing, usage table');
    expect(consoleErrors).toEqual([]);
  });

  it('a member who may only read AI sees agents, runs and billing without create, run, cancel or limits', async () => {
    const bob = await a.t.signUp();
    await addMember(a.t, bob, alice.accountId, { role: 'restricted', grants: [{ section: 'account', access: 'READ' }, { section: 'ai', access: 'READ' }] });
    const reader = await a.newPage();
    await signInPage(a, reader, bob);
    await reader.goto(`${a.origin}/a/${alice.accountId}/r/ai_agents`);
    await reader.getByRole('link', { name: 'Note writer' }).click();
    await reader.getByRole('heading', { level: 1, name: 'Note writer' }).waitFor();
    expect(await reader.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    expect(await reader.getByRole('link', { name: 'New agent' }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Start a run' }).count()).toBe(0);
    await reader.goto(`${a.origin}/a/${alice.accountId}/r/ai_billing`);
    await reader.getByTestId('balance').waitFor();
    expect(await reader.getByRole('button', { name: 'Save limits' }).count()).toBe(0);
    await reader.goto(`${a.origin}/a/${alice.accountId}/r/ai_connections`);
    await reader.getByText('Platform (openai)').waitFor();
    expect(await reader.getByRole('button', { name: /^(Add your own key|Verify|Delete)/ }).count()).toBe(0);
  });
});

