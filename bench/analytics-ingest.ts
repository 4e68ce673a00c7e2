/**
 * Analytics collection suite (issue 16), `BENCH_SUITES=analytics-ingest npm run bench`: single-event
 * page views POSTed to `/_site/event` of one website on loopback (`Host: {code}.localhost`), each
 * request from another visitor (X-Forwarded-For over 50 000 addresses, the server trusting its
 * loopback proxy; 4 user agents; 50 paths), so the per-address budget does not limit the run.
 *
 * Reported: events/s accepted (202) with p50/p99 latency, and events/s actually stored: the
 * `analytics_events` rows written for the website between the start of the run and the moment the
 * ingest queue had been flushed, divided by that whole time (run + flush tail).
 */
import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { TENANT } from './api.js';
import { assertLoopback, type LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const ADDRESSES = 50_000;
const PATHS = 50;
const USER_AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
];
const TARGET_STORED_PER_S = 5_000;

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

/** autocannon POSTing one page view per request, each from another address (its own loop: the shared `hammer` sends one fixed request). */
function flood(ctx: SuiteContext, host: string, durationS: number): Promise<LoadResult> {
  const url = `${ctx.base}/_site/event`;
  assertLoopback(url);
  let n = 0;
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections: ctx.connections,
        duration: durationS,
        timeout: Math.max(30, durationS * 3),
        requests: [
          {
            method: 'POST',
            setupRequest: (req: Record<string, unknown>) => {
              n += 1;
              const address = n % ADDRESSES;
              return {
                ...req,
                headers: {
                  host,
                  'content-type': 'text/plain;charset=UTF-8',
                  'user-agent': USER_AGENTS[n % USER_AGENTS.length],
                  'x-forwarded-for': `10.${address >> 16}.${(address >> 8) & 255}.${address & 255}`,
                },
                body: JSON.stringify({ events: [{ name: 'pageview', url: `http://${host}/page-${n % PATHS}?utm_source=bench`, referrer: 'https://www.example.org/' }] }),
              };
            },
          },
        ],
      } as never,
      (error: Error | null, result: autocannon.Result) => {
        if (error) return reject(error);
        const sorted = Float64Array.from(latencies).sort();
        const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] : NaN);
        const statuses: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
        resolve({
          requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
          reqPerSec: result.requests.average,
          p50: at(0.5),
          p99: at(0.99),
          max: sorted.length ? sorted[sorted.length - 1] : NaN,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
        });
      },
    );
    (instance as unknown as EventEmitter).on('response', (...args: unknown[]) => {
      const status = Number(args[1]);
      const ms = Number(args[3]);
      if (status >= 200 && status < 300 && Number.isFinite(ms)) latencies.push(ms);
    });
  });
}

export const analyticsIngestSuite: BenchSuite = {
  id: 'analytics-ingest',
  targets: [`analytics collection: ≥ ${TARGET_STORED_PER_S.toLocaleString('en-US')} events/s stored (rows in analytics_events once the queue is flushed)`],
  setup: [
    `analytics-ingest: POST /_site/event with one page view per request, Host {code}.localhost, X-Forwarded-For over ${ADDRESSES.toLocaleString('en-US')} addresses (TRUST_PROXY=127.0.0.1), ${USER_AGENTS.length} user agents, ${PATHS} paths; 1 s warm-up first.`,
  ],
  async run(ctx) {
    const website = await ctx.api.call('GET', `${TENANT}/websites/${ctx.user.websiteId}`);
    const host = `${website.body.code}.localhost`;
    await flood(ctx, host, 1);
    // Let the warm-up's queue flush, then count from a still baseline.
    await new Promise((r) => setTimeout(r, 1_500));
    const before = await storedEvents(ctx, ctx.user.websiteId);
    ctx.log(`${ctx.dialect}: analytics ingest for ${ctx.durationS} s …`);
    const started = Date.now();
    const result = await flood(ctx, host, ctx.durationS);
    const runEnded = Date.now();
    const accepted = result.statuses['202'] ?? 0;
    // The queue is written every 500 ms: wait until the count stops moving (or reaches what was accepted).
    let stored = 0;
    let stillSince = Date.now();
    let finished = runEnded;
    for (;;) {
      const now = (await storedEvents(ctx, ctx.user.websiteId)) - before;
      if (now !== stored) {
        stored = now;
        stillSince = Date.now();
        finished = stillSince;
      }
      if (stored >= accepted || Date.now() - stillSince > 3_000 || Date.now() - runEnded > 120_000) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const totalS = (finished - started) / 1000;
    const storedPerS = stored / totalS;
    const acceptedRow: CaseRow = {
      id: 'analytics-ingest-accepted',
      label: 'analytics: POST /_site/event, one page view (accepted)',
      connections: ctx.connections,
      result,
      notes: [`${accepted.toLocaleString('en-US')} accepted (202) in ${ctx.durationS} s = ${Math.round(accepted / ctx.durationS).toLocaleString('en-US')} events/s`],
    };
    const storedRow: CaseRow = {
      id: 'analytics-ingest-stored',
      label: 'analytics: events stored (rows after the flush)',
      connections: ctx.connections,
      result: { requests: stored, reqPerSec: storedPerS, p50: NaN, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0, statuses: {} },
      notes: [
        `${stored.toLocaleString('en-US')} of ${accepted.toLocaleString('en-US')} accepted stored within ${totalS.toFixed(1)} s (run + ${((finished - runEnded) / 1000).toFixed(1)} s flush tail) = ${Math.round(storedPerS).toLocaleString('en-US')} events/s; target ≥ ${TARGET_STORED_PER_S.toLocaleString('en-US')}`,
      ],
    };
    ctx.report.rows.push(acceptedRow, storedRow);
    ctx.log(`${ctx.dialect}: ${acceptedRow.notes[0]}; ${storedRow.notes[0]}; p50 ${result.p50.toFixed(2)} ms p99 ${result.p99.toFixed(2)} ms; statuses ${JSON.stringify(result.statuses)}`);
  },
};
