/**
 * Get, Create, Update and Delete conventions of the resource engine (SPEC 2.1, 4.1): etags and
 * conditional requests, merge semantics and update_mask, output-only and immutable fields,
 * validate_only, client ids, request_id idempotency, and delete guards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import {
  API,
  createAccount,
  createProject,
  createWebsite,
  expectCommonFields,
  expectError,
  expectInvalid,
  expectNoBody,
  expectShape,
  expectStatus,
  idsOf,
  list,
  snapshot,
  withQuery,
} from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
/** A fresh account per describe keeps List assertions independent. */
let accountId: string;
let projectsUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  accountId = (await createAccount(t, alice.token, 'Writes')).id;
  projectsUrl = `${API}/accounts/${accountId}/projects`;
});
afterAll(() => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.request('GET', url, { token: alice.token, headers });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}) => t.request('PATCH', url, { token: alice.token, body, headers });
const projectUrl = (id: string) => `${API}/projects/${id}`;
const quoted = (etag: string) => `"${etag}"`;

describe('Get and etags', () => {
  it('Get answers the resource with an ETag header equal to its quoted etag', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Etag', description: 'd' });
    const res = await get(projectUrl(project.id));
    const body = expectStatus(res, 200);
    await expectShape(t, 'GetProject', 200, body);
    expect(body).toEqual(project);
    expect(res.headers.etag).toBe(quoted(body.etag));
    expectCommonFields(body, 'projects');
    expect(body.parent).toBe(`accounts/${accountId}`);
  });

  it('Get with If-None-Match of the current etag answers 304 without a body', async () => {
    const project = await createProject(t, alice.token, accountId);
    const res = await get(projectUrl(project.id), { 'if-none-match': quoted(project.etag) });
    expectNoBody(res, 304);
    expect(res.headers.etag).toBe(quoted(project.etag));
    // Unquoted and in a list, too.
    expectNoBody(await get(projectUrl(project.id), { 'if-none-match': project.etag }), 304);
    expectNoBody(await get(projectUrl(project.id), { 'if-none-match': `"nope", ${quoted(project.etag)}` }), 304);
  });

  it('Get with If-None-Match of a stale etag answers 200 with the resource', async () => {
    const project = await createProject(t, alice.token, accountId);
    await patch(projectUrl(project.id), { description: 'changed' });
    const res = await get(projectUrl(project.id), { 'if-none-match': quoted(project.etag) });
    expect(expectStatus(res, 200).description).toBe('changed');
  });

  it('If-None-Match works on accounts and websites too', async () => {
    const account = expectStatus(await get(`${API}/accounts/${accountId}`), 200);
    expectNoBody(await get(`${API}/accounts/${accountId}`, { 'if-none-match': quoted(account.etag) }), 304);
    const website = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    expectNoBody(await get(`${API}/websites/${alice.websiteId}`, { 'if-none-match': quoted(website.etag) }), 304);
  });

  it('Create and Update answer an ETag header matching the body', async () => {
    const res = await t.request('POST', projectsUrl, { token: alice.token, body: { display_name: 'Headers' } });
    const created = expectStatus(res, 201);
    expect(res.headers.etag).toBe(quoted(created.etag));
    const updated = await patch(projectUrl(created.id), { display_name: 'Headers 2' });
    expect(updated.headers.etag).toBe(quoted(expectStatus(updated, 200).etag));
  });

  it('the etag changes on every update', async () => {
    const project = await createProject(t, alice.token, accountId);
    const seen = new Set([project.etag]);
    for (const description of ['one', 'two', 'three']) {
      const updated = expectStatus(await patch(projectUrl(project.id), { description }), 200);
      expect(seen.has(updated.etag)).toBe(false);
      seen.add(updated.etag);
      expect(expectStatus(await get(projectUrl(project.id)), 200).etag).toBe(updated.etag);
    }
  });
});

describe('etags across delete and re-create', () => {
  it('a resource deleted and re-created under the same id gets a new etag', async () => {
    const first = await createProject(t, alice.token, accountId, { display_name: 'First life' }, '?id=reborn');
    expectStatus(await t.request('DELETE', projectUrl('reborn'), { token: alice.token }), 204);
    const second = await createProject(t, alice.token, accountId, { display_name: 'Second life' }, '?id=reborn');
    expect(second.etag).not.toBe(first.etag);
    // A cached copy of the first life must not be confirmed as current ...
    expect(expectStatus(await get(projectUrl('reborn'), { 'if-none-match': quoted(first.etag) }), 200).display_name).toBe('Second life');
    // ... nor may a write conditioned on it land on the second.
    expectError(await patch(projectUrl('reborn'), { description: 'x' }, { 'if-match': quoted(first.etag) }), 409, 'ABORTED');
    expectError(await t.request('DELETE', projectUrl('reborn'), { token: alice.token, headers: { 'if-match': quoted(first.etag) } }), 409, 'ABORTED');
  });
});

describe('Update', () => {
  it('PATCH merges: only the fields present are written', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Merge', description: 'keep me' });
    const updated = expectStatus(await patch(projectUrl(project.id), { display_name: 'Merged' }), 200);
    expect(updated).toMatchObject({ display_name: 'Merged', description: 'keep me', id: project.id, create_time: project.create_time });
    const again = expectStatus(await patch(projectUrl(project.id), { description: 'new' }), 200);
    expect(again).toMatchObject({ display_name: 'Merged', description: 'new' });
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(again);
  });

  it('Update answers the updated resource with a new update_time', async () => {
    const project = await createProject(t, alice.token, accountId);
    const updated = expectStatus(await patch(projectUrl(project.id), { description: 'x' }), 200);
    await expectShape(t, 'UpdateProject', 200, updated);
    expectCommonFields(updated, 'projects');
    expect(Date.parse(updated.update_time)).toBeGreaterThanOrEqual(Date.parse(project.update_time));
    expect(updated.create_time).toBe(project.create_time);
  });

  it('update_mask listing a field absent from the body clears it', async () => {
    const project = await createProject(t, alice.token, accountId, { description: 'to clear' });
    const updated = expectStatus(await patch(withQuery(projectUrl(project.id), { update_mask: 'description' }), {}), 200);
    expect(updated).not.toHaveProperty('description');
    expect(expectStatus(await get(projectUrl(project.id)), 200)).not.toHaveProperty('description');
  });

  it('update_mask listing a field sent as null clears it', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Mask null', description: 'to clear' });
    const updated = expectStatus(await patch(withQuery(projectUrl(project.id), { update_mask: 'description' }), { description: null }), 200);
    expect(updated).not.toHaveProperty('description');
    expect(updated.display_name).toBe('Mask null');
  });

  it('update_mask writes only the listed fields; other fields in the body are left alone', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Only listed', description: 'before' });
    const updated = expectStatus(await patch(withQuery(projectUrl(project.id), { update_mask: 'description' }), { display_name: 'ignored', description: 'after' }), 200);
    expect(updated).toMatchObject({ display_name: 'Only listed', description: 'after' });
  });

  it('without update_mask a null is dropped and the field keeps its value', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Null dropped', description: 'stays' });
    const updated = expectStatus(await patch(projectUrl(project.id), { description: null, display_name: null }), 200);
    expect(updated).toMatchObject({ display_name: 'Null dropped', description: 'stays' });
  });

  it('an unknown field in update_mask is INVALID_ARGUMENT naming update_mask', async () => {
    const project = await createProject(t, alice.token, accountId, { description: 'same' });
    const error = expectInvalid(await patch(withQuery(projectUrl(project.id), { update_mask: 'description,colour' }), { description: 'x' }), 'update_mask');
    expect(error.message).toContain('colour');
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(project);
  });

  it('an empty update_mask is INVALID_ARGUMENT naming update_mask', async () => {
    const project = await createProject(t, alice.token, accountId);
    expectInvalid(await patch(`${projectUrl(project.id)}?update_mask=`, { description: 'x' }), 'update_mask');
  });

  it('output-only fields sent on update are ignored', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Output only' });
    const body = {
      name: 'projects/elsewhere',
      id: 'elsewhere',
      create_time: '2001-01-01T00:00:00Z',
      update_time: '2001-01-01T00:00:00Z',
      // Not output-only any more: a body etag is a precondition (AIP-154); the current one lets the write through.
      etag: project.etag,
      parent: 'accounts/elsewhere',
      description: 'written',
    };
    const updated = expectStatus(await patch(projectUrl(project.id), body), 200);
    expect(updated).toMatchObject({ name: project.name, id: project.id, create_time: project.create_time, parent: project.parent, description: 'written' });
    expect(updated.etag).not.toBe(project.etag);
    expect(updated.update_time).not.toBe('2001-01-01T00:00:00.000Z');
  });

  it('output-only fields listed in update_mask are ignored', async () => {
    const project = await createProject(t, alice.token, accountId);
    const updated = expectStatus(await patch(withQuery(projectUrl(project.id), { update_mask: 'parent,create_time,description' }), { parent: 'accounts/x', description: 'd' }), 200);
    expect(updated).toMatchObject({ parent: project.parent, create_time: project.create_time, description: 'd' });
  });

  it('output-only website fields (provisioning_status, parent, website_url, operation) are ignored on update', async () => {
    const website = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    const body = { provisioning_status: 'FAILED', parent: 'projects/x', website_url: 'https://evil.example', operation: 'x', time_zone: 'Europe/Berlin' };
    const updated = expectStatus(await patch(`${API}/websites/${alice.websiteId}`, body), 200);
    await expectShape(t, 'UpdateWebsite', 200, updated);
    expect(updated).toMatchObject({ provisioning_status: website.provisioning_status, parent: website.parent, website_url: website.website_url, time_zone: 'Europe/Berlin' });
  });

  it('output-only is_active sent on an account update is ignored, whatever its value', async () => {
    const account = await createAccount(t, alice.token, 'Active');
    const updated = expectStatus(await patch(`${API}/accounts/${account.id}`, { is_active: false, display_name: 'Still active' }), 200);
    await expectShape(t, 'UpdateAccount', 200, updated);
    expect(updated).toMatchObject({ is_active: true, display_name: 'Still active' });
    expect(expectStatus(await patch(`${API}/accounts/${account.id}`, { is_active: 'yes' }), 200).is_active).toBe(true);
  });

  it('immutable website code sent with a changed value is INVALID_ARGUMENT naming code', async () => {
    const before = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    expectInvalid(await patch(`${API}/websites/${alice.websiteId}`, { code: `${before.code}-x`, display_name: 'Renamed' }), 'code');
    expectInvalid(await patch(withQuery(`${API}/websites/${alice.websiteId}`, { update_mask: 'code' }), { code: null }), 'code');
    const after = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    expect(after).toEqual(before);
  });

  it('immutable website code sent unchanged is accepted', async () => {
    const before = expectStatus(await get(`${API}/websites/${alice.websiteId}`), 200);
    const updated = expectStatus(await patch(`${API}/websites/${alice.websiteId}`, { ...before, display_name: 'Sent back' }), 200);
    expect(updated).toMatchObject({ code: before.code, display_name: 'Sent back' });
  });

  it('clearing a required field with update_mask is INVALID_ARGUMENT naming it', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Required' });
    expectInvalid(await patch(withQuery(projectUrl(project.id), { update_mask: 'display_name' }), { display_name: null }), 'display_name');
    expectInvalid(await patch(withQuery(projectUrl(project.id), { update_mask: 'display_name' }), {}), 'display_name');
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(project);
  });

  it('update_mask=* writes every writable field: absent optional fields are cleared', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Star', description: 'gone' });
    const updated = expectStatus(await patch(withQuery(projectUrl(project.id), { update_mask: '*' }), { display_name: 'Star 2' }), 200);
    expect(updated.display_name).toBe('Star 2');
    expect(updated).not.toHaveProperty('description');
  });

  it('a stale If-Match is 409 ABORTED with a RESOURCE_INFO detail holding the current resource', async () => {
    const project = await createProject(t, alice.token, accountId, { description: 'v1' });
    const current = expectStatus(await patch(projectUrl(project.id), { description: 'v2' }), 200);
    const error = expectError(await patch(projectUrl(project.id), { description: 'v3' }, { 'if-match': quoted(project.etag) }), 409, 'ABORTED');
    const info = error.details.filter((d: any) => d.type === 'RESOURCE_INFO');
    expect(info).toHaveLength(1);
    expect(info[0].resource).toEqual(current);
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(current);
  });

  it('concurrent updates under one If-Match: exactly one wins, the others are ABORTED', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Contended' });
    const answers = await Promise.all(
      ['a', 'b', 'c', 'd'].map((v) => patch(projectUrl(project.id), { description: v }, { 'if-match': quoted(project.etag) })),
    );
    const winners = answers.filter((res) => res.statusCode === 200);
    expect(winners).toHaveLength(1);
    for (const res of answers.filter((r) => r.statusCode !== 200)) expectError(res, 409, 'ABORTED');
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(winners[0].json());
  });

  it('concurrent unconditional updates all land, each with its own etag', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Busy' });
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((v) => patch(projectUrl(project.id), { description: v })));
    const etags = answers.map((res) => expectStatus(res, 200).etag);
    expect(new Set([project.etag, ...etags]).size).toBe(5);
    const final = expectStatus(await get(projectUrl(project.id)), 200);
    expect(etags).toContain(final.etag);
  });

  it('a matching If-Match lets the update through', async () => {
    const project = await createProject(t, alice.token, accountId);
    const updated = expectStatus(await patch(projectUrl(project.id), { description: 'quoted' }, { 'if-match': quoted(project.etag) }), 200);
    const again = expectStatus(await patch(projectUrl(project.id), { description: 'bare' }, { 'if-match': updated.etag }), 200);
    expect(again.description).toBe('bare');
  });

  it('validate_only=true on update answers the would-be resource and writes nothing', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Dry run', description: 'before' });
    const res = await patch(withQuery(projectUrl(project.id), { validate_only: true }), { description: 'after' });
    const wouldBe = expectStatus(res, 200);
    expect(wouldBe).toMatchObject({ id: project.id, display_name: 'Dry run', description: 'after' });
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(project);
  });

  it('validate_only=true on update still runs every check', async () => {
    const project = await createProject(t, alice.token, accountId);
    expectInvalid(await patch(withQuery(projectUrl(project.id), { validate_only: true, update_mask: 'display_name' }), {}), 'display_name');
    expectError(await patch(withQuery(projectUrl(project.id), { validate_only: true }), { description: 'x' }, { 'if-match': '"stale"' }), 409, 'ABORTED');
  });
});

describe('Create', () => {
  it('Create answers 201 with a Location header: the absolute URL ending with the resource name', async () => {
    const res = await t.request('POST', projectsUrl, { token: alice.token, body: { display_name: 'Located', description: 'here' } });
    const created = expectStatus(res, 201);
    expectCommonFields(created, 'projects');
    expect(created).toMatchObject({ display_name: 'Located', description: 'here', parent: `accounts/${accountId}` });
    expect(res.headers.location).toBe(`${t.config.publicBaseUrl}/tenant-api/v1/${created.name}`);
    expect(String(res.headers.location)).toMatch(/^https?:\/\//);
    expect(expectStatus(await get(projectUrl(created.id)), 200)).toEqual(created);
  });

  it('Create of accounts and websites answers 201 with Location too', async () => {
    const accountRes = await t.request('POST', `${API}/accounts`, { token: alice.token, body: { display_name: 'Located account' } });
    const account = expectStatus(accountRes, 201);
    expect(accountRes.headers.location).toBe(`${t.config.publicBaseUrl}/tenant-api/v1/accounts/${account.id}`);
    const project = await createProject(t, alice.token, account.id);
    const websiteRes = await t.request('POST', `${API}/projects/${project.id}/websites`, { token: alice.token, body: { display_name: 'Located site' } });
    const website = expectStatus(websiteRes, 201);
    expect(websiteRes.headers.location).toBe(`${t.config.publicBaseUrl}/tenant-api/v1/websites/${website.id}`);
    expect(website).toMatchObject({ provisioning_status: 'PENDING', parent: `projects/${project.id}` });
    expect(website.operation).toMatch(new RegExp(`^websites/${website.id}/operations/`));
  });

  it('output-only fields sent on create are ignored', async () => {
    const created = await createProject(t, alice.token, accountId, {
      display_name: 'Output only create',
      name: 'projects/chosen',
      id: 'chosen',
      parent: 'accounts/other',
      etag: 'x',
      create_time: '2001-01-01T00:00:00Z',
    });
    expect(created.id).not.toBe('chosen');
    expect(created.parent).toBe(`accounts/${accountId}`);
    expect(created.create_time).not.toBe('2001-01-01T00:00:00.000Z');
  });

  it('output-only website fields sent on create are ignored (provisioning_status starts PENDING)', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Output only sites' });
    const website = await createWebsite(t, alice.token, project.id, { provisioning_status: 'ACTIVE', website_url: 'https://x.example', operation: 'x', parent: 'projects/x' });
    expect(website).toMatchObject({ provisioning_status: 'PENDING', parent: `projects/${project.id}` });
    expect(website.website_url).not.toBe('https://x.example');
    expect(website.operation).toMatch(/^websites\/.+\/operations\/.+/);
  });

  it('display_name null on create is INVALID_ARGUMENT naming display_name', async () => {
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    expectInvalid(await t.request('POST', projectsUrl, { token: alice.token, body: { display_name: null } }), 'display_name');
    expect(await snapshot(t, alice.token, projectsUrl, 'projects')).toEqual(before);
  });

  it('?id= is honoured on create', async () => {
    const res = await t.request('POST', `${projectsUrl}?id=my-project-1`, { token: alice.token, body: { display_name: 'Chosen id' } });
    const created = expectStatus(res, 201);
    expect(created).toMatchObject({ id: 'my-project-1', name: 'projects/my-project-1' });
    expect(res.headers.location).toMatch(/\/projects\/my-project-1$/);
    expect(expectStatus(await get(projectUrl('my-project-1')), 200).display_name).toBe('Chosen id');
  });

  it('a taken ?id= is 409 ALREADY_EXISTS and creates nothing', async () => {
    await createProject(t, alice.token, accountId, { display_name: 'First' }, '?id=taken-id');
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    const res = await t.request('POST', `${projectsUrl}?id=taken-id`, { token: alice.token, body: { display_name: 'Second' } });
    expectError(res, 409, 'ALREADY_EXISTS');
    expect(await snapshot(t, alice.token, projectsUrl, 'projects')).toEqual(before);
    expect(expectStatus(await get(projectUrl('taken-id')), 200).display_name).toBe('First');
  });

  it('an invalid client id is 400 INVALID_ARGUMENT naming id', async () => {
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    for (const id of ['Upper', '-leading', 'trailing-', 'under_score', 'has.dot', 'a'.repeat(64), 'sp%20ace']) {
      expectInvalid(await t.request('POST', `${projectsUrl}?id=${id}`, { token: alice.token, body: { display_name: 'Bad id' } }), 'id');
    }
    expect(await snapshot(t, alice.token, projectsUrl, 'projects')).toEqual(before);
  });

  it('request_id makes create idempotent: the same id is answered and only one row exists', async () => {
    const account = await createAccount(t, alice.token, 'Idempotent');
    const url = `${API}/accounts/${account.id}/projects`;
    const first = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Once', request_id: 'req-1' } }), 201);
    const second = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Once', request_id: 'req-1' } }), 201);
    expect(second.id).toBe(first.id);
    // In the query string too.
    const third = expectStatus(await t.request('POST', `${url}?request_id=req-1`, { token: alice.token, body: { display_name: 'Once' } }), 201);
    expect(third.id).toBe(first.id);
    const page = await list(t, alice.token, url);
    expect(page.total_size).toBe(1);
    expect(idsOf(page, 'projects')).toEqual([first.id]);
    const other = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Twice', request_id: 'req-2' } }), 201);
    expect(other.id).not.toBe(first.id);
    expect((await list(t, alice.token, url)).total_size).toBe(2);
  });

  it('request_id makes account create idempotent too', async () => {
    const before = (await list(t, alice.token, `${API}/accounts`)).total_size;
    const a = expectStatus(await t.request('POST', `${API}/accounts`, { token: alice.token, body: { display_name: 'Idem account', request_id: 'acct-1' } }), 201);
    const b = expectStatus(await t.request('POST', `${API}/accounts`, { token: alice.token, body: { display_name: 'Idem account', request_id: 'acct-1' } }), 201);
    expect(b.id).toBe(a.id);
    expect((await list(t, alice.token, `${API}/accounts`)).total_size).toBe(before + 1);
  });

  it('concurrent creates with one request_id all answer the same resource and create one row', async () => {
    const account = await createAccount(t, alice.token, 'Racing');
    const url = `${API}/accounts/${account.id}/projects`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => t.request('POST', url, { token: alice.token, body: { display_name: 'Raced', request_id: 'race-1' } })),
    );
    const ids = answers.map((res) => expectStatus(res, 201).id);
    expect(new Set(ids).size).toBe(1);
    const page = await list(t, alice.token, url);
    expect(idsOf(page, 'projects')).toEqual([ids[0]]);
  });

  it('a request_id whose resource was deleted since creates the resource afresh instead of a phantom conflict', async () => {
    const account = await createAccount(t, alice.token, 'Recreate');
    const url = `${API}/accounts/${account.id}/projects`;
    const first = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Phoenix', request_id: 'again-1' } }), 201);
    expectStatus(await t.request('DELETE', projectUrl(first.id), { token: alice.token }), 204);
    const second = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Phoenix', request_id: 'again-1' } }), 201);
    expect(second.id).not.toBe(first.id);
    const third = expectStatus(await t.request('POST', url, { token: alice.token, body: { display_name: 'Phoenix', request_id: 'again-1' } }), 201);
    expect(third.id).toBe(second.id);
    expect(idsOf(await list(t, alice.token, url), 'projects')).toEqual([second.id]);
  });

  it('a request_id is scoped to its collection: the same value under another parent creates there', async () => {
    const a = await createAccount(t, alice.token, 'Scope A');
    const b = await createAccount(t, alice.token, 'Scope B');
    const inA = expectStatus(await t.request('POST', `${API}/accounts/${a.id}/projects`, { token: alice.token, body: { display_name: 'S', request_id: 'scoped' } }), 201);
    const inB = expectStatus(await t.request('POST', `${API}/accounts/${b.id}/projects`, { token: alice.token, body: { display_name: 'S', request_id: 'scoped' } }), 201);
    expect(inB.id).not.toBe(inA.id);
    expect(inB.parent).toBe(`accounts/${b.id}`);
  });

  it('a request_id longer than 64 characters is refused naming request_id', async () => {
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    expectInvalid(await t.request('POST', projectsUrl, { token: alice.token, body: { display_name: 'Long', request_id: 'r'.repeat(65) } }), 'request_id');
    expectInvalid(await t.request('POST', `${projectsUrl}?request_id=${'r'.repeat(65)}`, { token: alice.token, body: { display_name: 'Long' } }), 'request_id');
    // 64 is fine.
    expectStatus(await t.request('POST', projectsUrl, { token: alice.token, body: { display_name: 'Long ok', request_id: 'r'.repeat(64) } }), 201);
    expect((await snapshot(t, alice.token, projectsUrl, 'projects')).length).toBe(before.length + 1);
  });

  it('validate_only=true on create answers the would-be resource and writes nothing', async () => {
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    const res = await t.request('POST', `${projectsUrl}?validate_only=true&id=dry-run`, { token: alice.token, body: { display_name: 'Dry', description: 'run' } });
    const wouldBe = expectStatus(res, 200);
    expect(wouldBe).toMatchObject({ id: 'dry-run', name: 'projects/dry-run', display_name: 'Dry', description: 'run', parent: `accounts/${accountId}` });
    expect(res.headers.location).toBeUndefined();
    expect(await snapshot(t, alice.token, projectsUrl, 'projects')).toEqual(before);
    expectError(await get(projectUrl('dry-run')), 404, 'NOT_FOUND');
    // The id is still free afterwards.
    expect((await createProject(t, alice.token, accountId, { display_name: 'Real' }, '?id=dry-run')).id).toBe('dry-run');
  });

  it('validate_only=true on website create writes neither the website nor its operation', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Dry sites' });
    const url = `${API}/projects/${project.id}/websites`;
    const res = await t.request('POST', `${url}?validate_only=true`, { token: alice.token, body: { display_name: 'Dry site' } });
    expect(expectStatus(res, 200)).toMatchObject({ display_name: 'Dry site', parent: `projects/${project.id}` });
    expect((await list(t, alice.token, url)).total_size).toBe(0);
  });

  it('validate_only=true on create still runs every check', async () => {
    const before = await snapshot(t, alice.token, projectsUrl, 'projects');
    expectInvalid(await t.request('POST', `${projectsUrl}?validate_only=true`, { token: alice.token, body: { display_name: ' ' } }), 'display_name');
    expectError(await t.request('POST', `${projectsUrl}?validate_only=true&id=taken-id`, { token: alice.token, body: { display_name: 'x' } }), 409, 'ALREADY_EXISTS');
    expect(await snapshot(t, alice.token, projectsUrl, 'projects')).toEqual(before);
  });

  it('display_name is trimmed on create and update', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: '  padded  ' });
    expect(project.display_name).toBe('padded');
    expect(expectStatus(await patch(projectUrl(project.id), { display_name: ' again ' }), 200).display_name).toBe('again');
  });
});

describe('Delete', () => {
  it('Delete answers 204 without a body and a Get afterwards is 404 NOT_FOUND', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Doomed' });
    expectNoBody(await t.request('DELETE', projectUrl(project.id), { token: alice.token }), 204);
    expectError(await get(projectUrl(project.id)), 404, 'NOT_FOUND');
    expect(idsOf(await list(t, alice.token, projectsUrl, { page_size: 100, filter: 'display_name = "Doomed"' }), 'projects')).toEqual([]);
    expectError(await t.request('DELETE', projectUrl(project.id), { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await patch(projectUrl(project.id), { description: 'x' }), 404, 'NOT_FOUND');
  });

  it('Delete with a stale If-Match is 409 ABORTED with the current resource and deletes nothing', async () => {
    const project = await createProject(t, alice.token, accountId);
    const current = expectStatus(await patch(projectUrl(project.id), { description: 'moved on' }), 200);
    const error = expectError(await t.request('DELETE', projectUrl(project.id), { token: alice.token, headers: { 'if-match': quoted(project.etag) } }), 409, 'ABORTED');
    expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource).toEqual(current);
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(current);
    expectNoBody(await t.request('DELETE', projectUrl(project.id), { token: alice.token, headers: { 'if-match': quoted(current.etag) } }), 204);
  });

  it('deleting a project with websites is FAILED_PRECONDITION unless ?force=true', async () => {
    const project = await createProject(t, alice.token, accountId, { display_name: 'Has sites' });
    const website = await createWebsite(t, alice.token, project.id, { display_name: 'Inside' });
    await t.waitForOperation(website.operation, alice.token);
    const error = expectError(await t.request('DELETE', projectUrl(project.id), { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expect(error.details).toContainEqual(expect.objectContaining({ type: 'PRECONDITION_FAILURE', reason: expect.any(String) }));
    expect(expectStatus(await get(projectUrl(project.id)), 200)).toEqual(project);
    expectStatus(await get(`${API}/websites/${website.id}`), 200);

    expectNoBody(await t.request('DELETE', `${projectUrl(project.id)}?force=true`, { token: alice.token }), 204);
    expectError(await get(projectUrl(project.id)), 404, 'NOT_FOUND');
    expectError(await get(`${API}/websites/${website.id}`), 404, 'NOT_FOUND');
  });

  it('deleting an account with projects is FAILED_PRECONDITION unless ?force=true', async () => {
    const account = await createAccount(t, alice.token, 'Doomed account');
    const project = await createProject(t, alice.token, account.id);
    expectError(await t.request('DELETE', `${API}/accounts/${account.id}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
    expectStatus(await get(projectUrl(project.id)), 200);
    expectNoBody(await t.request('DELETE', `${API}/accounts/${account.id}?force=true`, { token: alice.token }), 204);
    expectError(await get(`${API}/accounts/${account.id}`), 404, 'NOT_FOUND');
    expectError(await get(projectUrl(project.id)), 404, 'NOT_FOUND');
  });
});
