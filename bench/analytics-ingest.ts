/**
 * Analytics collection suite (issue 16), `BENCH_SUITES=analytics-ingest npm run bench`: single-event
 * page views POSTed to `/_site/event` of one website on loopback (`Host: {code}.localhost`), each
 * request from one of 2 000 visitors in turn (X-Forwarded-For over 2 000 addresses, the server trusting its
 * loopback proxy; 4 user agents; 50 paths), so the per-address budget does not limit the run.
 *
 * Reported: events/s accepted (202) with p50/p99 latency, and events/s actually stored: the
 * `analytics_events` rows written for the website between the start of the run and the moment the
 * ingest queue had been flushed, divided by that whole time (run + flush tail).
 */
import type autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { storeHits, type Hit } from '../src/analytics/collection.repo.js';
import { INGEST_DEFAULTS } from '../src/analytics/ingest.js';
import { armRollups } from '../src/analytics/rollups.js';
import { createOperations } from '../src/platform/jobs/operations.js';
import { openDatabase } from '../src/platform/db/database.js';
import { TENANT } from './api.js';
import { assertLoopback, hammer, type LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const ADDRESSES = 2_000;
const PATHS = 50;
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
];
const TARGET_STORED_PER_S = 5_000;
/** Events per request of the batched case (the endpoint takes up to 25). */
const BATCH = 10;

async function storedEvents(ctx: SuiteContext, websiteId: string): Promise<number> {
  if (ctx.dialect === 'sqlite') {
    const db = new SQLite(ctx.sqliteFile, { readonly: true });
    try {
      db.pragma('busy_timeout = 30000');
      return Number((db.prepare('select count(*) as n from analytics_events where website_id = ?').get(websiteId) as { n: number }).n);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    return Number((await client.query('select count(*) as n from analytics_events where website_id = $1', [websiteId])).rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * The write path alone, in this process against the server's database: full flush batches
 * (INGEST_DEFAULTS.maxBatch hits of 1 000 visitors, who continue their visits batch after batch)
 * through `storeHits`, one transaction each. Answers events/s.
 */
async function writePath(ctx: SuiteContext, websiteId: string, accountId: string, batches: number): Promise<number> {
  const database = openDatabase({ dataDir: ctx.dataDir, sqliteFile: ctx.sqliteFile, databaseUrl: ctx.databaseUrl });
  // Arms the roll-ups as the ingest does; the server's worker runs the ticks.
  const operations = createOperations({ database, logger: pino({ level: 'silent' }) });
  try {
    const visitors = Array.from({ length: 1_000 }, () => randomBytes(16).toString('hex'));
    const size = INGEST_DEFAULTS.maxBatch;
    const started = performance.now();
    for (let b = 0; b < batches; b++) {
      const now = Date.now();
      const hits: Hit[] = Array.from({ length: size }, (_, i) => ({
        websiteId,
        accountId,
        time: now + i,
        name: i % 10 === 9 ? 'Signup' : 'pageview',
        path: `/write-path-${i % PATHS}`,
        visitorId: visitors[i % visitors.length],
        device: 'desktop',
        browser: 'Firefox',
        os: 'Linux',
        viewId: null,
        referrerSource: 'example.org',
        utmSource: 'bench',
        utmMedium: null,
        utmCampaign: null,
        utmTerm: null,
        utmContent: null,
      }));
      await storeHits(database.db, database.dialect, hits, (trx, w, a) => armRollups(trx, { operations, dialect: database.dialect }, w, a, now));
    }
    return (batches * size) / ((performance.now() - started) / 1000);
  } finally {
    await database.close();
  }
}

/** POSTs of `perRequest` page views each, from 2 000 visitors (see the comment inside on how addresses rotate). */
function flood(ctx: SuiteContext, host: string, durationS: number, perRequest: number): Promise<LoadResult> {
  const url = `${ctx.base}/_site/event`;
  assertLoopback(url);
  const entries = Array.from({ length: ADDRESSES }, (_, n) => ({
    headers: {
      host,
      'content-type': 'text/plain;charset=UTF-8',
      'user-agent': USER_AGENTS[n % USER_AGENTS.length],
      'x-forwarded-for': `10.${n >> 16}.${(n >> 8) & 255}.${n & 255}`,
    },
    body: JSON.stringify({ events: Array.from({ length: perRequest }, (_, i) => ({ name: 'pageview', url: `http://${host}/page-${(n + i) % PATHS}?utm_source=bench`, referrer: 'https://www.example.org/' })) }),
  }));
  // One event per request: prebuilt requests, which every connection cycles from the first (a request
  // built per send makes the load generator, on the same cores, the bottleneck); an address then gets
  // `connections` requests per pass, well under its 10 events/s. Batches: each request takes the next
  // address of one rotation shared by all connections (built per send, ten events per build), so an
  // address spends at most 10 events/s below 2 000 requests/s.
  let next = 0;
  const requests: autocannon.Request[] =
    perRequest === 1
      ? entries.map((entry) => ({ method: 'POST', ...entry }))
      : [{ method: 'POST', setupRequest: (req) => ({ ...req, ...entries[next++ % ADDRESSES] }) }];
  return hammer({ url, connections: ctx.connections, durationS, requests });
}

/** One measured flood: events accepted, then the rows stored once the queue is flushed. */
async function ingestCase(ctx: SuiteContext, host: string, perRequest: number): Promise<CaseRow[]> {
  const before = await storedEvents(ctx, ctx.user.websiteId);
  ctx.log(`${ctx.dialect}: analytics ingest, ${perRequest} event(s) per request, for ${ctx.durationS} s …`);
  const result = await flood(ctx, host, ctx.durationS, perRequest);
  const runEnded = Date.now();
  const accepted = (result.statuses['202'] ?? 0) * perRequest;
  // The queue is written every 500 ms: wait until the count reaches what was accepted or stops moving.
  let stored = 0;
  let stillSince = Date.now();
  let finished = runEnded;
  for (;;) {
    const count = (await storedEvents(ctx, ctx.user.websiteId)) - before;
    if (count !== stored) {
      stored = count;
      stillSince = finished = Date.now();
    }
    if (stored >= accepted || Date.now() - stillSince > 3_000 || Date.now() - runEnded > 120_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Requests still in flight when autocannon stopped are stored but not counted as answered.
  const tailS = (finished - runEnded) / 1000;
  const storedPerS = stored / (ctx.durationS + tailS);
  const id = `analytics-ingest-${perRequest}`;
  const what = perRequest === 1 ? 'one page view' : `${perRequest} page views`;
  return [
    { id: `${id}-accepted`, label: `analytics: POST /_site/event, ${what} per request (accepted)`, connections: ctx.connections, result, notes: [`${accepted.toLocaleString('en-US')} events accepted (202) in ${ctx.durationS} s = ${Math.round(accepted / ctx.durationS).toLocaleString('en-US')} events/s`] },
    {
      id: `${id}-stored`,
      label: `analytics: events stored, ${what} per request (rows after the flush)`,
      connections: ctx.connections,
      result: { requests: stored, reqPerSec: storedPerS, p50: NaN, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0, statuses: {} },
      notes: [`${stored.toLocaleString('en-US')} rows (of ${accepted.toLocaleString('en-US')} accepted, plus those in flight at the end) within ${ctx.durationS} s + ${tailS.toFixed(1)} s flush tail = ${Math.round(storedPerS).toLocaleString('en-US')} events/s; target ≥ ${TARGET_STORED_PER_S.toLocaleString('en-US')}`],
    },
  ];
}

export const analyticsIngestSuite: BenchSuite = {
  id: 'analytics-ingest',
  targets: [`analytics collection: ≥ ${TARGET_STORED_PER_S.toLocaleString('en-US')} events/s stored (rows in analytics_events once the queue is flushed)`],
  setup: [
    `analytics-ingest: POST /_site/event with 1 (then ${BATCH}) page view(s) per request, Host {code}.localhost, X-Forwarded-For over ${ADDRESSES.toLocaleString('en-US')} addresses (TRUST_PROXY=127.0.0.1), ${USER_AGENTS.length} user agents, ${PATHS} paths; 1 s warm-up first; the site ceiling is GET /_site/insights.js on the same host; the write path alone is storeHits from the bench process on the server's database.`,
  ],
  async run(ctx) {
    const website = await ctx.api.call('GET', `${TENANT}/websites/${ctx.user.websiteId}`);
    const host = `${website.body.code}.localhost`;
    // The site surface's own cost per request: a trivial route of the same host (the script, from memory).
    const ceiling = await hammer({ url: `${ctx.base}/_site/insights.js`, headers: { host }, connections: ctx.connections, durationS: ctx.durationS });
    ctx.report.rows.push({ id: 'analytics-site-ceiling', label: 'analytics: site ceiling, GET /_site/insights.js (same host, same run)', connections: ctx.connections, result: ceiling, notes: [] });
    await flood(ctx, host, 1, 1);
    await new Promise((r) => setTimeout(r, 1_500));
    for (const perRequest of [1, BATCH]) {
      const rows = await ingestCase(ctx, host, perRequest);
      rows[0].notes.push(`${(rows[0].result!.reqPerSec / ceiling.reqPerSec).toFixed(2)}× the site ceiling (${Math.round(ceiling.reqPerSec).toLocaleString('en-US')} req/s)`);
      ctx.report.rows.push(...rows);
      ctx.log(`${ctx.dialect}: ${rows[0].notes.join('; ')}; ${rows[1].notes[0]}; p50 ${rows[0].result!.p50.toFixed(2)} ms p99 ${rows[0].result!.p99.toFixed(2)} ms; statuses ${JSON.stringify(rows[0].result!.statuses)}`);
    }
    const writeBatches = ctx.quick ? 3 : 10;
    const writePerS = await writePath(ctx, ctx.user.websiteId, ctx.user.accountId, writeBatches);
    const writeRow: CaseRow = {
      id: 'analytics-ingest-write-path',
      label: 'analytics: write path alone (storeHits, full batches)',
      connections: 1,
      notes: [`${writeBatches} batches of ${INGEST_DEFAULTS.maxBatch.toLocaleString('en-US')} hits (1 000 visitors continuing their visits, 1 in 10 a named event), one transaction each: ${Math.round(writePerS).toLocaleString('en-US')} events/s`],
    };
    ctx.report.rows.push(writeRow);
    ctx.log(`${ctx.dialect}: ${writeRow.notes[0]}`);
  },
};
