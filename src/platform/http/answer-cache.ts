import { VersionedCache } from '../cache.js';
import type { Database } from '../db/database.js';

/** A Get's answer as it went out: the serialized body and its etag. */
export interface CachedAnswer {
  body: string;
  etag: string | undefined;
}

// Bounded by bytes (a body is most of an entry): what the hottest resources of a process take.
const ANSWER_CACHE = { max: 20_000, maxBytes: 16 * 2 ** 20 };

/**
 * Serialized answers of resource Gets, per process, in one of two ways:
 *
 * - where the database has a cheap version (`Database.dataVersion`: SQLite, any write of this
 *   process and any commit of another connection to the file), `load` keeps the whole answer while
 *   nothing was written: a hit skips the row's read, its mapping and its serialization;
 * - elsewhere (PostgreSQL) the row is read every time, and `reuse` skips only the serialization when
 *   the resource's etag is the one of an answer already made: a strong etag changes with every write
 *   of the resource (and covers its computed fields where it has any), so equal etags are equal bodies.
 *
 * Only answers that depend on the stored rows and the path alone go here (registerResourceRoutes
 * decides); the caller's access is checked before, on every request.
 */
export interface AnswerCache {
  load?(key: string, read: () => Promise<CachedAnswer>): Promise<CachedAnswer>;
  /** Where `load` exists: the answer kept for `key` under the current version, without a promise. */
  peek?(key: string): CachedAnswer | undefined;
  /** The body already made for `etag` under `key`, else `serialize()`'s (then kept). */
  reuse(key: string, etag: string, serialize: () => string): string;
}

export function createAnswerCache(database: Database): AnswerCache {
  const answers = new VersionedCache<string, CachedAnswer>({
    ...ANSWER_CACHE,
    sizeOf: (key, answer) => 64 + 2 * (key.length + answer.body.length + (answer.etag?.length ?? 0)),
  });
  const dataVersion = database.dataVersion?.bind(database);
  return {
    ...(dataVersion && {
      load: (key: string, read: () => Promise<CachedAnswer>) => answers.load(key, dataVersion, read),
      peek: (key: string) => answers.peek(key, dataVersion),
    }),
    reuse(key, etag, serialize) {
      // One version for every entry: here the etag, not the version, says whether the body is current.
      const known = answers.get(key, 0);
      if (known?.etag === etag) return known.body;
      const body = serialize();
      answers.set(key, { body, etag }, 0);
      return body;
    },
  };
}
