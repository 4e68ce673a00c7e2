/**
 * Media folders: `parent_id` settable on create only, `path`/`level`/`sort_order` output-only and
 * rewritten by `:move` for the folder and its whole subtree, moves under itself refused,
 * `after_id` semantics, default order `path asc`, Delete of a non-empty folder (AIP-135 force).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, list, snapshot } from '../support/fixtures.js';
import { eventually, jpeg, publicGet, publicUrl, upload } from '../support/media.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let foldersUrl: string;

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  foldersUrl = `${API}/websites/${alice.websiteId}/media_folders`;
});
afterAll(() => t?.close());

const create = async (display_name: string, parent_id?: string, user = alice) =>
  expectStatus(
    await t.request('POST', `${API}/websites/${user.websiteId}/media_folders`, { token: user.token, body: { display_name, ...(parent_id && { parent_id }) } }),
    201,
  );
const get = async (id: string) => expectStatus(await t.request('GET', `${foldersUrl}/${id}`, { token: alice.token }), 200);
const move = (id: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.request('POST', `${foldersUrl}/${id}:move`, { token: alice.token, body, headers });
const tree = async () => snapshot(t, alice.token, foldersUrl, 'media_folders');

describe('create', () => {
  it('a root folder has level 0, path = its id, and comes last among its siblings', async () => {
    const a = await create('A');
    await expectShape(t, 'CreateMediaFolder', 201, a);
    expect(a).toMatchObject({ display_name: 'A', level: 0, path: a.id, sort_order: 0 });
    expect(a.parent_id).toBeUndefined();
    const b = await create('B');
    expect(b.sort_order).toBe(1);
  });

  it('a child gets level parent + 1 and path parent.path/id; output-only fields sent are ignored', async () => {
    const parent = await create('Parent');
    const res = await t.request('POST', foldersUrl, { token: alice.token, body: { display_name: 'Child', parent_id: parent.id, path: 'x', level: 9, sort_order: 7 } });
    const child = expectStatus(res, 201);
    expect(child).toMatchObject({ parent_id: parent.id, level: 1, path: `${parent.path}/${child.id}`, sort_order: 0 });
  });

  it('parent_id of another website or of no folder is refused on parent_id', async () => {
    const before = await tree();
    const bobs = await create('Bob', undefined, bob);
    expectInvalid(await t.request('POST', foldersUrl, { token: alice.token, body: { display_name: 'X', parent_id: bobs.id } }), 'parent_id');
    expectInvalid(await t.request('POST', foldersUrl, { token: alice.token, body: { display_name: 'X', parent_id: 'nope' } }), 'parent_id');
    expectInvalid(await t.request('POST', foldersUrl, { token: alice.token, body: { parent_id: null } }), 'display_name');
    expectInvalid(await t.request('POST', foldersUrl, { token: alice.token, body: { display_name: '  ' } }), 'display_name');
    expect(await tree()).toEqual(before);
  });

  it('parent_id is immutable on PATCH (a changed value is refused, the same value accepted); display_name is writable', async () => {
    const parent = await create('P1');
    const other = await create('P2');
    const child = await create('C', parent.id);
    expectInvalid(await t.request('PATCH', `${foldersUrl}/${child.id}`, { token: alice.token, body: { parent_id: other.id } }), 'parent_id');
    const renamed = expectStatus(await t.request('PATCH', `${foldersUrl}/${child.id}`, { token: alice.token, body: { display_name: 'Renamed', parent_id: parent.id, path: 'ignored' } }), 200);
    expect(renamed).toMatchObject({ display_name: 'Renamed', parent_id: parent.id, path: child.path });
  });
});

describe('list', () => {
  it('default order is path asc (depth-first); filters and orders of 4.2', async () => {
    const t2 = await startTestApp();
    try {
      const carol = await t2.signUp();
      const url = `${API}/websites/${carol.websiteId}/media_folders`;
      const mk = async (display_name: string, parent_id?: string) =>
        expectStatus(await t2.request('POST', url, { token: carol.token, body: { display_name, ...(parent_id && { parent_id }) } }), 201);
      const root1 = await mk('Zoo');
      const child = await mk('Lions', root1.id);
      const root2 = await mk('Art');
      const grandchild = await mk('Cubs', child.id);
      const page = await list(t2, carol.token, url);
      const paths = page.media_folders.map((f: any) => f.path);
      expect(paths).toEqual([...paths].sort());
      expect(page.media_folders.map((f: any) => f.id)).toEqual([root1.id, child.id, grandchild.id, root2.id]);
      const names = async (query: Record<string, string>) => (await list(t2, carol.token, url, query)).media_folders.map((f: any) => f.display_name);
      expect(await names({ filter: 'parent_id = null', order_by: 'display_name' })).toEqual(['Art', 'Zoo']);
      expect(await names({ filter: `parent_id = "${root1.id}"` })).toEqual(['Lions']);
      expect(await names({ filter: 'level = 2' })).toEqual(['Cubs']);
      expect(await names({ filter: 'display_name:"ion"' })).toEqual(['Lions']);
      expect(await names({ filter: `path:"${child.id}"` })).toEqual(['Lions', 'Cubs']);
      expect(await names({ order_by: 'level desc, display_name' })).toEqual(['Cubs', 'Lions', 'Art', 'Zoo']);
      expect(await names({ filter: 'parent_id = null', order_by: 'sort_order' })).toEqual(['Zoo', 'Art']);
      expect((await names({ order_by: 'parent_id, display_name' })).length).toBe(4);
      expect(expectInvalid(await t2.request('GET', `${url}?order_by=create_time`, { token: carol.token }), 'order_by').message).toContain('create_time');
      expectInvalid(await t2.request('GET', `${url}?filter=${encodeURIComponent('sort_order = 1')}`, { token: carol.token }), 'sort_order');
    } finally {
      await t2.close();
    }
  });
});

describe(':move', () => {
  it('moves the folder and rewrites path and level of its whole subtree', async () => {
    const a = await create('MA');
    const b = await create('MB', a.id);
    const c = await create('MC', b.id);
    const target = await create('MTarget');
    const moved = expectStatus(await move(b.id, { parent_id: target.id }), 200);
    await expectShape(t, 'MoveMediaFolder', 200, moved);
    expect(moved).toMatchObject({ parent_id: target.id, level: 1, path: `${target.id}/${b.id}`, sort_order: 0 });
    expect(moved.etag).not.toBe(b.etag);
    const c2 = await get(c.id);
    expect(c2).toMatchObject({ parent_id: b.id, level: 2, path: `${target.id}/${b.id}/${c.id}` });
    // To the root: levels drop by one.
    const atRoot = expectStatus(await move(b.id, {}), 200);
    expect(atRoot).toMatchObject({ level: 0, path: b.id, sort_order: 0 });
    expect(atRoot.parent_id).toBeUndefined();
    expect(await get(c.id)).toMatchObject({ level: 1, path: `${b.id}/${c.id}` });
    expect(await get(a.id)).toMatchObject({ level: 0, path: a.id });
  });

  it('moving a folder under itself or one of its descendants is refused on parent_id and changes nothing', async () => {
    const a = await create('SA');
    const b = await create('SB', a.id);
    const c = await create('SC', b.id);
    const before = await tree();
    expectInvalid(await move(a.id, { parent_id: a.id }), 'parent_id');
    expectInvalid(await move(a.id, { parent_id: b.id }), 'parent_id');
    expectInvalid(await move(a.id, { parent_id: c.id }), 'parent_id');
    expect(await tree()).toEqual(before);
  });

  it('after_id: absent or null puts it first; an id puts it right after that sibling; siblings are renumbered', async () => {
    const parent = await create('Siblings');
    const [x, y, z] = [await create('X', parent.id), await create('Y', parent.id), await create('Z', parent.id)];
    const order = async () =>
      (await list(t, alice.token, foldersUrl, { filter: `parent_id = "${parent.id}"`, order_by: 'sort_order' })).media_folders.map((f: any) => f.display_name);
    expect(await order()).toEqual(['X', 'Y', 'Z']);
    expectStatus(await move(z.id, { parent_id: parent.id, after_id: null }), 200);
    expect(await order()).toEqual(['Z', 'X', 'Y']);
    expectStatus(await move(z.id, { parent_id: parent.id, after_id: x.id }), 200);
    expect(await order()).toEqual(['X', 'Z', 'Y']);
    expectStatus(await move(x.id, { parent_id: parent.id, after_id: y.id }), 200);
    expect(await order()).toEqual(['Z', 'Y', 'X']);
    const orders = (await list(t, alice.token, foldersUrl, { filter: `parent_id = "${parent.id}"`, order_by: 'sort_order' })).media_folders.map((f: any) => f.sort_order);
    expect(new Set(orders).size).toBe(3);
    // Absent parent_id means the root: Y leaves the parent and comes first at the root.
    const atRoot = expectStatus(await move(y.id, {}), 200);
    expect(atRoot).toMatchObject({ level: 0, sort_order: 0 });
    expect(await order()).toEqual(['Z', 'X']);
  });

  it('after_id that is not a sibling under the new parent is refused on after_id', async () => {
    const p = await create('AP');
    const q = await create('AQ');
    const inP = await create('InP', p.id);
    const inQ = await create('InQ', q.id);
    const before = await tree();
    expectInvalid(await move(inP.id, { parent_id: p.id, after_id: inQ.id }), 'after_id');
    expectInvalid(await move(inP.id, { parent_id: p.id, after_id: inP.id }), 'after_id');
    expectInvalid(await move(inP.id, { parent_id: p.id, after_id: 'nope' }), 'after_id');
    expect(await tree()).toEqual(before);
  });

  it('bad bodies, foreign parents, stale If-Match and other tenants are refused', async () => {
    const f = await create('Guarded');
    const bobs = await create('BobF', undefined, bob);
    const before = await tree();
    expectInvalid(await move(f.id, { parent_id: bobs.id }), 'parent_id');
    expectInvalid(await move(f.id, { parent_id: 5 }), 'parent_id');
    expectInvalid(await move(f.id, { sort_order: 3 }), 'sort_order');
    expectError(await move(f.id, {}, { 'if-match': '"stale"' }), 409, 'ABORTED');
    expectError(await t.request('POST', `${foldersUrl}/${f.id}:move`, { token: bob.token, body: {} }), 404, 'NOT_FOUND');
    expectError(await t.request('POST', `${foldersUrl}/${f.id}:move`, { body: {} }), 401, 'UNAUTHENTICATED');
    expect(await tree()).toEqual(before);
  });

  it('a move that would exceed the deepest level is refused on parent_id', async () => {
    let parent = await create('Deep0');
    for (let i = 1; i <= 15; i++) parent = await create(`Deep${i}`, parent.id);
    expect(parent.level).toBe(15);
    expectInvalid(await t.request('POST', foldersUrl, { token: alice.token, body: { display_name: 'Too deep', parent_id: parent.id } }), 'parent_id');
    const small = await create('Small');
    await create('SmallChild', small.id);
    const prev = (await list(t, alice.token, foldersUrl, { filter: 'level = 14 AND display_name = "Deep14"' })).media_folders[0];
    expectInvalid(await move(small.id, { parent_id: prev.id }), 'parent_id');
  });
});

describe('delete', () => {
  it('an empty folder is deleted (204); a non-empty one answers FAILED_PRECONDITION FOLDER_NOT_EMPTY', async () => {
    const empty = await create('Empty');
    expectNoBody(await t.request('DELETE', `${foldersUrl}/${empty.id}`, { token: alice.token }), 204);
    const withChild = await create('WithChild');
    await create('Kid', withChild.id);
    const withMedia = await create('WithMedia');
    await upload(t, alice.token, alice.websiteId, 'in.jpg', await jpeg(10, 10), { folder_id: withMedia.id });
    const before = await tree();
    for (const f of [withChild, withMedia]) {
      const error = expectError(await t.request('DELETE', `${foldersUrl}/${f.id}`, { token: alice.token }), 400, 'FAILED_PRECONDITION');
      expect(error.details.find((d: any) => d.type === 'PRECONDITION_FAILURE').reason).toBe('FOLDER_NOT_EMPTY');
    }
    expect(await tree()).toEqual(before);
  });

  it('force=true deletes the subtree, every media in it and their blobs; media elsewhere stay', async () => {
    const top = await create('Doomed');
    const sub = await create('DoomedSub', top.id);
    const keeper = await create('Keeper');
    const m1 = await upload(t, alice.token, alice.websiteId, 'd1.jpg', await jpeg(10, 10), { folder_id: top.id });
    const m2 = await upload(t, alice.token, alice.websiteId, 'd2.jpg', await jpeg(10, 10), { folder_id: sub.id });
    const kept = await upload(t, alice.token, alice.websiteId, 'k.jpg', await jpeg(10, 10), { folder_id: keeper.id });
    await publicGet(t, publicUrl(alice.websiteId, m2.id, '?w=5'));
    expectNoBody(await t.request('DELETE', `${foldersUrl}/${top.id}?force=true`, { token: alice.token }), 204);
    for (const id of [top.id, sub.id]) expectError(await t.request('GET', `${foldersUrl}/${id}`, { token: alice.token }), 404, 'NOT_FOUND');
    for (const m of [m1, m2]) {
      expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/media/${m.id}`, { token: alice.token }), 404, 'NOT_FOUND');
      // A variant stored right after it was served is removed too, even when it lands after the delete.
      await eventually(() => expect(readdir(join(t.config.dataDir, 'blobs', 'websites', alice.websiteId, 'media', m.id))).rejects.toThrow(/ENOENT/));
    }
    expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}/media/${kept.id}`, { token: alice.token }), 200);
    expect((await publicGet(t, publicUrl(alice.websiteId, kept.id))).statusCode).toBe(200);
  });

  it('another tenant cannot delete (404)', async () => {
    const f = await create('Mine');
    expectError(await t.request('DELETE', `${foldersUrl}/${f.id}?force=true`, { token: bob.token }), 404, 'NOT_FOUND');
    expectStatus(await t.request('GET', `${foldersUrl}/${f.id}`, { token: alice.token }), 200);
  });
});
