/**
 * Issue 28, the editorial screens in Chromium against the real server and the AI provider stand-in
 * (test/support/provider-standin.ts): a backlog topic written in the backlog, the plan's rules set
 * in its form (drafting agent, a slot a minute ahead), the calendar filled, the entry drafted by an
 * AI run (progress and cost shown), approved by a person and published, and the post on the site.
 * Each calendar state offers only its verbs. axe on every screen; any console error fails.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser, screenshotWidths } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { eventually } from '../support/fixtures-auth.js';
import { API, expectStatus } from '../support/fixtures.js';
import { standinEnv, startProviderStandin, type ProviderStandin } from '../support/provider-standin.js';

let standin: ProviderStandin;
let a: AdminBrowser;
let alice: TestUser;
let base: string;
let page: Page;
const consoleErrors: string[] = [];
const WEEKDAYS = ['SUNDAY', 'MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY'];
const dayLabel = (d: string) => d.charAt(0) + d.slice(1).toLowerCase();

const api = async (method: string, path: string, body?: unknown, status = method === 'POST' ? 201 : 200) =>
  expectStatus(await a.t.request(method, path.startsWith('/tenant-api') ? path : `${base}${path}`, { token: alice.token, body }), status);

beforeAll(async () => {
  standin = await startProviderStandin();
  a = await startAdminBrowser(standinEnv(standin));
  alice = await a.t.signUpProvisioned({ email: 'editor@example.com', website_name: 'Editorial Bakery' });
  base = `${API}/websites/${alice.websiteId}`;
  // The drafting agent: a copy of the platform's editorial drafting agent (the plan form picks it).
  await api('POST', `${API}/accounts/${alice.accountId}/ai_agents`, { source_system_agent: 'editorial-draft-post', display_name: 'Post drafter', max_attempts: 1 });
  page = await a.newPage();
  page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
  page.on('pageerror', (e) => consoleErrors.push(e.message));
  await signInPage(a, page, alice);
}, 180_000);
afterAll(async () => {
  await a?.close();
  await standin?.close();
});

describe('editorial screens', { timeout: 240_000 }, () => {
  it('runs a backlog topic through the calendar to a published post', async () => {
    // The backlog: a topic with its priority.
    await page.goto(`${a.origin}/w/${alice.websiteId}/r/editorial_backlog_items`);
    await page.getByText('Nothing waiting').waitFor();
    await a.expectAccessible(page, 'backlog, empty');
    await page.getByRole('button', { name: 'Add a topic' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Topic').fill('Rye starters for beginners');
    await dialog.getByRole('textbox', { name: 'Priority' }).fill('90');
    await dialog.getByRole('button', { name: 'Add topic' }).click();
    await page.getByRole('cell', { name: 'Rye starters for beginners', exact: true }).waitFor();
    // Two more topics through the API: the calendar books them after it (lower priority).
    for (const [topic, priority] of [['Oven temperatures', 50], ['Storing bread', 40]] as const) await api('POST', '/editorial_backlog_items', { topic, priority });
    await page.reload();
    await page.getByRole('cell', { name: 'Storing bread', exact: true }).waitFor();
    await page.getByRole('textbox', { name: 'Priority of Rye starters for beginners' }).waitFor();
    await a.expectAccessible(page, 'backlog');

    // The plan: the drafting agent, a slot within the next minute and a half (UTC), a person's approval enough.
    // At least 45 s ahead (the refill below books only future slots); the flow takes about as long.
    const slot = new Date(Math.ceil((Date.now() + 45_000) / 60_000) * 60_000);
    const hhmm = slot.toISOString().slice(11, 16);
    await page.getByRole('navigation', { name: 'Editorial' }).getByRole('link', { name: 'Plan' }).click();
    await page.getByRole('heading', { name: 'Editorial plan' }).waitFor();
    await page.getByRole('button', { name: 'Add a slot' }).click();
    await page.getByRole('combobox', { name: 'Slot 1: day' }).click();
    await page.getByRole('option', { name: dayLabel(WEEKDAYS[slot.getUTCDay()]), exact: true }).click();
    await page.getByLabel('Slot 1: time').fill(hhmm);
    await page.getByRole('textbox', { name: 'Time zone' }).fill('UTC');
    await page.getByRole('combobox', { name: 'Drafting agent' }).click();
    await page.getByRole('option', { name: 'Post drafter' }).click();
    // Publishing needs a verdict (the default), and a person's approval stands in for it.
    await page.getByRole('switch', { name: 'Publishing needs a passing review verdict' }).check({ force: true });
    await page.getByRole('switch', { name: 'A person’s approval may stand in for the verdict' }).check({ force: true });
    await a.expectAccessible(page, 'plan');
    await page.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText('Plan saved.').waitFor();
    const plan = await api('GET', '/editorial_plan');
    expect(plan).toMatchObject({ slots: [{ weekday: WEEKDAYS[slot.getUTCDay()], time: hhmm }], time_zone: 'UTC', require_passing_verdict: true, allow_person_approval: true });
    expect(plan.drafting_agent_id).toBeTruthy();

    // The calendar: filled, the entry PLANNED offers only Draft.
    await page.getByRole('navigation', { name: 'Editorial' }).getByRole('link', { name: 'Calendar' }).click();
    await page.getByText('The calendar is empty').waitFor();
    await page.getByRole('button', { name: 'Fill the calendar' }).click();
    const card = page.getByRole('article', { name: /Rye starters for beginners/ });
    await card.getByText('Planned').waitFor();
    await a.expectAccessible(page, 'calendar, planned');
    const verbs = async () => (await card.getByRole('button').allTextContents()).filter((t) => t !== 'Details');
    expect(await verbs()).toEqual(['Draft']);

    // Drafting: an AI run of the stand-in; the card follows it and shows its cost.
    standin.script('anthropic', {
      text: JSON.stringify({ title: 'Rye starters, step by step', excerpt: 'Flour, water, patience.', content: '<p>Feed it daily.</p>', meta_title: 'Rye starters', meta_description: 'How to start rye.' }),
      delayMs: 600,
    });
    await card.getByRole('button', { name: /^Draft:/ }).click();
    const drafted = page.getByRole('article', { name: /Rye starters, step by step, Drafted/ });
    await drafted.waitFor({ timeout: 30_000 });
    await a.expectAccessible(page, 'calendar, drafted');
    expect(await (async () => (await drafted.getByRole('button').allTextContents()).filter((t) => t !== 'Details'))()).toEqual(['Approve', 'Reject', 'Draft again']);

    // Details: the run with its cost; the post's fields written by the run, none by a person yet.
    await drafted.getByRole('button', { name: /^Details of/ }).click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('cell', { name: 'SUCCEEDED' }).waitFor();
    await drawer.getByRole('cell', { name: /^\$\d/ }).waitFor();
    await a.expectAccessible(page, 'calendar entry details');
    expect(await drawer.getByText('Yours', { exact: true }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });

    // A person's edit of the title is marked as theirs.
    const entry = (await api('GET', '/editorial_calendar_entries')).editorial_calendar_entries.find((e: any) => e.post_id);
    await api('PATCH', `/blog_posts/${entry.post_id}`, { title: 'Rye starters, by a person' });
    await page.reload();
    const edited = page.getByRole('article', { name: /Rye starters, by a person, Drafted/ });
    await edited.getByRole('button', { name: /^Details of/ }).click();
    await page.getByRole('dialog').getByText('Yours', { exact: true }).waitFor();
    await page.keyboard.press('Escape');

    await edited.getByRole('button', { name: /^Approve:/ }).click();
    const approved = page.getByRole('article', { name: /Rye starters, by a person, Approved/ });
    await approved.waitFor();
    // The slot passes, then Publish puts the post out at once.
    await eventually(async () => Date.now() > slot.getTime() + 1000, 'the slot to pass', 150_000);
    await approved.getByRole('button', { name: /^Publish:/ }).click();
    const published = page.getByRole('article', { name: /Rye starters, by a person, Published/ });
    await published.waitFor();
    expect(await published.getByRole('button').allTextContents()).toEqual(['Details']);
    await page.mouse.move(0, 0);
    await a.expectAccessible(page, 'calendar, published');
    await screenshotWidths(page, 'admin-editorial-calendar');
    expect((await api('GET', `/blog_posts/${entry.post_id}`)).state).toBe('PUBLISHED');
    const host = `${(await api('GET', '')).code}.localhost`;
    await eventually(async () => {
      const res = await a.t.request('GET', '/blog', { headers: { host } });
      return res.body.includes('Rye starters, by a person');
    }, 'the post on the site');

    // The month view shows the same entry.
    await page.getByText('Month', { exact: true }).click();
    await page.getByRole('article', { name: /Rye starters, by a person, Published/ }).waitFor();
    await a.expectAccessible(page, 'calendar, month');
    await screenshotWidths(page, 'admin-editorial-calendar-month');
    expect(consoleErrors).toEqual([]);
  });
});

