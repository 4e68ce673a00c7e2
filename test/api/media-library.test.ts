/**
 * The media library through the engine: List with the 4.2 filters and orders (`folder_id = null`
 * is the root), PATCH of `alt_text`, `title`, `folder_id` (a folder of the same website only),
 * output-only fields ignored, If-Match, Delete, tenancy.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectNoBody, expectShape, expectStatus, idsOf, list, snapshot, walk } from '../support/fixtures.js';
import { jpeg, png, publicGet, publicUrl, upload } from '../support/media.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let mediaUrl: string;
let folder: any;
let bobsFolder: any;
let all: any[];

const folderIn = async (user: TestUser, name: string) =>
  expectStatus(await t.request('POST', `${API}/websites/${user.websiteId}/media_folders`, { token: user.token, body: { display_name: name } }), 201);

beforeAll(async () => {
  t = await startTestApp();
  alice = await t.signUp();
  bob = await t.signUp();
  mediaUrl = `${API}/websites/${alice.websiteId}/media`;
  folder = await folderIn(alice, 'Photos');
  bobsFolder = await folderIn(bob, 'Bob');
  all = [
    await upload(t, alice.token, alice.websiteId, 'beach.jpg', await jpeg(40, 30), { alt_text: 'Sunny beach', title: 'Beach' }),
    await upload(t, alice.token, alice.websiteId, 'alps.png', await png(30, 30), { folder_id: folder.id, title: 'Mountains' }),
    await upload(t, alice.token, alice.websiteId, 'readme.txt', Buffer.from('hello'), { folder_id: folder.id }),
    await upload(t, alice.token, alice.websiteId, 'city.jpg', await jpeg(20, 20), { alt_text: 'City at night' }),
  ];
  await upload(t, bob.token, bob.websiteId, 'bob.jpg', await jpeg(10, 10));
});
afterAll(() => t?.close());

const names = (page: any) => page.media.map((m: any) => m.original_filename);

describe('list', () => {
  it('default order is create_time desc, with total_size, and only this website\'s media', async () => {
    const page = await list(t, alice.token, mediaUrl);
    await expectShape(t, 'ListMedia', 200, page);
    expect(names(page)).toEqual(['city.jpg', 'readme.txt', 'alps.png', 'beach.jpg']);
    expect(page.total_size).toBe(4);
  });

  it('filter folder_id = null is the library root; folder_id = x is one folder', async () => {
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'folder_id = null' }))).toEqual(['city.jpg', 'beach.jpg']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: `folder_id = "${folder.id}"` }))).toEqual(['readme.txt', 'alps.png']);
  });

  it('filters on is_image, mime_type, filename, original_filename, alt_text, title, create_time', async () => {
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'is_image = false' }))).toEqual(['readme.txt']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'mime_type = "image/jpeg"' }))).toEqual(['city.jpg', 'beach.jpg']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'filename = "alps.png"' }))).toEqual(['alps.png']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'original_filename:"each"' }))).toEqual(['beach.jpg']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'alt_text:"night"' }))).toEqual(['city.jpg']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: 'title = "Mountains" AND is_image = true' }))).toEqual(['alps.png']);
    expect(names(await list(t, alice.token, mediaUrl, { filter: `create_time >= "${all[3].create_time}"` }))).toEqual(['city.jpg']);
  });

  it('orders by every sortable field', async () => {
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'filename' }))).toEqual(['alps.png', 'beach.jpg', 'city.jpg', 'readme.txt']);
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'original_filename desc' }))).toEqual(['readme.txt', 'city.jpg', 'beach.jpg', 'alps.png']);
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'is_image, filename' }))).toEqual(['readme.txt', 'alps.png', 'beach.jpg', 'city.jpg']);
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'mime_type, create_time' }))).toEqual(['readme.txt', 'beach.jpg', 'city.jpg', 'alps.png']);
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'folder_id, create_time' })).slice(0, 2)).toEqual(['alps.png', 'readme.txt']);
    expect(names(await list(t, alice.token, mediaUrl, { order_by: 'create_time asc' }))).toEqual(['beach.jpg', 'alps.png', 'readme.txt', 'city.jpg']);
  });

  it('pages through the whole library with page tokens', async () => {
    const pages = await walk(t, alice.token, mediaUrl, { page_size: 1, order_by: 'filename' });
    expect(pages.flatMap((p) => idsOf(p, 'media'))).toHaveLength(4);
  });

  it('fields outside the lists are refused by name', async () => {
    expectInvalid(await t.request('GET', `${mediaUrl}?filter=${encodeURIComponent('storage_path = "x"')}`, { token: alice.token }), 'storage_path');
    expect(expectInvalid(await t.request('GET', `${mediaUrl}?order_by=title`, { token: alice.token }), 'order_by').message).toContain('title');
    expect(expectInvalid(await t.request('GET', `${mediaUrl}?order_by=file_size`, { token: alice.token }), 'order_by').message).toContain('file_size');
  });

  it('needs authentication; another tenant\'s library answers 404', async () => {
    expectError(await t.request('GET', mediaUrl), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', mediaUrl, { token: bob.token }), 404, 'NOT_FOUND');
  });
});

describe('update', () => {
  it('PATCH writes alt_text, title and folder_id; output-only fields are ignored', async () => {
    const target = all[0];
    const res = await t.request('PATCH', `${mediaUrl}/${target.id}`, {
      token: alice.token,
      body: { alt_text: 'New alt', title: 'New title', folder_id: folder.id, filename: 'hacked.exe', mime_type: 'text/html', file_size: 1, is_image: false },
    });
    const updated = expectStatus(res, 200);
    await expectShape(t, 'UpdateMedia', 200, updated);
    expect(updated).toMatchObject({ alt_text: 'New alt', title: 'New title', folder_id: folder.id, filename: target.filename, mime_type: target.mime_type, file_size: target.file_size, is_image: true });
    expect(updated.etag).not.toBe(target.etag);
    // Back to the root with update_mask.
    const root = expectStatus(await t.request('PATCH', `${mediaUrl}/${target.id}?update_mask=folder_id`, { token: alice.token, body: {} }), 200);
    expect(root.folder_id).toBeUndefined();
    all[0] = root;
  });

  it('folder_id of another website, or of no folder, is refused on folder_id and changes nothing', async () => {
    const before = await snapshot(t, alice.token, mediaUrl, 'media');
    for (const folderId of [bobsFolder.id, 'nosuchfolder', '']) {
      expectInvalid(await t.request('PATCH', `${mediaUrl}/${all[1].id}`, { token: alice.token, body: { folder_id: folderId } }), 'folder_id');
    }
    expect(await snapshot(t, alice.token, mediaUrl, 'media')).toEqual(before);
  });

  it('wrong types, unknown fields and oversize values are refused by name', async () => {
    const before = await snapshot(t, alice.token, mediaUrl, 'media');
    expectInvalid(await t.request('PATCH', `${mediaUrl}/${all[1].id}`, { token: alice.token, body: { alt_text: 5 } }), 'alt_text');
    expectInvalid(await t.request('PATCH', `${mediaUrl}/${all[1].id}`, { token: alice.token, body: { colour: 'red' } }), 'colour');
    expectInvalid(await t.request('PATCH', `${mediaUrl}/${all[1].id}`, { token: alice.token, body: { title: 'x'.repeat(256) } }), 'title');
    expect(await snapshot(t, alice.token, mediaUrl, 'media')).toEqual(before);
  });

  it('a stale If-Match answers 409 ABORTED with the current media', async () => {
    const current = expectStatus(await t.request('GET', `${mediaUrl}/${all[2].id}`, { token: alice.token }), 200);
    const error = expectError(await t.request('PATCH', `${mediaUrl}/${all[2].id}`, { token: alice.token, body: { title: 'x' }, headers: { 'if-match': '"stale"' } }), 409, 'ABORTED');
    expect(error.details.find((d: any) => d.type === 'RESOURCE_INFO').resource).toEqual(current);
  });

  it('another tenant cannot update or delete (404)', async () => {
    expectError(await t.request('PATCH', `${mediaUrl}/${all[2].id}`, { token: bob.token, body: { title: 'x' } }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${mediaUrl}/${all[2].id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectError(await t.request('PATCH', `${API}/websites/${bob.websiteId}/media/${all[2].id}`, { token: bob.token, body: { title: 'x' } }), 404, 'NOT_FOUND');
  });
});

describe('delete', () => {
  it('Delete answers 204, honours If-Match, and the media is gone', async () => {
    const target = all[3];
    expectError(await t.request('DELETE', `${mediaUrl}/${target.id}`, { token: alice.token, headers: { 'if-match': '"stale"' } }), 409, 'ABORTED');
    expectNoBody(await t.request('DELETE', `${mediaUrl}/${target.id}`, { token: alice.token, headers: { 'if-match': `"${target.etag}"` } }), 204);
    expectError(await t.request('GET', `${mediaUrl}/${target.id}`, { token: alice.token }), 404, 'NOT_FOUND');
    expectError(await t.request('DELETE', `${mediaUrl}/${target.id}`, { token: alice.token }), 404, 'NOT_FOUND');
  });
});

describe('website delete', () => {
  it('deleting a website removes its media rows and every blob under the website', async () => {
    const carol = await t.signUpProvisioned();
    const folder = await folderIn(carol, 'Holiday');
    await folderIn(carol, 'Empty');
    const media = await upload(t, carol.token, carol.websiteId, 'c.jpg', await jpeg(20, 20), { folder_id: folder.id });
    const dir = join(t.config.dataDir, 'blobs', 'websites', carol.websiteId);
    expect(await readdir(join(dir, 'media', media.id))).toEqual(['original']);
    expectNoBody(await t.request('DELETE', `${API}/websites/${carol.websiteId}`, { token: carol.token }), 204);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
    expectError(await publicGet(t, publicUrl(carol.websiteId, media.id)), 404, 'NOT_FOUND');
  });

  it('a forced account Delete (cascading to its projects and websites) removes every blob of those websites', async () => {
    const dave = await t.signUpProvisioned();
    const media = await upload(t, dave.token, dave.websiteId, 'd.jpg', await jpeg(20, 20));
    const dir = join(t.config.dataDir, 'blobs', 'websites', dave.websiteId);
    expect(await readdir(join(dir, 'media', media.id))).toEqual(['original']);
    // Without force the account still has projects: nothing is deleted, the blobs stay.
    expectError(await t.request('DELETE', `${API}/accounts/${dave.accountId}`, { token: dave.token }), 400, 'FAILED_PRECONDITION');
    expect(await readdir(join(dir, 'media', media.id))).toEqual(['original']);
    expectNoBody(await t.request('DELETE', `${API}/accounts/${dave.accountId}?force=true`, { token: dave.token }), 204);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
  });
});
