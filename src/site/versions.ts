import type { Database } from '../platform/db/database.js';
import { TtlCache } from '../platform/cache.js';
import { siteVersionOf } from './site.repo.js';

/**
 * How long one process reuses a website's content version before reading it again: the bound on
 * how long the rendered site may lag behind a committed write (docs/architecture.md, "Rendered
 * websites"). Every cached rendering is keyed by the version it was rendered under.
 */
export const SITE_VERSION_TTL_MS = 1_000;

export interface SiteVersions {
  /** The website's content version (`site_versions`, bumped by triggers in every writing transaction). */
  current(websiteId: string, now?: number): Promise<number>;
  /** `current` when it is in memory and fresh (no await needed); `undefined` otherwise. */
  known(websiteId: string, now?: number): number | undefined;
}

export function createSiteVersions(database: Database, ttlMs = SITE_VERSION_TTL_MS): SiteVersions {
  const cache = new TtlCache<string, { read: Promise<number>; version?: number }>(100_000, ttlMs);
  return {
    current(websiteId, now = Date.now()) {
      const cached = cache.get(websiteId, now);
      if (cached) return cached.read;
      // Concurrent requests of one website share the one read in flight.
      const entry: { read: Promise<number>; version?: number } = {
        read: siteVersionOf(database.db, websiteId).then((version) => (entry.version = version)),
      };
      cache.set(websiteId, entry, now);
      entry.read.catch(() => cache.get(websiteId, now) === entry && cache.delete(websiteId));
      return entry.read;
    },
    known: (websiteId, now = Date.now()) => cache.get(websiteId, now)?.version,
  };
}
