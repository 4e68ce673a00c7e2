/**
 * The S3 blob backend (`BLOB_STORE=s3`) with the real AWS SDK against a local S3-compatible server
 * (s3rver on loopback), started by this test: the blob contract (atomic writes, prefix deletes)
 * and the media area end to end on it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiskBlobStore, type BlobStore } from '../../src/platform/storage/blobs.js';
import { createS3BlobStore } from '../../src/platform/storage/s3-blobs.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { API, expectError, expectNoBody } from '../support/fixtures.js';
import { eventually, jpeg, publicGet, publicUrl, upload } from '../support/media.js';

const BUCKET = 'platform-media';
let server: S3rver;
let dir: string;
let endpoint: string;
let s3: S3Client;
let t: TestApp;
let alice: TestUser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 's3rver-'));
  server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  t = await startTestApp({
    BLOB_STORE: 's3',
    S3_ENDPOINT: endpoint,
    S3_BUCKET: BUCKET,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  });
  alice = await t.signUp();
});
afterAll(async () => {
  await t?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const keysUnder = async (prefix: string) => {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }));
  return (page.Contents ?? []).map((o) => o.Key!).sort();
};
const text = async (blob: { stream: Readable } | undefined) => {
  const chunks: Buffer[] = [];
  for await (const c of blob!.stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
};
/** A stream that yields some bytes, then fails: an upload cut off half-way. */
const failingStream = () =>
  Readable.from(
    (async function* () {
      yield Buffer.from('half of a ');
      throw new Error('connection lost');
    })(),
  );

/** The same contract for both backends. */
function contract(name: string, store: () => BlobStore) {
  describe(`${name} blob store`, () => {
    it('put from a Buffer and from a stream, get, stat, delete', async () => {
      const blobs = store();
      expect(await blobs.put('c/one', Buffer.from('hello'), { contentType: 'text/plain' })).toEqual({ size: 5 });
      expect(await blobs.put('c/two', Readable.from([Buffer.from('stre'), Buffer.from('amed')]), { contentType: 'text/plain' })).toEqual({ size: 8 });
      expect(await text(await blobs.get('c/two'))).toBe('streamed');
      expect(await blobs.stat('c/one')).toEqual({ size: 5 });
      expect((await blobs.get('c/one'))!.size).toBe(5);
      await blobs.delete('c/one');
      expect(await blobs.get('c/one')).toBeUndefined();
      expect(await blobs.stat('c/one')).toBeUndefined();
      await blobs.delete('c/one');
    });

    it('a write that fails half-way leaves no blob, or the previous one whole', async () => {
      const blobs = store();
      await expect(blobs.put('atomic/new', failingStream(), { contentType: 'text/plain' })).rejects.toThrow();
      expect(await blobs.get('atomic/new')).toBeUndefined();
      await blobs.put('atomic/old', Buffer.from('previous'), { contentType: 'text/plain' });
      await expect(blobs.put('atomic/old', failingStream(), { contentType: 'text/plain' })).rejects.toThrow();
      expect(await text(await blobs.get('atomic/old'))).toBe('previous');
    });

    it('deletePrefix removes everything under the prefix and nothing beside it', async () => {
      const blobs = store();
      for (const key of ['p/a/original', 'p/a/variants/x', 'p/a/variants/y', 'p/ab/original', 'p/b/original']) {
        await blobs.put(key, Buffer.from(key), { contentType: 'text/plain' });
      }
      await blobs.deletePrefix('p/a');
      for (const key of ['p/a/original', 'p/a/variants/x', 'p/a/variants/y']) expect(await blobs.stat(key)).toBeUndefined();
      expect(await blobs.stat('p/ab/original')).toEqual({ size: 'p/ab/original'.length });
      expect(await blobs.stat('p/b/original')).toBeDefined();
    });

    it('path-like keys are refused', async () => {
      await expect(store().put('../x', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/invalid blob key/);
    });
  });
}

contract('S3', () => createS3BlobStore({ endpoint, bucket: BUCKET, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, keyPrefix: 'contract/' }));
contract('disk', () => createDiskBlobStore(join(dir, 'disk-contract')));

describe('media on S3', () => {
  it('an upload stores its original in the bucket; reads and variants are served from it', async () => {
    const bytes = await jpeg(300, 200);
    const media = await upload(t, alice.token, alice.websiteId, 'on-s3.jpg', bytes);
    const prefix = `websites/${alice.websiteId}/media/${media.id}/`;
    expect(await keysUnder(prefix)).toEqual([`${prefix}original`]);
    expect(media.storage_path).toBe(`${prefix}original`);

    const original = await publicGet(t, publicUrl(alice.websiteId, media.id));
    expect(original.statusCode).toBe(200);
    expect(Buffer.compare(original.bytes, bytes)).toBe(0);

    const variant = await publicGet(t, publicUrl(alice.websiteId, media.id, '?w=90&fmt=webp'));
    expect(variant.statusCode).toBe(200);
    expect(await sharp(variant.bytes).metadata()).toMatchObject({ width: 90, height: 60, format: 'webp' });
    await eventually(async () => expect(await keysUnder(prefix)).toEqual([`${prefix}original`, `${prefix}variants/w90h0q85.webp`]));
    const again = await publicGet(t, publicUrl(alice.websiteId, media.id, '?w=90&fmt=webp'));
    expect(Buffer.compare(again.bytes, variant.bytes)).toBe(0);
  });

  it('deleting a media removes its original and variants from the bucket', async () => {
    const media = await upload(t, alice.token, alice.websiteId, 'gone.jpg', await jpeg(100, 100));
    await publicGet(t, publicUrl(alice.websiteId, media.id, '?w=10'));
    const prefix = `websites/${alice.websiteId}/media/${media.id}/`;
    await eventually(async () => expect(await keysUnder(prefix)).toHaveLength(2));
    expectNoBody(await t.request('DELETE', `${API}/websites/${alice.websiteId}/media/${media.id}`, { token: alice.token }), 204);
    expect(await keysUnder(prefix)).toEqual([]);
    expectError(await publicGet(t, publicUrl(alice.websiteId, media.id)), 404, 'NOT_FOUND');
  });
});
