/**
 * The `filter` list parameter (SPEC 4.2, 7) on accounts, projects and websites: every filterable
 * field, the comparators, contains, boolean operators, timestamps, and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, createAccount, createProject, createWebsite, expectError, expectInvalid, list, nextMillisecond, violations, withQuery } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let projectsUrl: string;
/** The projects of the filter account, in creation order, each in its own millisecond. */
let projects: any[];

const PROJECT_NAMES = ['alpha', 'bravo', 'charlie', 'delta', 'Summer SALE', 'winter sale', '50% off', 'under_score'];

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  const account = await createAccount(t, alice.token, 'Filters');
  projectsUrl = `${API}/accounts/${account.id}/projects`;
  projects = [];
  for (const name of PROJECT_NAMES) {
    await nextMillisecond();
    projects.push(await createProject(t, alice.token, account.id, { display_name: name }));
  }
});
afterAll(() => t?.close());

/** display_names a filter selects from `url`, sorted (whole collection, one page). */
async function names(url: string, filter: string, collection = 'projects'): Promise<string[]> {
  const page = await list(t, alice.token, url, { filter, page_size: 100 });
  expect(page.total_size).toBe(page[collection].length);
  return page[collection].map((r: any) => r.display_name).sort();
}

const sorted = (values: string[]) => [...values].sort();

describe('filter on projects', () => {
  it('= matches the exact display_name', async () => {
    expect(await names(projectsUrl, 'display_name = "alpha"')).toEqual(['alpha']);
    expect(await names(projectsUrl, 'display_name = alpha')).toEqual(['alpha']);
    expect(await names(projectsUrl, 'display_name = "Summer SALE"')).toEqual(['Summer SALE']);
    expect(await names(projectsUrl, 'display_name = "nope"')).toEqual([]);
  });

  it('!= matches every other row', async () => {
    expect(await names(projectsUrl, 'display_name != "alpha"')).toEqual(sorted(PROJECT_NAMES.filter((n) => n !== 'alpha')));
  });

  it('< and > compare display_name as text', async () => {
    expect(await names(projectsUrl, 'display_name < "c" AND display_name >= "a"')).toEqual(['alpha', 'bravo']);
    expect(await names(projectsUrl, 'display_name > "charlie" AND display_name <= "delta"')).toEqual(['delta']);
  });

  it('display_name:"text" is a case-insensitive contains', async () => {
    expect(await names(projectsUrl, 'display_name:"sale"')).toEqual(sorted(['Summer SALE', 'winter sale']));
    expect(await names(projectsUrl, 'display_name:"SALE"')).toEqual(sorted(['Summer SALE', 'winter sale']));
    expect(await names(projectsUrl, 'display_name:"RAV"')).toEqual(['bravo']);
  });

  it('contains treats LIKE wildcards literally', async () => {
    expect(await names(projectsUrl, 'display_name:"%"')).toEqual(['50% off']);
    expect(await names(projectsUrl, 'display_name:"_"')).toEqual(['under_score']);
  });

  it('AND, OR and NOT combine restrictions', async () => {
    expect(await names(projectsUrl, 'display_name:"sale" AND NOT display_name = "winter sale"')).toEqual(['Summer SALE']);
    expect(await names(projectsUrl, 'display_name = "alpha" OR display_name = "delta"')).toEqual(['alpha', 'delta']);
    expect(await names(projectsUrl, 'NOT display_name:"a"')).toEqual(sorted(PROJECT_NAMES.filter((n) => !n.toLowerCase().includes('a'))));
    expect(await names(projectsUrl, '(display_name = "alpha" OR display_name = "bravo") AND display_name:"v"')).toEqual(['bravo']);
    expect(await names(projectsUrl, '-display_name:"a"')).toEqual(await names(projectsUrl, 'NOT display_name:"a"'));
  });

  it('create_time compares with RFC 3339 timestamps', async () => {
    const third = projects[2];
    const after = sorted(projects.slice(3).map((p) => p.display_name));
    const before = sorted(projects.slice(0, 2).map((p) => p.display_name));
    expect(await names(projectsUrl, `create_time > "${third.create_time}"`)).toEqual(after);
    expect(await names(projectsUrl, `create_time >= "${third.create_time}"`)).toEqual(sorted([third.display_name, ...after]));
    expect(await names(projectsUrl, `create_time < "${third.create_time}"`)).toEqual(before);
    expect(await names(projectsUrl, `create_time = "${third.create_time}"`)).toEqual([third.display_name]);
    // Unquoted, and with an offset instead of Z: the same instant.
    expect(await names(projectsUrl, `create_time > ${third.create_time}`)).toEqual(after);
    const shifted = new Date(Date.parse(third.create_time) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    expect(await names(projectsUrl, `create_time > "${shifted}"`)).toEqual(after);
    expect(await names(projectsUrl, 'create_time < "2000-01-01T00:00:00Z"')).toEqual([]);
  });

  it('a timestamp that is not RFC 3339 is INVALID_ARGUMENT naming create_time', async () => {
    for (const value of ['"yesterday"', '"2024-02-30T00:00:00Z"', '"2024-01-01"', '12345']) {
      expectInvalid(await t.request('GET', withQuery(projectsUrl, { filter: `create_time > ${value}` }), { token: alice.token }), 'create_time');
    }
  });

  it('a field outside the filterable list is INVALID_ARGUMENT naming it, never ignored', async () => {
    for (const field of ['description', 'colour', 'update_time', 'parent', 'account_id', 'revision']) {
      const res = await t.request('GET', withQuery(projectsUrl, { filter: `${field} = "x"` }), { token: alice.token });
      const error = expectInvalid(res, field);
      expect(violations(error)[0].description).toMatch(/not a filterable field/);
    }
    // Also when it hides behind a valid restriction.
    expectInvalid(await t.request('GET', withQuery(projectsUrl, { filter: 'display_name = "alpha" OR secret = 1' }), { token: alice.token }), 'secret');
  });

  it('a syntax error is INVALID_ARGUMENT on filter', async () => {
    for (const filter of ['display_name =', 'display_name = "unterminated', '(display_name = "alpha"', 'display_name = "a" AND', '= "a"', 'display_name ~ "a"', 'display_name and', 'display_name = a*']) {
      expectInvalid(await t.request('GET', withQuery(projectsUrl, { filter }), { token: alice.token }), 'filter');
    }
  });

  it('an empty or blank filter lists everything', async () => {
    expect(await names(projectsUrl, '')).toEqual(sorted(PROJECT_NAMES));
    expect(await names(projectsUrl, '   ')).toEqual(sorted(PROJECT_NAMES));
  });

  it('filter combines with order_by and pagination', async () => {
    // Lowercase names only, so the order is the same under any collation.
    const filter = 'display_name:"a" AND NOT display_name:"sale"';
    const first = await list(t, alice.token, projectsUrl, { filter, order_by: 'display_name desc', page_size: 2 });
    expect(first.total_size).toBe(4);
    expect(first.projects.map((p: any) => p.display_name)).toEqual(['delta', 'charlie']);
    const rest = await list(t, alice.token, projectsUrl, { filter, order_by: 'display_name desc', page_size: 100, page_token: first.next_page_token });
    expect(rest.total_size).toBe(4);
    expect(rest.projects.map((p: any) => p.display_name)).toEqual(['bravo', 'alpha']);
    expect(rest.next_page_token ?? '').toBe('');
  });
});

describe('filter on accounts', () => {
  let accountsUrl: string;
  beforeAll(async () => {
    accountsUrl = `${API}/accounts`;
    await createAccount(t, alice.token, 'Acme Corp');
    await createAccount(t, alice.token, 'acme labs');
    await createAccount(t, alice.token, 'Zeta');
  });

  it('filters display_name with = and contains', async () => {
    expect(await names(accountsUrl, 'display_name:"ACME"', 'accounts')).toEqual(['Acme Corp', 'acme labs']);
    expect(await names(accountsUrl, 'display_name = "Zeta"', 'accounts')).toEqual(['Zeta']);
  });

  it('is_active = true matches active accounts, is_active = false none', async () => {
    const all = await list(t, alice.token, accountsUrl, { page_size: 100 });
    expect(all.accounts.every((a: any) => a.is_active === true)).toBe(true);
    expect(await names(accountsUrl, 'is_active = true', 'accounts')).toEqual(sorted(all.accounts.map((a: any) => a.display_name)));
    expect(await names(accountsUrl, 'is_active = false', 'accounts')).toEqual([]);
    expect(await names(accountsUrl, 'is_active != true', 'accounts')).toEqual([]);
    expect(await names(accountsUrl, 'is_active = true AND display_name = "Zeta"', 'accounts')).toEqual(['Zeta']);
  });

  it('a non-boolean value for is_active is INVALID_ARGUMENT naming is_active', async () => {
    for (const value of ['yes', '1', '"maybe"']) {
      expectInvalid(await t.request('GET', withQuery(accountsUrl, { filter: `is_active = ${value}` }), { token: alice.token }), 'is_active');
    }
    expectInvalid(await t.request('GET', withQuery(accountsUrl, { filter: 'is_active > true' }), { token: alice.token }), 'is_active');
  });

  it('filters create_time', async () => {
    const zeta = (await list(t, alice.token, accountsUrl, { filter: 'display_name = "Zeta"' })).accounts[0];
    const all = (await list(t, alice.token, accountsUrl, { page_size: 100 })).accounts;
    const expected = all.filter((a: any) => Date.parse(a.create_time) < Date.parse(zeta.create_time)).map((a: any) => a.display_name);
    expect(await names(accountsUrl, `create_time < "${zeta.create_time}"`, 'accounts')).toEqual(sorted(expected));
    expect(expected).toContain('Filters');
  });

  it('an account field outside the filterable list is INVALID_ARGUMENT naming it', async () => {
    expectInvalid(await t.request('GET', withQuery(accountsUrl, { filter: 'update_time > "2020-01-01T00:00:00Z"' }), { token: alice.token }), 'update_time');
  });
});

describe('filter on websites', () => {
  let websitesUrl: string;
  let codes: Record<string, string>;
  beforeAll(async () => {
    const project = await createProject(t, alice.token, alice.accountId, { display_name: 'Websites' });
    websitesUrl = `${API}/projects/${project.id}/websites`;
    const suffix = project.id.slice(-8);
    codes = { Deutsch: `de-${suffix}`, English: `en-${suffix}`, Francais: `fr-${suffix}` };
    const languages: Record<string, string> = { Deutsch: 'de', English: 'en', Francais: 'fr' };
    for (const name of Object.keys(codes)) {
      const site = await createWebsite(t, alice.token, project.id, { display_name: name, code: codes[name], default_language: languages[name] });
      await t.waitForOperation(site.operation, alice.token);
    }
  });

  it('filters code, default_language and display_name', async () => {
    expect(await names(websitesUrl, `code = "${codes.English}"`, 'websites')).toEqual(['English']);
    expect(await names(websitesUrl, 'default_language = de', 'websites')).toEqual(['Deutsch']);
    expect(await names(websitesUrl, 'default_language != de', 'websites')).toEqual(['English', 'Francais']);
    expect(await names(websitesUrl, 'display_name:"an"', 'websites')).toEqual(['Francais']);
    expect(await names(websitesUrl, `code:"${codes.Deutsch.slice(0, 5)}" OR default_language = fr`, 'websites')).toEqual(['Deutsch', 'Francais']);
  });

  it('filters provisioning_status by enum member', async () => {
    expect(await names(websitesUrl, 'provisioning_status = ACTIVE', 'websites')).toEqual(['Deutsch', 'English', 'Francais']);
    expect(await names(websitesUrl, 'provisioning_status = PENDING', 'websites')).toEqual([]);
  });

  it('a value outside the enum is INVALID_ARGUMENT naming provisioning_status', async () => {
    const error = expectInvalid(await t.request('GET', withQuery(websitesUrl, { filter: 'provisioning_status = BOGUS' }), { token: alice.token }), 'provisioning_status');
    expect(error.message).toContain('ACTIVE');
  });

  it('filters create_time on websites', async () => {
    const all = (await list(t, alice.token, websitesUrl, { order_by: 'create_time' })).websites;
    expect(await names(websitesUrl, `create_time >= "${all[1].create_time}"`, 'websites')).toEqual(
      sorted(all.filter((w: any) => Date.parse(w.create_time) >= Date.parse(all[1].create_time)).map((w: any) => w.display_name)),
    );
  });

  it('a website field outside the filterable list is INVALID_ARGUMENT naming it', async () => {
    for (const field of ['time_zone', 'website_url', 'operation']) {
      expectInvalid(await t.request('GET', withQuery(websitesUrl, { filter: `${field} = "x"` }), { token: alice.token }), field);
    }
  });

  it('a filter error is the canonical error body with a REQUEST_INFO detail', async () => {
    const res = await t.request('GET', withQuery(websitesUrl, { filter: 'time_zone = UTC' }), { token: alice.token });
    const error = expectError(res, 400, 'INVALID_ARGUMENT');
    expect(error.message).toContain('time_zone');
  });
});
