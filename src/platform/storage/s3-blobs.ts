import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { checkBlobKey, type BlobStore } from './blobs.js';

/** Where and how to reach an S3-compatible bucket (docs/configuration.md, `S3_*`). */
export interface S3BlobConfig {
  /** e.g. `https://s3.eu-central-1.amazonaws.com`, a MinIO or R2 URL; undefined: AWS's default for the region. */
  endpoint?: string;
  bucket: string;
  region: string;
  /** Undefined: the SDK's default credential chain (environment, instance role, ...). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key` (MinIO and most self-hosted stores). */
  forcePathStyle: boolean;
  /** Prepended to every key, e.g. `platform/`, to share a bucket. */
  keyPrefix?: string;
}

/** Streams of unknown length go up in parts of this size; at most two parts are held at once. */
const PART_SIZE = 8 * 1024 * 1024;

function isMissing(err: unknown): boolean {
  if (err instanceof S3ServiceException) return err.name === 'NoSuchKey' || err.name === 'NotFound' || err.$metadata?.httpStatusCode === 404;
  return false;
}

/**
 * Blobs in an S3-compatible bucket. An object becomes visible only once its upload completed
 * (single PUT, or the multipart upload's completion), so readers never see half a blob.
 */
export function createS3BlobStore(config: S3BlobConfig, client?: S3Client): BlobStore {
  const s3 =
    client ??
    new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      credentials: config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
      // Checksums only where S3 requires them: several S3-compatible stores refuse the newer
      // default trailing checksums of streamed uploads.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  const Bucket = config.bucket;
  const prefix = config.keyPrefix ?? '';
  const keyOf = (key: string) => {
    checkBlobKey(key);
    return prefix + key;
  };

  async function deleteKeys(keys: string[]): Promise<void> {
    // DeleteObjects takes at most 1000 keys per call.
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      const answer = await s3.send(new DeleteObjectsCommand({ Bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
      if (answer.Errors?.length) throw new Error(`S3 refused to delete ${answer.Errors.length} objects, e.g. ${answer.Errors[0].Key}: ${answer.Errors[0].Code}`);
    }
  }

  return {
    async put(key, body, opts) {
      const Key = keyOf(key);
      if (Buffer.isBuffer(body)) {
        await s3.send(new PutObjectCommand({ Bucket, Key, Body: body, ContentLength: body.length, ContentType: opts.contentType }));
        return { size: body.length };
      }
      let size = 0;
      const counted = body.on('data', (chunk: Buffer) => {
        size += chunk.length;
      });
      const upload = new Upload({ client: s3, params: { Bucket, Key, Body: counted, ContentType: opts.contentType }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
      await upload.done();
      return { size };
    },

    async get(key) {
      try {
        const answer = await s3.send(new GetObjectCommand({ Bucket, Key: keyOf(key) }));
        // why (the cast): the SDK's web stream type and Node's differ in name only.
        const stream = answer.Body instanceof Readable ? answer.Body : Readable.fromWeb(answer.Body!.transformToWebStream() as never);
        return { stream, size: Number(answer.ContentLength ?? 0) };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async stat(key) {
      try {
        const answer = await s3.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return { size: Number(answer.ContentLength ?? 0) };
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },

    async delete(key) {
      await s3.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },

    async deletePrefix(key) {
      const Prefix = `${keyOf(key)}/`;
      let ContinuationToken: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken }));
        const keys = (page.Contents ?? []).map((o) => o.Key!).filter(Boolean);
        if (keys.length) await deleteKeys(keys);
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
      await s3.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },
  };
}
