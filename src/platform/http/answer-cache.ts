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
 * Serialized answers of resource Gets, per process, valid while nothing was written to the database
 * (`Database.dataVersion`: any write of this process, any commit of another connection to the file).
 * A hit skips the row's read, its mapping and its serialization: what is left of a Get is
 * authentication, the access check (both cached the same way, under their topics' versions) and the
 * write of the answer. Only where such a version is cheap to know (SQLite); undefined elsewhere.
 *
 * Only answers that depend on the stored rows and the path alone go here (registerResourceRoutes
 * decides): the caller's access is checked before, on every request.
 */
export interface AnswerCache {
  load(key: string, read: () => Promise<CachedAnswer>): Promise<CachedAnswer>;
}

export function createAnswerCache(database: Database): AnswerCache | undefined {
  const dataVersion = database.dataVersion?.bind(database);
  if (!dataVersion) return undefined;
  const answers = new VersionedCache<string, CachedAnswer>({
    ...ANSWER_CACHE,
    sizeOf: (key, answer) => 64 + 2 * (key.length + answer.body.length + (answer.etag?.length ?? 0)),
  });
  return { load: (key, read) => answers.load(key, dataVersion, read) };
}
