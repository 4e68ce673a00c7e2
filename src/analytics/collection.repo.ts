import type { Db, Trx } from '../platform/db/schema.js';
import type { BulkColumn, SqlDialect } from '../platform/db/database.js';
import { newId } from '../platform/resource/ids.js';

/** A visit goes on while its visitor's events are less than this apart (Plausible's 30 minutes). */
export const VISIT_GAP_MS = 30 * 60_000;
/** Visitor ids per read of open visits (one parameter each). */
const ROWS_PER_STATEMENT = 500;

/** One accepted page view or named event, as the ingest queues it (nothing personal: no address, no user agent). */
export interface Hit {
  websiteId: string;
  accountId: string;
  /** Epoch ms the server received it. */
  time: number;
  /** `pageview` or a custom event name. */
  name: string;
  path: string;
  visitorId: string;
  device: string;
  browser: string;
  os: string;
  viewId: string | null;
  referrerSource: string | null;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  utmTerm: string | null;
  utmContent: string | null;
}

/** Columns events and visits share (`dimensionsOf`). */
const DIMENSION_COLUMNS: BulkColumn[] = ['device', 'browser', 'os', 'view_id', 'referrer_source', 'utm_source', 'utm_medium', 'utm_campaign', 'utm_term', 'utm_content'].map((name) => ({ name, type: 'text' }));
const EVENT_COLUMNS: BulkColumn[] = [
  { name: 'website_id', type: 'text' },
  { name: 'id', type: 'text' },
  { name: 'time', type: 'bigint' },
  { name: 'name', type: 'text' },
  { name: 'path', type: 'text' },
  { name: 'visitor_id', type: 'text' },
  { name: 'session_id', type: 'text' },
  ...DIMENSION_COLUMNS,
];
const VISIT_COLUMNS: BulkColumn[] = [
  { name: 'website_id', type: 'text' },
  { name: 'id', type: 'text' },
  { name: 'visitor_id', type: 'text' },
  { name: 'start_time', type: 'bigint' },
  { name: 'end_time', type: 'bigint' },
  { name: 'pageviews', type: 'integer' },
  { name: 'events', type: 'integer' },
  { name: 'entry_page', type: 'text' },
  { name: 'exit_page', type: 'text' },
  ...DIMENSION_COLUMNS,
];

/** Makes sure the website's roll-ups will run (inside the flush's transaction); true when the worker should be woken after commit. */
export type ArmRollups = (trx: Db | Trx, websiteId: string, accountId: string) => Promise<boolean>;

/** An `analytics_sessions` row as the flush keeps it. */
interface Visit {
  website_id: string;
  id: string;
  visitor_id: string;
  start_time: number;
  end_time: number;
  pageviews: number;
  events: number;
  entry_page: string;
  exit_page: string;
  device: string;
  browser: string;
  os: string;
  view_id: string | null;
  referrer_source: string | null;
  utm_source: string | null;
  utm_medium: string | null;
  utm_campaign: string | null;
  utm_term: string | null;
  utm_content: string | null;
}

const chunks = <T>(items: T[], size = ROWS_PER_STATEMENT): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** The first event of a visit decides its source, view and device (docs/architecture.md, "Analytics: collection"). */
function startVisit(hit: Hit): Visit {
  return {
    website_id: hit.websiteId,
    id: newId(hit.time),
    visitor_id: hit.visitorId,
    start_time: hit.time,
    end_time: hit.time,
    pageviews: 0,
    events: 0,
    entry_page: hit.path,
    exit_page: hit.path,
    ...dimensionsOf(hit),
  };
}

/** The columns events and visits share, from a hit. */
function dimensionsOf(hit: Hit) {
  return {
    device: hit.device,
    browser: hit.browser,
    os: hit.os,
    view_id: hit.viewId,
    referrer_source: hit.referrerSource,
    utm_source: hit.utmSource,
    utm_medium: hit.utmMedium,
    utm_campaign: hit.utmCampaign,
    utm_term: hit.utmTerm,
    utm_content: hit.utmContent,
  };
}

/**
 * Stores one batch of hits of any number of websites in ONE transaction: the events (multi-row
 * inserts) and the visits they start or continue (one multi-row upsert of each touched visit's new
 * state). Per website, a transaction-scoped lock (`dialect.lockKey`, taken in website-id order so
 * two flushing processes never deadlock) serialises flushes of that website, and the open visits of
 * the batch's visitors are read in one query, so two processes cannot split a visit.
 * Statements per flush: per website 1 lock + ⌈visitors/500⌉ reads + the roll-up arm; then the
 * events and the visits through `dialect.insertRows` (PostgreSQL: one `unnest` statement each).
 */
export async function storeHits(db: Db | Trx, dialect: SqlDialect, hits: Hit[], arm: ArmRollups): Promise<boolean> {
  if (hits.length === 0) return false;
  const byWebsite = new Map<string, Hit[]>();
  for (const hit of hits) {
    const list = byWebsite.get(hit.websiteId);
    if (list) list.push(hit);
    else byWebsite.set(hit.websiteId, [hit]);
  }
  return db.transaction().execute(async (trx) => {
    let armed = false;
    const events: Record<string, unknown>[] = [];
    const touched: Visit[] = [];
    for (const websiteId of [...byWebsite.keys()].sort()) {
      await dialect.lockKey(trx, `analytics-visits:${websiteId}`);
      const batch = byWebsite.get(websiteId)!.sort((a, b) => a.time - b.time);
      const open = new Map<string, Visit>();
      const since = batch[0].time - VISIT_GAP_MS;
      for (const visitors of chunks([...new Set(batch.map((h) => h.visitorId))])) {
        // Index analytics_sessions_visitor (website_id, visitor_id, end_time); ascending, so each visitor's latest wins.
        const rows = await trx
          .selectFrom('analytics_sessions')
          .selectAll()
          .where('website_id', '=', websiteId)
          .where('visitor_id', 'in', visitors)
          .where('end_time', '>=', since)
          .orderBy('end_time')
          .execute();
        for (const row of rows) open.set(row.visitor_id, { ...row, start_time: Number(row.start_time), end_time: Number(row.end_time), pageviews: Number(row.pageviews), events: Number(row.events) });
      }
      const changed = new Set<Visit>();
      for (const hit of batch) {
        let visit = open.get(hit.visitorId);
        if (!visit || hit.time - visit.end_time >= VISIT_GAP_MS) {
          visit = startVisit(hit);
          open.set(hit.visitorId, visit);
        }
        visit.end_time = Math.max(visit.end_time, hit.time);
        if (hit.name === 'pageview') {
          // Entry page = the visit's first page view (a visit opened by a custom event takes its first page view's path).
          if (visit.pageviews === 0) visit.entry_page = hit.path;
          visit.pageviews += 1;
          visit.exit_page = hit.path;
        } else {
          visit.events += 1;
        }
        changed.add(visit);
        events.push({
          website_id: websiteId,
          id: newId(hit.time),
          time: hit.time,
          name: hit.name,
          path: hit.path,
          visitor_id: hit.visitorId,
          session_id: visit.id,
          ...dimensionsOf(hit),
        });
      }
      touched.push(...changed);
      // In the same transaction as the events, so no tick can end between them and the check.
      if (await arm(trx, websiteId, batch[0].accountId)) armed = true;
    }
    await dialect.insertRows(trx, 'analytics_events', EVENT_COLUMNS, events);
    // New visits are inserted, continued ones take their new state: one upsert for both. Each
    // visit appears once (PostgreSQL refuses a row touched twice by one statement).
    await dialect.insertRows(trx, 'analytics_sessions', VISIT_COLUMNS, touched as unknown as Record<string, unknown>[], {
      key: ['website_id', 'id'],
      update: ['end_time', 'pageviews', 'events', 'entry_page', 'exit_page'],
    });
    return armed;
  });
}
