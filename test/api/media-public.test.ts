/**
 * The public transformed read `GET /engine-api/v1/websites/{w}/media/{id}`: stored bytes, `w`/`h`/
 * `crop`/`q`/`fmt` (+ `enlarge`, `avif`, `fmt=auto`), ETag/304, caching headers, SVG safety,
 * 404s, invalid and hostile parameters, the default enlargement bound, variants made once and
 * stored, and deletion of original + variants. Limits per address and signed URLs:
 * media-public-limits.test.ts.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectInvalid, expectNoBody, expectStatus } from '../support/fixtures.js';
import { blobStoreFromConfig } from '../../src/platform/storage/configured.js';
import { eventually, jpeg, png, publicGet, publicUrl, SVG, upload } from '../support/media.js';

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let photo: any; // 400×300 JPEG
let photoBytes: Buffer;
let rotated: any; // stored 300×200 with orientation 6: 200×300 upright
let logo: any; // SVG
let textFile: any;

/** Keys of every variant written to blob storage (the real disk store, observed). */
const variantWrites: string[] = [];

beforeAll(async () => {
  t = await startTestApp(
    {},
    {
      blobs: (config) => {
        const disk = blobStoreFromConfig(config);
        return {
          ...disk,
          put(key, body, opts) {
            if (key.includes('/variants/')) variantWrites.push(key);
            return disk.put(key, body, opts);
          },
        };
      },
    },
  );
  alice = await t.signUp();
  bob = await t.signUp();
  photoBytes = await jpeg(400, 300);
  photo = await upload(t, alice.token, alice.websiteId, 'photo.jpg', photoBytes);
  rotated = await upload(t, alice.token, alice.websiteId, 'rotated.jpg', await jpeg(300, 200, 6));
  logo = await upload(t, alice.token, alice.websiteId, 'logo.svg', SVG);
  textFile = await upload(t, alice.token, alice.websiteId, 'notes.txt', Buffer.from('plain text'));
});
afterAll(() => t?.close());

const get = (media: any, query = '', headers: Record<string, string> = {}) => publicGet(t, publicUrl(alice.websiteId, media.id, query), headers);
const dims = async (bytes: Buffer) => {
  const m = await sharp(bytes).metadata();
  return { width: m.width, height: m.height, format: m.format };
};
/** Variant blobs stored for a media (local disk store). */
const variantFiles = async (media: any) =>
  readdir(join(t.config.dataDir, 'blobs', 'websites', alice.websiteId, 'media', media.id, 'variants')).catch(() => [] as string[]);

describe('public read', () => {
  it('without parameters answers the stored bytes without authentication, with ETag and CDN caching', async () => {
    const res = await get(photo);
    expect(res.statusCode).toBe(200);
    expect(Buffer.compare(res.bytes, photoBytes)).toBe(0);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['content-length']).toBe(String(photoBytes.length));
    expect(res.headers.etag).toMatch(/^"[^"]+"$/);
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the url field (with the filename) answers the same bytes; another filename is 404', async () => {
    const res = await publicGet(t, new URL(photo.url).pathname);
    expect(Buffer.compare(res.bytes, photoBytes)).toBe(0);
    expectError(await publicGet(t, `${publicUrl(alice.websiteId, photo.id)}/other.jpg`), 404, 'NOT_FOUND');
  });

  it('If-None-Match with the ETag answers 304 without a body, on originals and variants', async () => {
    for (const query of ['', '?w=100']) {
      const first = await get(photo, query);
      expect(first.statusCode).toBe(200);
      const again = await get(photo, query, { 'if-none-match': first.headers.etag as string });
      expectNoBody(again, 304);
      expect(again.headers.etag).toBe(first.headers.etag);
    }
    expect((await get(photo, '', { 'if-none-match': '"something-else"' })).statusCode).toBe(200);
  });

  it('every distinct variant has its own ETag', async () => {
    const tags = new Set<string>();
    for (const query of ['', '?w=100', '?w=101', '?w=100&fmt=webp', '?w=100&q=50']) tags.add((await get(photo, query)).headers.etag as string);
    expect(tags.size).toBe(5);
  });

  it('w alone fits the width, aspect kept', async () => {
    const res = await get(photo, '?w=200');
    expect(res.statusCode).toBe(200);
    expect(await dims(res.bytes)).toEqual({ width: 200, height: 150, format: 'jpeg' });
  });

  it('w and h fit inside the box, aspect kept', async () => {
    expect(await dims((await get(photo, '?w=100&h=100')).bytes)).toMatchObject({ width: 100, height: 75 });
    expect(await dims((await get(photo, '?h=60')).bytes)).toMatchObject({ width: 80, height: 60 });
  });

  it('never enlarges beyond the original unless enlarge is asked', async () => {
    expect(await dims((await get(photo, '?w=800')).bytes)).toMatchObject({ width: 400, height: 300 });
    expect(await dims((await get(photo, '?w=800&enlarge=1')).bytes)).toMatchObject({ width: 800, height: 600 });
  });

  it('crop outputs exactly w×h from the centre', async () => {
    expect(await dims((await get(photo, '?w=100&h=100&crop=1')).bytes)).toMatchObject({ width: 100, height: 100 });
    expect(await dims((await get(photo, '?w=50&h=120&crop=true')).bytes)).toMatchObject({ width: 50, height: 120 });
  });

  it('EXIF orientation is applied before resizing', async () => {
    expect(await dims((await get(rotated, '?w=100')).bytes)).toMatchObject({ width: 100, height: 150 });
  });

  it('fmt converts (jpeg, png, webp, avif) and the default is the stored format', async () => {
    for (const fmt of ['jpeg', 'png', 'webp', 'avif'] as const) {
      const res = await get(photo, `?w=40&fmt=${fmt}`);
      expect(res.headers['content-type']).toBe(`image/${fmt}`);
      expect((await dims(res.bytes)).format).toBe(fmt === 'avif' ? 'heif' : fmt);
    }
    const pngMedia = await upload(t, alice.token, alice.websiteId, 'p.png', await png(50, 40));
    const res = await get(pngMedia, '?w=25');
    expect(res.headers['content-type']).toBe('image/png');
    expect(await dims(res.bytes)).toEqual({ width: 25, height: 20, format: 'png' });
  });

  it('fmt=auto picks AVIF or WebP from Accept and varies on it', async () => {
    const avif = await get(photo, '?w=40&fmt=auto', { accept: 'image/avif,image/webp,*/*' });
    expect(avif.headers['content-type']).toBe('image/avif');
    expect(avif.headers.vary).toBe('Accept');
    expect((await get(photo, '?w=40&fmt=auto', { accept: 'image/webp,*/*' })).headers['content-type']).toBe('image/webp');
    expect((await get(photo, '?w=40&fmt=auto', { accept: '*/*' })).headers['content-type']).toBe('image/jpeg');
  });

  it('q changes the encoding (lower quality, fewer bytes); default is 85', async () => {
    const low = await get(photo, '?w=300&q=5');
    const high = await get(photo, '?w=300&q=100');
    expect(low.bytes.length).toBeLessThan(high.bytes.length);
    const byDefault = await get(photo, '?w=300');
    const explicit = await get(photo, '?w=300&q=85');
    expect(byDefault.headers.etag).toBe(explicit.headers.etag);
  });

  it('a variant is made once, stored, and served from storage afterwards', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'once.jpg', await jpeg(200, 200));
    expect(await variantFiles(media)).toEqual([]);
    const first = await get(media, '?w=50');
    await eventually(async () => expect(await variantFiles(media)).toHaveLength(1));
    const second = await get(media, '?w=50');
    expect(Buffer.compare(first.bytes, second.bytes)).toBe(0);
    expect(variantWrites.filter((key) => key.includes(media.id))).toHaveLength(1);
    expect(second.headers['content-length']).toBe(String(second.bytes.length));
  });

  it('concurrent requests for the same missing variant produce it once', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'burst.jpg', await jpeg(600, 400));
    const answers = await Promise.all(Array.from({ length: 8 }, () => get(media, '?w=123&fmt=webp')));
    for (const a of answers) expect(a.statusCode).toBe(200);
    expect(new Set(answers.map((a) => a.bytes.toString('base64'))).size).toBe(1);
    await eventually(async () => expect(await variantFiles(media)).toEqual(['w123h0q85.webp']));
    expect(variantWrites.filter((key) => key.includes(media.id))).toEqual([`websites/${alice.websiteId}/media/${media.id}/variants/w123h0q85.webp`]);
  });

  it('SVG is served as image/svg+xml with a sandboxing Content-Security-Policy and is never transformed', async () => {
    const res = await get(logo);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers['content-security-policy']).toContain('sandbox');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expectInvalid(await get(logo, '?w=10'), 'w');
  });

  it('transform parameters on a non-image answer 400 naming the parameter', async () => {
    expectInvalid(await get(textFile, '?w=10'), 'w');
    expectInvalid(await get(textFile, '?fmt=png'), 'fmt');
    expect((await get(textFile)).statusCode).toBe(200);
  });

  it('absent, deleted or another website\'s media answer 404 NOT_FOUND', async () => {
    expectError(await publicGet(t, publicUrl(alice.websiteId, 'aaaaaaaaaaaaaaaaaaaa')), 404, 'NOT_FOUND');
    expectError(await publicGet(t, publicUrl(bob.websiteId, photo.id)), 404, 'NOT_FOUND');
    expectError(await publicGet(t, publicUrl('nosuchsite', photo.id, '?w=10')), 404, 'NOT_FOUND');
    const doomed = await upload(t, alice.token, alice.websiteId, 'doomed.jpg', await jpeg(100, 100));
    expect((await get(doomed, '?w=10')).statusCode).toBe(200);
    expectNoBody(await t.request('DELETE', `${API}/websites/${alice.websiteId}/media/${doomed.id}`, { token: alice.token }), 204);
    expectError(await get(doomed), 404, 'NOT_FOUND');
    expectError(await get(doomed, '?w=10'), 404, 'NOT_FOUND');
  });

  it('deleting a media removes its original and every variant from blob storage', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'gone.jpg', await jpeg(100, 100));
    await get(media, '?w=10');
    await get(media, '?w=20&fmt=webp');
    const dir = join(t.config.dataDir, 'blobs', 'websites', alice.websiteId, 'media', media.id);
    await eventually(async () => expect(await variantFiles(media)).toHaveLength(2));
    expect((await readdir(dir)).sort()).toEqual(['original', 'variants']);
    expectNoBody(await t.request('DELETE', `${API}/websites/${alice.websiteId}/media/${media.id}`, { token: alice.token }), 204);
    await expect(readdir(dir)).rejects.toThrow(/ENOENT/);
  });
});

describe('invalid parameters answer 400 INVALID_ARGUMENT naming the parameter', () => {
  const cases: Array<[string, string]> = [
    ['w=0', 'w'],
    ['w=4097', 'w'],
    ['w=-5', 'w'],
    ['w=abc', 'w'],
    ['w=10.5', 'w'],
    ['w=', 'w'],
    ['h=0', 'h'],
    ['h=99999', 'h'],
    ['q=0', 'q'],
    ['q=101', 'q'],
    ['q=high', 'q'],
    ['crop=yes', 'crop'],
    ['crop=0', 'crop'],
    ['crop=1&w=10', 'crop'],
    ['crop=1&h=10', 'crop'],
    ['crop=1', 'crop'],
    ['fmt=gif', 'fmt'],
    ['fmt=JPEG', 'fmt'],
    ['fmt=', 'fmt'],
    ['enlarge=2', 'enlarge'],
    ['w=10&w=20', 'w'],
    // Hostile spellings: only plain decimal digits are numbers, only exact words are flags and formats.
    ['w=1e3', 'w'],
    ['w=0x10', 'w'],
    ['w=%2B5', 'w'],
    ['w=%205', 'w'],
    ['w=5%00', 'w'],
    ['w=99999999999999999999', 'w'],
    ['q=85.0', 'q'],
    ['crop=TRUE&w=5&h=5', 'crop'],
    ['enlarge=', 'enlarge'],
    ['fmt=webp,avif', 'fmt'],
    ['fmt=avif%00', 'fmt'],
    ['fmt=auto&fmt=avif', 'fmt'],
    // Beyond the enlargement bound (2048×2048 pixels by default), refused before any work.
    ['w=4096&h=4096&crop=1', 'w'],
    ['w=4096&enlarge=1', 'w'],
  ];
  for (const [query, field] of cases) {
    it(`?${query} is refused on ${field}`, async () => {
      expectInvalid(await get(photo, `?${query}`), field);
    });
  }

  it('the limits themselves are accepted: w=4096 with enlarge is too large for nothing, w=1 and q=1/100 work', async () => {
    expect((await get(photo, '?w=1&q=1')).statusCode).toBe(200);
    expect((await get(photo, '?h=4096&q=100')).statusCode).toBe(200);
  });

  it('the measured attack, a 16×12 image enlarged to 4096×4096 AVIF, is refused with the default bound; 2048×2048 is the most an enlargement makes', async () => {
    const tiny = await upload(t, alice.token, alice.websiteId, 'tiny.jpg', await jpeg(16, 12));
    const error = expectInvalid(await get(tiny, '?w=4096&h=4096&enlarge=1&fmt=avif'), 'w');
    expect(error.message).toContain(String(2048 * 2048));
    expectInvalid(await get(tiny, '?w=2049&h=2048&crop=1&fmt=avif'), 'h');
    expect(await dims((await get(tiny, '?w=2048&h=2048&crop=1&fmt=avif')).bytes)).toEqual({ width: 2048, height: 2048, format: 'heif' });
    // SPEC's range stays valid: without enlarging, w=4096 answers the original size.
    expect(await dims((await get(tiny, '?w=4096&h=4096&fmt=avif')).bytes)).toEqual({ width: 16, height: 12, format: 'heif' });
  });

  it('unknown parameters are ignored (cache busters)', async () => {
    const res = await get(photo, '?v=3');
    expect(res.statusCode).toBe(200);
    expect(Buffer.compare(res.bytes, photoBytes)).toBe(0);
  });
});

describe('tenant-side Get of a media', () => {
  it('Get needs authentication; another tenant answers 404', async () => {
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/media/${photo.id}`), 401, 'UNAUTHENTICATED');
    expectError(await t.request('GET', `${API}/websites/${alice.websiteId}/media/${photo.id}`, { token: bob.token }), 404, 'NOT_FOUND');
    expectStatus(await t.request('GET', `${API}/websites/${alice.websiteId}/media/${photo.id}`, { token: alice.token }), 200);
  });
});
