/**
 * Seeds analytics rows exactly as the collection (branch `ingest`, `POST /_site/event`) writes them:
 * one `analytics_events` row per hit and one `analytics_sessions` row per visit (entry/exit page,
 * page views, custom events, start/end, the visit's source/UTM/device/browser/os/view = its first
 * event's). The ingest's HTTP path is tested in its own file; these tests choose the instants.
 * After writing, it arms the roll-up chain the way the ingest's flush does (`armRollups`).
 */
import { createHash } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { DB } from '../../src/platform/db/schema.js';
import type { TestApp } from './app.js';
import { armRollups } from '../../src/analytics/rollups.js';

export interface SeedHit {
  /** ISO instant (UTC). */
  at: string;
  path: string;
  /** `pageview` (default) or a custom event name. */
  name?: string;
}

export interface SeedVisit {
  /** A label; the stored id is a SHA-256 hex prefix of it (like the ingest's daily hash). */
  visitor: string;
  hits: SeedHit[];
  source?: string | null;
  device?: string;
  browser?: string;
  os?: string;
  view_id?: string | null;
  utm_source?: string | null;
}

export const visitorIdOf = (label: string) => createHash('sha256').update(`visitor:${label}`).digest('hex').slice(0, 32);

let sequence = 0;

/** Writes the visits' events and sessions in one transaction and arms the roll-ups (answers whether a tick was enqueued). */
export async function seedVisits(t: TestApp, websiteId: string, accountId: string, visits: SeedVisit[], opts: { arm?: boolean } = {}): Promise<void> {
  const { db, dialect } = t.platform.deps.database;
  const events: Insertable<DB['analytics_events']>[] = [];
  const sessions: Insertable<DB['analytics_sessions']>[] = [];
  for (const visit of visits) {
    const sessionId = `s${++sequence}-${visit.visitor}`;
    const visitorId = visitorIdOf(visit.visitor);
    const common = {
      device: visit.device ?? 'desktop',
      browser: visit.browser ?? 'Chrome',
      os: visit.os ?? 'Linux',
      view_id: visit.view_id ?? null,
      referrer_source: visit.source ?? null,
      utm_source: visit.utm_source ?? null,
      utm_medium: null,
      utm_campaign: null,
      utm_term: null,
      utm_content: null,
    };
    const times = visit.hits.map((h) => Date.parse(h.at));
    const pageviews = visit.hits.filter((h) => (h.name ?? 'pageview') === 'pageview');
    visit.hits.forEach((hit, i) => {
      events.push({ website_id: websiteId, id: `e${++sequence}`, time: times[i], name: hit.name ?? 'pageview', path: hit.path, visitor_id: visitorId, session_id: sessionId, ...common });
    });
    sessions.push({
      website_id: websiteId,
      id: sessionId,
      visitor_id: visitorId,
      start_time: Math.min(...times),
      end_time: Math.max(...times),
      pageviews: pageviews.length,
      events: visit.hits.length - pageviews.length,
      entry_page: pageviews[0]?.path ?? visit.hits[0].path,
      exit_page: pageviews.at(-1)?.path ?? visit.hits[0].path,
      ...common,
    });
  }
  let armed = false;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < events.length; i += 500) await trx.insertInto('analytics_events').values(events.slice(i, i + 500)).execute();
    for (let i = 0; i < sessions.length; i += 500) await trx.insertInto('analytics_sessions').values(sessions.slice(i, i + 500)).execute();
    if (opts.arm) armed = await armRollups(trx, { operations: t.platform.operations, dialect }, websiteId, accountId, Date.now());
  });
  if (armed) t.platform.operations.wake();
}
