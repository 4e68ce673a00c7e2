/**
 * Tenancy (SPEC 4.1 rule 5, 5.5): another user's account, project and website ids answer 404
 * NOT_FOUND (never 403) on Get, Update, Delete, and List/Create under them, and the other
 * tenant's rows stay exactly as they were.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, createProject, expectError, expectStatus, list, snapshot, withQuery } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
/** Alice's resources, as she read them before Bob's attempts. */
let mine: { account: any; project: any; website: any };

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  await t.waitForOperation(alice.operation, alice.token);
  const website = expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}`, { token: alice.token }), 200);
  const project = expectStatus(await t.request('GET', `${API}/${website.parent}`, { token: alice.token }), 200);
  const account = expectStatus(await t.request('GET', `${API}/accounts/${alice.accountId}`, { token: alice.token }), 200);
  mine = { account, project, website };
});
afterAll(() => t?.close());

const as = (user: TestUser) => ({
  get: (url: string) => t.request('GET', url, { token: user.token }),
  patch: (url: string, body: unknown, headers: Record<string, string> = {}) => t.request('PATCH', url, { token: user.token, body, headers }),
  delete: (url: string, headers: Record<string, string> = {}) => t.request('DELETE', url, { token: user.token, headers }),
  post: (url: string, body: unknown) => t.request('POST', url, { token: user.token, body }),
});

/** Alice's three resources read back by Alice: they must equal what she saw before. */
async function expectAliceUnchanged(): Promise<void> {
  for (const resource of [mine.account, mine.project, mine.website]) {
    const current = expectStatus(await as(alice).get(`${API}/${resource.name}`), 200);
    expect(current).toEqual(resource);
  }
  expect((await snapshot(t, alice.token, `${API}/accounts/${alice.accountId}/projects`, 'projects')).map(([id]) => id)).toEqual([mine.project.id]);
  expect((await snapshot(t, alice.token, `${API}/projects/${mine.project.id}/websites`, 'websites')).map(([id]) => id)).toEqual([mine.website.id]);
}

describe("another tenant's ids answer 404 NOT_FOUND, never 403", () => {
  it("Get of another user's account, project and website is 404", async () => {
    for (const resource of [mine.account, mine.project, mine.website]) {
      expectError(await as(bob).get(`${API}/${resource.name}`), 404, 'NOT_FOUND');
    }
  });

  it("Update of another user's account, project and website is 404 and changes nothing", async () => {
    for (const resource of [mine.account, mine.project, mine.website]) {
      expectError(await as(bob).patch(`${API}/${resource.name}`, { display_name: 'Hijacked' }), 404, 'NOT_FOUND');
      expectError(await as(bob).patch(`${API}/${resource.name}`, { display_name: 'Hijacked' }, { 'if-match': `"${resource.etag}"` }), 404, 'NOT_FOUND');
      expectError(await as(bob).patch(withQuery(`${API}/${resource.name}`, { validate_only: true }), { display_name: 'Hijacked' }), 404, 'NOT_FOUND');
    }
    await expectAliceUnchanged();
  });

  it("Delete of another user's account, project and website is 404 and deletes nothing", async () => {
    for (const resource of [mine.website, mine.project, mine.account]) {
      expectError(await as(bob).delete(`${API}/${resource.name}`), 404, 'NOT_FOUND');
      expectError(await as(bob).delete(`${API}/${resource.name}?force=true`), 404, 'NOT_FOUND');
      expectError(await as(bob).delete(`${API}/${resource.name}`, { 'if-match': `"${resource.etag}"` }), 404, 'NOT_FOUND');
    }
    await expectAliceUnchanged();
  });

  it("List under another user's account or project is 404", async () => {
    expectError(await as(bob).get(`${API}/accounts/${alice.accountId}/projects`), 404, 'NOT_FOUND');
    expectError(await as(bob).get(`${API}/projects/${mine.project.id}/websites`), 404, 'NOT_FOUND');
    expectError(await as(bob).get(withQuery(`${API}/projects/${mine.project.id}/websites`, { filter: 'display_name:"a"', page_size: 1 })), 404, 'NOT_FOUND');
  });

  it("Create under another user's account or project is 404 and creates nothing", async () => {
    expectError(await as(bob).post(`${API}/accounts/${alice.accountId}/projects`, { display_name: 'Planted' }), 404, 'NOT_FOUND');
    expectError(await as(bob).post(`${API}/projects/${mine.project.id}/websites`, { display_name: 'Planted' }), 404, 'NOT_FOUND');
    await expectAliceUnchanged();
  });

  it("another user's accounts do not appear in the accounts List, whatever the filter", async () => {
    const page = await list(t, bob.token, `${API}/accounts`, { page_size: 100 });
    expect(page.accounts.map((a: any) => a.id)).toEqual([bob.accountId]);
    expect(page.total_size).toBe(1);
    const filtered = await list(t, bob.token, `${API}/accounts`, { filter: `display_name = "${mine.account.display_name}" OR is_active = true` });
    expect(filtered.accounts.map((a: any) => a.id)).toEqual([bob.accountId]);
  });

  it("a foreign id answers the same 404 as an id that does not exist", async () => {
    const foreign = expectError(await as(bob).get(`${API}/projects/${mine.project.id}`), 404, 'NOT_FOUND');
    const missing = expectError(await as(bob).get(`${API}/projects/${'z'.repeat(mine.project.id.length)}`), 404, 'NOT_FOUND');
    const shape = (error: any) => ({ ...error, message: error.message.replaceAll(mine.project.id, 'ID').replaceAll('z'.repeat(mine.project.id.length), 'ID'), details: error.details.map((d: any) => d.type) });
    expect(shape(foreign)).toEqual(shape(missing));
  });

  it("a client-chosen id can be taken by one tenant only, and the other tenant's row is left alone", async () => {
    const taken = await createProject(t, alice.token, alice.accountId, { display_name: 'Alice chose' }, '?id=shared-name');
    expectError(await as(bob).post(`${API}/accounts/${bob.accountId}/projects?id=shared-name`, { display_name: 'Bob chose' }), 409, 'ALREADY_EXISTS');
    expect(expectStatus(await as(alice).get(`${API}/projects/shared-name`), 200)).toEqual(taken);
    expectError(await as(bob).get(`${API}/projects/shared-name`), 404, 'NOT_FOUND');
    expectStatus(await as(alice).delete(`${API}/projects/shared-name`), 204);
  });

  it("Bob's own resources still work alongside (the 404s are not blanket refusals)", async () => {
    expectStatus(await as(bob).get(`${API}/accounts/${bob.accountId}`), 200);
    expectStatus(await as(bob).get(`${API}/websites/${bob.websiteId}`), 200);
    const projects = await list(t, bob.token, `${API}/accounts/${bob.accountId}/projects`);
    expect(projects.total_size).toBe(1);
  });
});
