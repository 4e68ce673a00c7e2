import { join } from 'node:path';
import type { Config } from '../../config.js';
import { createDiskBlobStore, type BlobStore } from './blobs.js';
import type { S3BlobConfig } from './s3-blobs.js';

/** The blob store `BLOB_STORE` names: local disk under `DATA_DIR/blobs` (default) or an S3 bucket. */
export function blobStoreFromConfig(config: Config): BlobStore {
  if (config.blobStore.kind === 's3') return lazyS3BlobStore(config.blobStore);
  return createDiskBlobStore(join(config.dataDir, 'blobs'));
}

/**
 * The S3 store, with the AWS SDK loaded on first use: it is some 35 MB of a process's memory, which
 * a platform storing blobs on disk never needs (issue 24: idle RSS).
 */
function lazyS3BlobStore(config: S3BlobConfig): BlobStore {
  let store: Promise<BlobStore> | undefined;
  const load = () => (store ??= import('./s3-blobs.js').then((m) => m.createS3BlobStore(config)));
  return {
    put: async (key, body, opts) => (await load()).put(key, body, opts),
    get: async (key) => (await load()).get(key),
    stat: async (key) => (await load()).stat(key),
    delete: async (key) => (await load()).delete(key),
    deletePrefix: async (prefix) => (await load()).deletePrefix(prefix),
  };
}
