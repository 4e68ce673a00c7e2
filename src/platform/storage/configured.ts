import { join } from 'node:path';
import type { Config } from '../../config.js';
import { createDiskBlobStore, type BlobStore } from './blobs.js';
import { createS3BlobStore } from './s3-blobs.js';

/** The blob store `BLOB_STORE` names: local disk under `DATA_DIR/blobs` (default) or an S3 bucket. */
export function blobStoreFromConfig(config: Config): BlobStore {
  if (config.blobStore.kind === 's3') return createS3BlobStore(config.blobStore);
  return createDiskBlobStore(join(config.dataDir, 'blobs'));
}
