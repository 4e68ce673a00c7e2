/**
 * CMS blocks (SPEC 1, 2.2): `identifier` unique per website (ALREADY_EXISTS), required fields,
 * filters and order, etags, tenancy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectCommonFields, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list, snapshot } from '../support/fixtures.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let blocksUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  await t.waitForOperation(alice.operation, alice.token);
  blocksUrl = `${API}/websites/${alice.websiteId}/cms_blocks`;
});
afterAll(() => t?.close());

const post = (url: string, body: unknown, token = alice.token) => t.request('POST', url, { token, body });
const patch = (url: string, body: unknown, headers: Record<string, string> = {}, token = alice.token) => t.request('PATCH', url, { token, body, headers });

describe('cms_blocks', () => {
  it('creates a block with identifier, title, is_active, content and reads it back', async () => {
    const block = expectStatus(await post(blocksUrl, { identifier: 'footer_links', title: 'Footer links', content: '<ul><li>A</li></ul>' }), 201);
    await expectShape(t, 'CreateCmsBlock', 201, block);
    expectCommonFields(block, `websites/${alice.websiteId}/cms_blocks`);
    expect(block).toMatchObject({ identifier: 'footer_links', title: 'Footer links', is_active: true, content: '<ul><li>A</li></ul>', visible_view_ids: [] });
    const read = expectStatus(await t.request('GET', `${API}/${block.name}`, { token: alice.token }), 200);
    await expectShape(t, 'GetCmsBlock', 200, read);
    expect(read).toEqual(block);
  });

  it('a duplicate identifier answers ALREADY_EXISTS naming identifier and stores nothing; another website may use it', async () => {
    expectStatus(await post(blocksUrl, { identifier: 'banner', title: 'Banner' }), 201);
    const before = await snapshot(t, alice.token, blocksUrl, 'cms_blocks');
    const error = expectError(await post(blocksUrl, { identifier: 'banner', title: 'Banner 2' }), 409, 'ALREADY_EXISTS');
    expect(error.message).toContain('identifier');
    expect(await snapshot(t, alice.token, blocksUrl, 'cms_blocks')).toEqual(before);
    await t.waitForOperation(bob.operation, bob.token);
    expectStatus(await post(`${API}/websites/${bob.websiteId}/cms_blocks`, { identifier: 'banner', title: 'Bob banner' }, bob.token), 201);
  });

  it('renaming a block onto a taken identifier is ALREADY_EXISTS and leaves it unchanged', async () => {
    expectStatus(await post(blocksUrl, { identifier: 'taken', title: 'Taken' }), 201);
    const block = expectStatus(await post(blocksUrl, { identifier: 'mine', title: 'Mine' }), 201);
    expectError(await patch(`${API}/${block.name}`, { identifier: 'taken' }), 409, 'ALREADY_EXISTS');
    expect(expectStatus(await t.request('GET', `${API}/${block.name}`, { token: alice.token }), 200)).toEqual(block);
  });

  it('identifier and title are required; bad identifiers, unknown fields and wrong types name the field', async () => {
    expectInvalid(await post(blocksUrl, { title: 'No identifier' }), 'identifier');
    expectInvalid(await post(blocksUrl, { identifier: 'no-title' }), 'title');
    expectInvalid(await post(blocksUrl, { identifier: 'Has Space', title: 'T' }), 'identifier');
    expectInvalid(await post(blocksUrl, { identifier: 'x'.repeat(129), title: 'T' }), 'identifier');
    expectInvalid(await post(blocksUrl, { identifier: 'ok', title: 'T', extra: 1 }), 'extra');
    expectInvalid(await post(blocksUrl, { identifier: 'ok', title: 'T', is_active: 'no' }), 'is_active');
    expectInvalid(await post(blocksUrl, { identifier: 'ok', title: 'T', visible_view_ids: ['not-a-view'] }), 'visible_view_ids');
  });

  it('filters by is_active, identifier and title; sorts by identifier; content is not sortable', async () => {
    expectStatus(await post(blocksUrl, { identifier: 'zz-off', title: 'Off block', is_active: false }), 201);
    expectStatus(await post(blocksUrl, { identifier: 'aa-on', title: 'On block' }), 201);
    const off = await list(t, alice.token, blocksUrl, { filter: 'is_active = false' });
    expect(off.cms_blocks.map((b: any) => b.identifier)).toEqual(['zz-off']);
    const sorted = await list(t, alice.token, blocksUrl, { filter: 'title:"block"', order_by: 'identifier' });
    expect(sorted.cms_blocks.map((b: any) => b.identifier)).toEqual(['aa-on', 'zz-off']);
    expect((await list(t, alice.token, blocksUrl, { filter: 'identifier = "aa-on"' })).total_size).toBe(1);
    expectInvalid(await t.request('GET', `${blocksUrl}?order_by=content`, { token: alice.token }), 'order_by');
  });

  it('stale If-Match is ABORTED; Delete answers 204', async () => {
    const block = expectStatus(await post(blocksUrl, { identifier: 'etag', title: 'Etag' }), 201);
    expectStatus(await patch(`${API}/${block.name}`, { title: 'New' }), 200);
    expectError(await patch(`${API}/${block.name}`, { title: 'Old' }, { 'if-match': `"${block.etag}"` }), 409, 'ABORTED');
    expectError(await t.request('DELETE', `${API}/${block.name}`, { token: alice.token, headers: { 'if-match': `"${block.etag}"` } }), 409, 'ABORTED');
    expectNoBody(await t.request('DELETE', `${API}/${block.name}`, { token: alice.token }), 204);
    expectError(await t.request('GET', `${API}/${block.name}`, { token: alice.token }), 404, 'NOT_FOUND');
  });

  it("another tenant's block answers NOT_FOUND", async () => {
    const block = expectStatus(await post(blocksUrl, { identifier: 'private', title: 'Private' }), 201);
    expectError(await t.request('GET', `${API}/${block.name}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await patch(`${API}/${block.name}`, { title: 'X' }, {}, bob.token), 404, 'NOT_FOUND');
    expectError(await t.request('GET', `${API}/websites/${bob.websiteId}/cms_blocks/${block.id}`, { token: bob.token }), 404, 'NOT_FOUND');
  });
});
