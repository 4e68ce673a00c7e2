/**
 * Media upload (`POST .../media`, multipart): type from the bytes, unique URL-safe filenames,
 * image facts after EXIF orientation, plain parts, the size and pixel limits, and bad input that
 * leaves the library as it was.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectShape, expectStatus, snapshot } from '../support/fixtures.js';
import { jpeg, png, SVG, upload, uploadRaw } from '../support/media.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let mediaUrl: string;

// Small limits so the limit tests stay small: 200 KB per upload, 1 megapixel per image.
const MAX_BYTES = 200_000;
const MAX_PIXELS = 1_000_000;

beforeAll(async () => {
  t = await startTestApp({ MEDIA_MAX_UPLOAD_BYTES: String(MAX_BYTES), MEDIA_MAX_PIXELS: String(MAX_PIXELS) });
  alice = await t.signUp();
  bob = await t.signUp();
  mediaUrl = `${API}/websites/${alice.websiteId}/media`;
});
afterAll(() => t?.close());

const library = () => snapshot(t, alice.token, mediaUrl, 'media');
/** Files left in the upload temp directory (every upload cleans its own). */
const leftoverTempFiles = async () => readdir(join(t.config.dataDir, 'tmp', 'uploads')).catch(() => []);

describe('upload', () => {
  it('reads mime_type, file_size, is_image, width/height off the bytes and answers 201 with Location', async () => {
    const bytes = await jpeg(300, 200);
    const res = await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'file', filename: 'Holiday Photo.JPG', data: bytes, contentType: 'text/plain' }]);
    const media = expectStatus(res, 201);
    await expectShape(t, 'CreateMedia', 201, media);
    expect(res.headers.location).toBe(`http://api.test${API}/${media.name}`);
    expect(res.headers.etag).toBe(`"${media.etag}"`);
    expect(media).toMatchObject({
      original_filename: 'Holiday Photo.JPG',
      filename: 'holiday-photo.jpg',
      mime_type: 'image/jpeg',
      file_size: bytes.length,
      is_image: true,
      width: 300,
      height: 200,
    });
    expect(media.url).toBe(`http://api.test/engine-api/v1/websites/${alice.websiteId}/media/${media.id}/holiday-photo.jpg`);
    const got = expectStatus(await t.request('GET', `${mediaUrl}/${media.id}`, { token: alice.token }), 200);
    expect(got).toEqual(media);
  });

  it('mime_type comes from the bytes, not the file name or the client header', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'picture.gif', await png(20, 10));
    expect(media).toMatchObject({ mime_type: 'image/png', filename: 'picture.png', is_image: true, width: 20, height: 10 });
    const text = await upload(t, alice.token, alice.websiteId, 'notes.jpg', Buffer.from('just some text, not an image'));
    expect(text).toMatchObject({ mime_type: 'application/octet-stream', is_image: false });
    expect(text.width).toBeUndefined();
  });

  it('width and height are after EXIF orientation (orientation 6 swaps them)', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'rotated.jpg', await jpeg(300, 200, 6));
    expect(media).toMatchObject({ width: 200, height: 300, is_image: true });
  });

  it('filename is made unique within the website and URL-safe', async () => {
    const bytes = await jpeg(10, 10);
    const first = await upload(t, alice.token, alice.websiteId, 'Café Menü (1).jpg', bytes);
    const second = await upload(t, alice.token, alice.websiteId, 'Café Menü (1).jpg', bytes);
    expect(first.filename).toBe('cafe-menu-1.jpg');
    expect(second.filename).toMatch(/^cafe-menu-1-[0-9a-f]{6}\.jpg$/);
    expect(second.original_filename).toBe('Café Menü (1).jpg');
    // Another website may use the same name.
    const other = await upload(t, bob.token, bob.websiteId, 'Café Menü (1).jpg', bytes);
    expect(other.filename).toBe('cafe-menu-1.jpg');
    for (const m of [first, second, other]) expect(m.filename).toMatch(/^[a-z0-9_.-]+$/);
  });

  it('alt_text, title and folder_id come from plain parts', async () => {
    const folder = expectStatus(await t.request('POST', `${API}/websites/${alice.websiteId}/media_folders`, { token: alice.token, body: { display_name: 'Photos' } }), 201);
    const media = await upload(t, alice.token, alice.websiteId, 'a.jpg', await jpeg(10, 10), { alt_text: 'A red square', title: 'Red', folder_id: folder.id });
    expect(media).toMatchObject({ alt_text: 'A red square', title: 'Red', folder_id: folder.id });
  });

  it('SVG is stored as image/svg+xml and is not an image the transforms apply to', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'logo.svg', SVG);
    expect(media).toMatchObject({ mime_type: 'image/svg+xml', is_image: false, filename: 'logo.svg' });
  });

  it('a truncated or corrupt image is stored with is_image false', async () => {
    const whole = await jpeg(300, 200);
    const truncated = await upload(t, alice.token, alice.websiteId, 'cut.jpg', whole.subarray(0, Math.floor(whole.length / 2)));
    expect(truncated).toMatchObject({ mime_type: 'image/jpeg', is_image: false });
    expect(truncated.width).toBeUndefined();
    const corrupt = Buffer.concat([whole.subarray(0, 20), Buffer.alloc(2000, 0x41)]);
    const broken = await upload(t, alice.token, alice.websiteId, 'broken.jpg', corrupt);
    expect(broken.is_image).toBe(false);
  });

  it('needs authentication and WRITE on the website; another tenant answers 404', async () => {
    const bytes = await jpeg(10, 10);
    expectError(await uploadRaw(t, undefined, alice.websiteId, [{ name: 'file', filename: 'a.jpg', data: bytes }]), 401, 'UNAUTHENTICATED');
    const before = await library();
    expectError(await uploadRaw(t, bob.token, alice.websiteId, [{ name: 'file', filename: 'a.jpg', data: bytes }]), 404, 'NOT_FOUND');
    expect(await library()).toEqual(before);
  });
});

describe('upload limits and bad input leave the library as it was', () => {
  it('a body over MEDIA_MAX_UPLOAD_BYTES answers 400 INVALID_ARGUMENT on file in the canonical error body', async () => {
    const before = await library();
    const res = await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'file', filename: 'big.bin', data: Buffer.alloc(MAX_BYTES + 1, 1) }]);
    const error = expectError(res, 400, 'INVALID_ARGUMENT');
    expect(error.details.find((d: any) => d.type === 'FIELD_VIOLATION').field).toBe('file');
    expect(await library()).toEqual(before);
    expect(await leftoverTempFiles()).toEqual([]);
  });

  it('an image over MEDIA_MAX_PIXELS is refused from its header (decompression bomb)', async () => {
    const before = await library();
    // 2000×2000 of one colour compresses to a few KB but decodes to 4 megapixels.
    const bomb = await png(2000, 2000);
    expect(bomb.length).toBeLessThan(MAX_BYTES);
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'file', filename: 'bomb.png', data: bomb }]), 'file');
    expect(await library()).toEqual(before);
  });

  it('a zero-byte file, a missing file part and two file parts are refused on file', async () => {
    const before = await library();
    const bytes = await jpeg(10, 10);
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'file', filename: 'empty.jpg', data: Buffer.alloc(0) }]), 'file');
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'title', value: 'no file' }]), 'file');
    expectInvalid(
      await uploadRaw(t, alice.token, alice.websiteId, [
        { name: 'file', filename: 'a.jpg', data: bytes },
        { name: 'file', filename: 'b.jpg', data: bytes },
      ]),
      'file',
    );
    expect(await library()).toEqual(before);
    expect(await leftoverTempFiles()).toEqual([]);
  });

  it('path-like filenames are refused', async () => {
    const before = await library();
    const bytes = await jpeg(10, 10);
    for (const filename of ['../../x', '../x.jpg', 'a/b.jpg', '..\\..\\x.jpg', '..']) {
      expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'file', filename, data: bytes }]), 'file');
    }
    expect(await library()).toEqual(before);
  });

  it('a foreign or unknown folder_id is refused on folder_id', async () => {
    const before = await library();
    const bobsFolder = expectStatus(await t.request('POST', `${API}/websites/${bob.websiteId}/media_folders`, { token: bob.token, body: { display_name: 'Bob' } }), 201);
    const bytes = await jpeg(10, 10);
    for (const folderId of [bobsFolder.id, 'nope', '../x']) {
      expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'folder_id', value: folderId }, { name: 'file', filename: 'a.jpg', data: bytes }]), 'folder_id');
    }
    expect(await library()).toEqual(before);
  });

  it('unknown parts, a file under another name, oversize plain parts and non-multipart bodies are refused by name', async () => {
    const before = await library();
    const bytes = await jpeg(10, 10);
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'mime_type', value: 'image/png' }, { name: 'file', filename: 'a.jpg', data: bytes }]), 'mime_type');
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'image', filename: 'a.jpg', data: bytes }]), 'image');
    expectInvalid(await uploadRaw(t, alice.token, alice.websiteId, [{ name: 'title', value: 'x'.repeat(256) }, { name: 'file', filename: 'a.jpg', data: bytes }]), 'title');
    const json = await t.request('POST', mediaUrl, { token: alice.token, body: { filename: 'a.jpg' } });
    expect(expectError(json, 400, 'INVALID_ARGUMENT').details.find((d: any) => d.type === 'FIELD_VIOLATION').field).toBe('content-type');
    expect(await library()).toEqual(before);
  });
});
