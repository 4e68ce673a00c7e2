/**
 * Projects are readable with READ on `account` or on `website`: a member whose role holds website
 * sections only (no READ on `account`) still finds its websites through accounts → projects →
 * websites, as the admin's website switcher walks them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../support/access.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectStatus } from '../support/fixtures.js';

let t: TestApp;
let owner: TestUser;
let websiteReader: TestUser;
let blogOnly: TestUser;
let projectId: string;
let otherWebsiteId: string;

beforeAll(async () => {
  t = await startTestApp();
  owner = await t.signUp();
  websiteReader = await t.signUp();
  blogOnly = await t.signUp();
  const project = expectStatus(await t.request('GET', `${API}/accounts/${owner.accountId}/projects`, { token: owner.token }), 200).projects[0];
  projectId = project.id;
  otherWebsiteId = expectStatus(
    await t.request('POST', `${API}/projects/${projectId}/websites`, { token: owner.token, body: { display_name: 'Second site' } }),
    201,
  ).id;
  await addMember(t, websiteReader, owner.accountId, {
    role: 'restricted',
    grants: [
      { section: 'website', access: 'READ' },
      { section: 'website.customers', access: 'WRITE' },
    ],
    websiteIds: [owner.websiteId],
  });
  await addMember(t, blogOnly, owner.accountId, { role: 'restricted', grants: [{ section: 'website.blog', access: 'WRITE' }] });
});
afterAll(async () => t?.close());

describe('projects readable with READ on website', () => {
  it('lists and gets projects for a member holding READ on website without READ on account', async () => {
    const projects = expectStatus(await t.request('GET', `${API}/accounts/${owner.accountId}/projects`, { token: websiteReader.token }), 200);
    expect(projects.projects.map((p: { id: string }) => p.id)).toEqual([projectId]);
    expectStatus(await t.request('GET', `${API}/projects/${projectId}`, { token: websiteReader.token }), 200);
    // The membership's website limit still holds below the project.
    const websites = expectStatus(await t.request('GET', `${API}/projects/${projectId}/websites`, { token: websiteReader.token }), 200);
    expect(websites.websites.map((w: { id: string }) => w.id)).toEqual([owner.websiteId]);
    expectError(await t.request('GET', `${API}/websites/${otherWebsiteId}`, { token: websiteReader.token }), 404, 'NOT_FOUND');
  });

  it('refuses projects to a member holding neither READ on account nor on website', async () => {
    expectError(await t.request('GET', `${API}/accounts/${owner.accountId}/projects`, { token: blogOnly.token }), 403, 'PERMISSION_DENIED');
  });

  it('still refuses writes on projects without WRITE on account.projects', async () => {
    expectError(
      await t.request('POST', `${API}/accounts/${owner.accountId}/projects`, { token: websiteReader.token, body: { display_name: 'Mine' } }),
      403,
      'PERMISSION_DENIED',
    );
  });
});

describe('deleting what is not empty', () => {
  const reasonOf = (error: { details: Array<{ type?: string; reason?: string }> }) => error.details.find((d) => d.type === 'PRECONDITION_FAILURE')?.reason;

  it('refuses to delete a project that still has websites without force (FAILED_PRECONDITION PROJECT_NOT_EMPTY)', async () => {
    const refused = expectError(await t.request('DELETE', `${API}/projects/${projectId}`, { token: owner.token }), 400, 'FAILED_PRECONDITION');
    expect(reasonOf(refused)).toBe('PROJECT_NOT_EMPTY');
    expectStatus(await t.request('GET', `${API}/projects/${projectId}`, { token: owner.token }), 200);
  });

  it('refuses to delete an account that still has projects without force (FAILED_PRECONDITION ACCOUNT_NOT_EMPTY)', async () => {
    const refused = expectError(await t.request('DELETE', `${API}/accounts/${owner.accountId}`, { token: owner.token }), 400, 'FAILED_PRECONDITION');
    expect(reasonOf(refused)).toBe('ACCOUNT_NOT_EMPTY');
    expectStatus(await t.request('GET', `${API}/accounts/${owner.accountId}`, { token: owner.token }), 200);
  });
});
