import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Where binary content lives (media originals and variants, AI image artifacts). Keys are
 * `/`-separated paths chosen by the areas (e.g. `websites/{w}/media/{id}/original`), so a prefix
 * names everything one resource owns.
 */
export interface BlobStore {
  /** Stores `body` under `key` atomically: readers see the old blob or the whole new one, never a part. */
  put(key: string, body: Readable | Buffer, opts: { contentType: string }): Promise<{ size: number }>;
  /** The blob as a stream, or undefined when absent. */
  get(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** Size of the blob, or undefined when absent. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes one blob; absent is fine. */
  delete(key: string): Promise<void>;
  /** Removes every blob whose key starts with `prefix` + `/` (and `prefix` itself). */
  deletePrefix(prefix: string): Promise<void>;
}

const KEY_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Keys come from our own code, never straight from a client; still, refuse anything path-like. */
export function checkBlobKey(key: string): void {
  if (!KEY_PATTERN.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
    throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
  }
}

/**
 * Local disk under one directory (the embedded default: `DATA_DIR/blobs`). A write goes to a
 * temporary file in the same directory and is renamed into place, which is atomic on POSIX.
 */
export function createDiskBlobStore(root: string): BlobStore {
  const base = resolve(root);
  const pathOf = (key: string) => {
    checkBlobKey(key);
    const path = join(base, ...key.split('/'));
    if (!path.startsWith(base + sep)) throw new Error(`blob key escapes the store: ${key}`);
    return path;
  };
  const sizeOf = async (path: string) => {
    try {
      const info = await stat(path);
      return info.isFile() ? info.size : undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  };

  return {
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const temp = `${path}.${randomBytes(6).toString('hex')}.partial`;
      try {
        await pipeline(Buffer.isBuffer(body) ? Readable.from([body]) : body, createWriteStream(temp, { flags: 'wx' }));
        const size = (await stat(temp)).size;
        await rename(temp, path);
        return { size };
      } catch (err) {
        await unlink(temp).catch(() => {});
        throw err;
      }
    },
    async get(key) {
      const path = pathOf(key);
      const size = await sizeOf(path);
      if (size === undefined) return undefined;
      return { stream: createReadStream(path), size };
    },
    async stat(key) {
      const size = await sizeOf(pathOf(key));
      return size === undefined ? undefined : { size };
    },
    async delete(key) {
      await rm(pathOf(key), { force: true });
    },
    async deletePrefix(prefix) {
      await rm(pathOf(prefix), { force: true, recursive: true });
    },
  };
}
