import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../platform/db/schema.js';
import { deleteSaltsBefore, insertSaltOnce, saltOfDay } from './analytics.repo.js';

/** Salts older than this many days are deleted: an id of the day before yesterday cannot be re-derived. */
export const SALT_KEEP_DAYS = 2;

/** `YYYY-MM-DD` of the UTC day of `now`. */
export const utcDay = (now: number): string => new Date(now).toISOString().slice(0, 10);

/**
 * Cookieless visitor ids (docs/decisions.md, "Analytics: cookieless visitor ids"): one random salt
 * per UTC day in `analytics_salts`, shared by every process (the first one to need it inserts it,
 * everyone reads the stored one), cached per process. A visitor id is
 * hex(SHA-256(salt ‖ website ‖ address ‖ user agent))[0..32): the same person on the same site and
 * day gets the same id, ids of two days never match, and the address cannot be recovered once the
 * salt is gone.
 */
export interface VisitorIds {
  /** The salt of `now`'s UTC day (created on first use; the first use of a day also purges old salts). */
  saltOf(now: number): Promise<string>;
  visitorId(salt: string, websiteId: string, address: string, userAgent: string): string;
}

export function createVisitorIds(db: Db): VisitorIds {
  // One entry per day in use (today, and yesterday for a few in-flight requests): tiny.
  const salts = new Map<string, Promise<string>>();
  let today = { start: 0, day: utcDay(0) };

  async function loadSalt(day: string, now: number): Promise<string> {
    await insertSaltOnce(db, day, randomBytes(32).toString('hex'), now);
    const salt = await saltOfDay(db, day);
    // Housekeeping, once per process and day: salts past SALT_KEEP_DAYS go.
    await deleteSaltsBefore(db, utcDay(now - SALT_KEEP_DAYS * 86_400_000));
    return salt;
  }

  return {
    saltOf(now) {
      // toISOString per hit shows in profiles: the day's string is reused until the day ends.
      if (now < today.start || now >= today.start + 86_400_000) today = { start: now - (now % 86_400_000), day: utcDay(now) };
      const day = today.day;
      let salt = salts.get(day);
      if (!salt) {
        salt = loadSalt(day, now);
        salts.set(day, salt);
        salt.catch(() => salts.delete(day));
        // Keep only the days still in use.
        for (const known of salts.keys()) if (known < utcDay(now - 86_400_000)) salts.delete(known);
      }
      return salt;
    },
    visitorId(salt, websiteId, address, userAgent) {
      return createHash('sha256').update(salt).update('\n').update(websiteId).update('\n').update(address).update('\n').update(userAgent).digest('hex').slice(0, 32);
    },
  };
}
