/**
 * The generated resource screens in Chromium against the real server (issue 25, "Every collection
 * and verb reachable now" and "The API's conventions, made humane"): on one resource of every area,
 * create through the generated form, filter and page the List (state in the URL), edit with a 409
 * conflict resolved, and delete with confirmation; a read-only member sees no write controls and the
 * API still refuses a forced write. axe on every screen visited. One browser for the file. The
 * generated screens of every collection live at `/w/{w}/g/…` and `/a/{a}/g/…` (purpose-built screens
 * take `r/…` where they exist).
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminBrowser, signInPage, type AdminBrowser } from '../support/admin-browser.js';
import type { TestUser } from '../support/app.js';
import { addMember } from '../support/access.js';
import { API, expectStatus } from '../support/fixtures.js';

let a: AdminBrowser;
let alice: TestUser;
let page: Page;

beforeAll(async () => {
  a = await startAdminBrowser();
  alice = await a.t.signUpProvisioned({ email: 'alice@example.com', website_name: 'Alice Bakes' });
  page = await a.newPage();
  await signInPage(a, page, alice);
}, 120_000);
afterAll(async () => a?.close());

/** One resource per area, and how to drive its generated screens. */
interface Journey {
  area: string;
  scope: 'w' | 'a';
  collection: string;
  /** Label → value for the Create form (required fields at least); `name` is what names the row. */
  create: Record<string, string>;
  name: string;
  /** The API body of another row (for paging), given a number. */
  apiBody: (n: number) => Record<string, unknown>;
  /** A declared filter: a text filter on the name, or (no text filter declared) rows created until then. */
  filter: { label: string; byName: true } | { label: string; createdUntil: true };
  /** The field edited in the browser, and one changed meanwhile through the API (the conflict). */
  edit: { label: string; value: string; field: string };
  theirs: { field: string; value: unknown };
}

const JOURNEYS: Journey[] = [
  {
    area: 'Content',
    scope: 'w',
    collection: 'cms_blocks',
    create: { Identifier: 'footer-note', Title: 'Footer note' },
    name: 'Footer note',
    apiBody: (n) => ({ identifier: `block-${n}`, title: `Block ${n}` }),
    filter: { label: 'Title', byName: true },
    edit: { label: 'Content', value: '<p>Open daily</p>', field: 'content' },
    theirs: { field: 'is_active', value: false },
  },
  {
    area: 'Blog',
    scope: 'w',
    collection: 'blog_tags',
    create: { 'Display name': 'Sourdough' },
    name: 'Sourdough',
    apiBody: (n) => ({ display_name: `Tag ${n}` }),
    filter: { label: 'Display name', byName: true },
    edit: { label: 'Description', value: 'Slow bread', field: 'description' },
    theirs: { field: 'url_key', value: 'sourdough-bread' },
  },
  {
    area: 'Editorial',
    scope: 'w',
    collection: 'editorial_backlog_items',
    create: { Topic: 'Why rye' },
    name: 'Why rye',
    apiBody: (n) => ({ topic: `Topic ${n}` }),
    filter: { label: 'Topic', byName: true },
    edit: { label: 'Brief', value: 'A short history', field: 'brief' },
    theirs: { field: 'priority', value: 3 },
  },
  {
    area: 'Customers',
    scope: 'w',
    collection: 'customer_groups',
    create: { 'Display name': 'Regulars' },
    name: 'Regulars',
    apiBody: (n) => ({ display_name: `Group ${n}` }),
    filter: { label: 'Display name', byName: true },
    edit: { label: 'Description', value: 'Weekly buyers', field: 'description' },
    theirs: { field: 'priority', value: 7 },
  },
  {
    area: 'Media',
    scope: 'w',
    collection: 'media_folders',
    create: { 'Display name': 'Photos' },
    name: 'Photos',
    apiBody: (n) => ({ display_name: `Folder ${n}` }),
    filter: { label: 'Display name', byName: true },
    // A folder has one editable field: both sides change it, the person keeps theirs.
    edit: { label: 'Display name', value: 'Shop photos', field: 'display_name' },
    theirs: { field: 'display_name', value: 'Pictures' },
  },
  {
    area: 'AI',
    scope: 'a',
    collection: 'ai_instructions',
    create: { 'Display name': 'House style', Content: 'Write warmly.' },
    name: 'House style',
    apiBody: (n) => ({ display_name: `Instruction ${n}`, content: 'Text.' }),
    filter: { label: 'Display name', byName: true },
    edit: { label: 'Description', value: 'The tone of the blog', field: 'description' },
    theirs: { field: 'display_name', value: 'House voice' },
  },
  {
    area: 'Settings',
    scope: 'w',
    collection: 'views',
    create: { 'Display name': 'Deutsch', Locale: 'de' },
    name: 'Deutsch',
    apiBody: (n) => ({ display_name: `View ${n}`, locale: 'fr', url_prefix: `fr${n}` }),
    filter: { label: 'Display name', byName: true },
    edit: { label: 'URL prefix', value: 'deu', field: 'url_prefix' },
    theirs: { field: 'is_active', value: false },
  },
  {
    area: 'Team',
    scope: 'a',
    collection: 'account_roles',
    create: { 'Display name': 'Proofreader' },
    name: 'Proofreader',
    apiBody: (n) => ({ display_name: `Role ${n}` }),
    // Roles declare no text filter: filter by creation time.
    filter: { label: 'Create time to', createdUntil: true },
    edit: { label: 'Description', value: 'Reads, fixes typos', field: 'description' },
    theirs: { field: 'display_name', value: 'Proof reader' },
  },
];

const base = (j: Journey) => (j.scope === 'w' ? `/w/${alice.websiteId}/g/${j.collection}` : `/a/${alice.accountId}/g/${j.collection}`);
const apiBase = (j: Journey) => (j.scope === 'w' ? `${API}/websites/${alice.websiteId}/${j.collection}` : `${API}/accounts/${alice.accountId}/${j.collection}`);
const path = (p: Page) => decodeURIComponent(new URL(p.url()).pathname);
/** `datetime-local` text in the browser's own zone for an RFC 3339 time, rounded up to the next second. */
const localInput = (p: Page, iso: string) =>
  p.evaluate((t) => {
    const d = new Date(Math.ceil(new Date(t).getTime() / 1000) * 1000);
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  }, iso);

describe.each(JOURNEYS)('the generated screens of $collection ($area)', (j) => {
  let createdId: string;
  let existing = 0;

  it('creates through the form generated from the request schema', { timeout: 90_000 }, async () => {
    existing = expectStatus(await a.t.request('GET', apiBase(j), { token: alice.token }), 200).total_size;
    await page.goto(`${a.origin}${base(j)}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.getByText(/ of \d+$/).waitFor();
    await a.expectAccessible(page, `${j.collection} list`);
    await page.getByRole('link', { name: /^New / }).click();
    await page.waitForURL((url) => decodeURIComponent(url.pathname).endsWith(':create'));
    await page.getByRole('button', { name: 'Create' }).waitFor();
    await a.expectAccessible(page, `${j.collection} create`);
    for (const [label, value] of Object.entries(j.create)) await page.getByRole('textbox', { name: label }).fill(value);
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL((url) => !decodeURIComponent(url.pathname).endsWith(':create'));
    createdId = path(page).split('/').pop()!;
    await page.getByRole('heading', { level: 1, name: j.name }).waitFor();
    await a.expectAccessible(page, `${j.collection} detail`);
  });

  it('filters and pages the List, its state in the URL', { timeout: 90_000 }, async () => {
    const created = expectStatus(await a.t.request('GET', `${apiBase(j)}/${createdId}`, { token: alice.token }), 200);
    // Rows made later fall after the created one's second (the time filter reads whole seconds).
    if ('createdUntil' in j.filter) await new Promise((r) => setTimeout(r, 1100));
    for (let n = 1; n <= 11; n++) expectStatus(await a.t.request('POST', apiBase(j), { token: alice.token, body: j.apiBody(n) }), 201);
    const total = existing + 12;
    await page.goto(`${a.origin}${base(j)}?page_size=10`);
    await page.getByText(new RegExp(`^1–10 of ${total}$`)).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByText(new RegExp(`^11–${Math.min(20, total)} of ${total}$`)).waitFor();
    expect(page.url()).toContain('page_token=');
    await a.expectAccessible(page, `${j.collection} list, page 2`);
    await page.getByRole('button', { name: 'Previous' }).click();
    await page.getByText(new RegExp(`^1–10 of ${total}$`)).waitFor();

    const value = 'byName' in j.filter ? j.name : await localInput(page, created.create_time);
    await page.getByRole('textbox', { name: j.filter.label, exact: true }).fill(value);
    await page.getByRole('button', { name: 'Apply' }).click();
    const expected = 'byName' in j.filter ? 1 : existing + 1;
    await page.getByText(new RegExp(`^1–${expected} of ${expected}$`)).waitFor();
    await page.getByRole('table').getByRole('link', { name: j.name }).waitFor();
    // The filtered view is a link: opened afresh it shows the same.
    await page.goto(page.url());
    await page.getByText(new RegExp(`^1–${expected} of ${expected}$`)).waitFor();
  });

  it('edits, and resolves a 409 conflict by keeping the person’s change on the newer version', { timeout: 90_000 }, async () => {
    await page.goto(`${a.origin}${base(j)}/${createdId}:edit`);
    const field = page.getByRole('textbox', { name: j.edit.label, exact: true });
    await field.waitFor();
    await a.expectAccessible(page, `${j.collection} edit`);
    // Someone else saves meanwhile.
    expectStatus(await a.t.request('PATCH', `${apiBase(j)}/${createdId}`, { token: alice.token, body: { [j.theirs.field]: j.theirs.value } }), 200);
    await field.fill(j.edit.value);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('heading', { name: /Someone else changed this/ }).waitFor();
    await a.expectAccessible(page, `${j.collection} conflict`);
    await page.getByRole('button', { name: 'Keep my changes' }).click();
    await page.waitForURL((url) => !decodeURIComponent(url.pathname).endsWith(':edit'));
    const now = expectStatus(await a.t.request('GET', `${apiBase(j)}/${createdId}`, { token: alice.token }), 200);
    expect(now[j.edit.field]).toBe(j.edit.value);
    if (j.theirs.field !== j.edit.field) expect(now[j.theirs.field]).toEqual(j.theirs.value);
  });

  it('deletes after confirmation', { timeout: 90_000 }, async () => {
    await page.goto(`${a.origin}${base(j)}/${createdId}`);
    await page.getByRole('table', { name: /fields$/ }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Delete' }).waitFor();
    await a.expectAccessible(page, `${j.collection} delete dialog`);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL((url) => url.pathname === base(j));
    expectStatus(await a.t.request('GET', `${apiBase(j)}/${createdId}`, { token: alice.token }), 404);
  });
});

describe('live validation', () => {
  it('checks a value with validate_only as it is typed and shows the verdict on its field', { timeout: 90_000 }, async () => {
    expectStatus(await a.t.request('POST', `${API}/websites/${alice.websiteId}/cms_blocks`, { token: alice.token, body: { identifier: 'taken-id', title: 'Taken' } }), 201);
    const before = expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/cms_blocks`, { token: alice.token }), 200).total_size;
    await page.goto(`${a.origin}/w/${alice.websiteId}/g/cms_blocks:create`);
    await page.getByRole('textbox', { name: 'Title' }).fill('Another');
    const identifier = page.getByRole('textbox', { name: 'Identifier' });
    await identifier.fill('taken-id');
    // No submit: the server's verdict on the taken identifier arrives on the field by itself.
    await expect.poll(() => identifier.getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    await a.expectAccessible(page, 'cms_blocks create, live violation');
    expect(expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/cms_blocks`, { token: alice.token }), 200).total_size).toBe(before);
    await identifier.fill('free-id');
    await expect.poll(() => identifier.getAttribute('aria-invalid'), { timeout: 15_000 }).not.toBe('true');
  });
});

describe('custom methods and singletons', () => {
  it('runs a custom method on a resource with If-Match (publishes a blog post)', { timeout: 90_000 }, async () => {
    const post = expectStatus(await a.t.request('POST', `${API}/websites/${alice.websiteId}/blog_posts`, { token: alice.token, body: { title: 'Rye day' } }), 201);
    await page.goto(`${a.origin}/w/${alice.websiteId}/g/blog_posts/${post.id}`);
    await page.getByRole('heading', { level: 1, name: 'Rye day' }).waitFor();
    await page.getByRole('link', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: 'Publish' }).waitFor();
    await a.expectAccessible(page, 'blog_posts :publish');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
    expect(expectStatus(await a.t.request('GET', `${API}/websites/${alice.websiteId}/blog_posts/${post.id}`, { token: alice.token }), 200).state).toBe('PUBLISHED');
  });

  it('shows the progress of a custom method answering an Operation (Settings: reindex search)', { timeout: 90_000 }, async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/g/search_index`);
    await page.getByRole('heading', { level: 1, name: 'Search index' }).waitFor();
    await a.expectAccessible(page, 'search_index');
    await page.getByRole('link', { name: 'Reindex', exact: true }).click();
    await page.getByRole('button', { name: 'Reindex' }).click();
    await page.getByRole('status').filter({ hasText: /done\.$/ }).waitFor();
    await a.expectAccessible(page, 'search_index :reindex progress');
  });

  it('shows a singleton as its form and runs its custom method (Analytics: dashboard)', { timeout: 90_000 }, async () => {
    await page.goto(`${a.origin}/w/${alice.websiteId}/g/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    await a.expectAccessible(page, 'dashboard');
    await page.getByRole('link', { name: 'Reset', exact: true }).click();
    await page.getByRole('button', { name: 'Reset' }).click();
    await page.getByRole('status').filter({ hasText: 'Done.' }).waitFor();
    await a.expectAccessible(page, 'dashboard :reset');
  });
});

describe('a member with a read-only role', () => {
  // The screens read the member's grants (`members:my_access`, lib/rights.ts) and hide every write
  // whose endpoint's section (its `Requires WRITE on section …`) the member cannot WRITE.
  it('sees no write controls, and the API still refuses a forced write', { timeout: 90_000 }, async () => {
    expectStatus(await a.t.request('POST', `${API}/websites/${alice.websiteId}/blog_tags`, { token: alice.token, body: { display_name: 'Seen by Bob' } }), 201);
    const bob = await a.t.signUp({ email: 'bob@example.com', website_name: 'Bob Builds' });
    // Reads everything in Alice's account, writes nothing.
    await addMember(a.t, bob, alice.accountId, { role: 'restricted', grants: [{ section: 'account', access: 'READ' }, { section: 'website', access: 'READ' }] });
    const bobPage = await a.newPage();
    await signInPage(a, bobPage, bob);
    await bobPage.goto(`${a.origin}/w/${alice.websiteId}/g/blog_tags`);
    await bobPage.getByRole('heading', { level: 1, name: 'Blog tags' }).waitFor();
    await bobPage.getByText(/of \d+$/).waitFor();
    await a.expectAccessible(bobPage, 'blog_tags list (read-only)');
    expect(await bobPage.getByRole('link', { name: /^New / }).count()).toBe(0);
    await bobPage.getByRole('table').getByRole('link').first().click();
    await bobPage.getByRole('heading', { level: 1 }).waitFor();
    expect(await bobPage.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await bobPage.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    // A write screen opened by its link is refused in place, and the API refuses the write itself.
    await bobPage.goto(`${a.origin}/w/${alice.websiteId}/g/blog_tags:create`);
    await bobPage.getByRole('alert').filter({ hasText: 'Your role does not allow this.' }).waitFor();
    expect(await bobPage.getByRole('button', { name: 'Create' }).count()).toBe(0);
    const res = await a.t.request('POST', `${API}/websites/${alice.websiteId}/blog_tags`, { token: bob.token, body: { display_name: 'Forced' } });
    expectStatus(res, 403);
  });
});
