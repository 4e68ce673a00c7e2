/**
 * Analytics query suite (issue 16), `BENCH_SUITES=analytics-query npm run bench`:
 *
 *   - seeds BENCH_ANALYTICS_EVENTS (default 10 000 000) raw events of one website over the last 12
 *     months, set-based (generate_series on PostgreSQL, a recursive CTE on SQLite), as visits of
 *     1 to 3 events (a third are bounces, a fifth end with a custom event) over 500 pages and
 *     events/6 visitor ids, and reports the seed time;
 *   - rolls every hour up with the real roll-up code (`rollUpHours`, in this process against the
 *     server's database), then merges the website's local days (`rollUpDays`), and reports both;
 *   - times `:query` over HTTP: 12 months by day (visitors, pageviews, visits, bounce_rate), the
 *     30-day top-10 pages, 30 days of visits filtered by page (raw visits), and compares the visitors of 30 days and 12 months with the exact
 *     distinct count of the raw rows (relative error of the merged sketches).
 *
 * Target: p99 under 200 ms for the 12-month series on both databases.
 */
import { createHash } from 'node:crypto';
import { openDatabase } from '../src/platform/db/database.js';
import { dynamic } from '../src/platform/db/dynamic.js';
import { rollUpDays, rollUpHours } from '../src/analytics/rollups.js';
import { apiClient, TENANT, waitForOperation } from './api.js';
import type { LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const EVENTS = Number(process.env.BENCH_ANALYTICS_EVENTS ?? 10_000_000);
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

function stats(samples: number[]): LoadResult {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { requests: samples.length, reqPerSec: 0, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx: 0, errors: 0, timeouts: 0, statuses: { 200: samples.length } };
}

/**
 * Visits n = 1..S (S = events / 2): start spread evenly over the year, 1 + n % 3 events a minute
 * apart (the last a custom `signup` when n % 5 = 0 and the visit has more than one), pages
 * `/page-{(n·31 + k) % 500}`, visitor `bench_visitors[(n·7919) % V]`.
 */
function seedStatements(dialect: 'sqlite' | 'postgres', sessions: number, visitors: number, start: number, span: number): string[] {
  const pg = dialect === 'postgres';
  const numbers = (n: string) => (pg ? `generate_series(1, ${n}) AS s(n)` : 'seq');
  const recursive = (n: string) => (pg ? '' : `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${n}) `);
  const startOf = `(${start} + (n * ${span}) / ${sessions})`;
  const hits = '(1 + n % 3)';
  const visitCols = `'desktop', CASE WHEN n % 4 = 0 THEN 'Firefox' ELSE 'Chrome' END, CASE WHEN n % 2 = 0 THEN 'Windows' ELSE 'macOS' END, NULL,
    CASE n % 4 WHEN 0 THEN NULL WHEN 1 THEN 'google.com' WHEN 2 THEN 'news.example' ELSE 'social.example' END, NULL, NULL, NULL, NULL, NULL`;
  const cols = 'device, browser, os, view_id, referrer_source, utm_source, utm_medium, utm_campaign, utm_term, utm_content';
  return [
    `INSERT INTO analytics_sessions (website_id, id, visitor_id, start_time, end_time, pageviews, events, entry_page, exit_page, ${cols})
     ${recursive(String(sessions))}
     SELECT @website, 'bs' || n, v.id, ${startOf}, ${startOf} + (${hits} - 1) * 60000,
            CASE WHEN ${hits} > 1 AND n % 5 = 0 THEN ${hits} - 1 ELSE ${hits} END, CASE WHEN ${hits} > 1 AND n % 5 = 0 THEN 1 ELSE 0 END,
            '/page-' || ((n * 31) % 500), '/page-' || ((n * 31 + ${hits} - 1) % 500), ${visitCols}
     FROM ${numbers(String(sessions))} JOIN bench_visitors v ON v.vk = (n * CAST(7919 AS bigint)) % ${visitors}`,
    `INSERT INTO analytics_events (website_id, id, time, name, path, visitor_id, session_id, ${cols})
     ${pg ? '' : `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${sessions}), hit(k) AS (SELECT 0 UNION ALL SELECT 1 UNION ALL SELECT 2) `}
     SELECT @website, 'be' || n || '-' || k, ${startOf} + k * 60000,
            CASE WHEN k = ${hits} - 1 AND k > 0 AND n % 5 = 0 THEN 'signup' ELSE 'pageview' END,
            '/page-' || ((n * 31 + k) % 500), v.id, 'bs' || n, ${visitCols}
     FROM ${numbers(String(sessions))} JOIN ${pg ? 'generate_series(0, 2) AS h(k)' : 'hit'} ON k < ${hits} JOIN bench_visitors v ON v.vk = (n * CAST(7919 AS bigint)) % ${visitors}`,
  ];
}

async function onDatabase(ctx: SuiteContext) {
  return openDatabase({ databaseUrl: ctx.dialect === 'postgres' ? ctx.databaseUrl : undefined, dataDir: ctx.dataDir, sqliteFile: ctx.sqliteFile });
}

export const analyticsQuerySuite: BenchSuite = {
  id: 'analytics-query',
  targets: ['analytics-query: `:query` 12 months by day (visitors, pageviews, visits, bounce_rate) over 10 000 000 events, p99 under 200 ms'],
  setup: [
    `analytics-query: ${EVENTS} events over the last 12 months seeded set-based, rolled up by the real roll-up code, then \`:query\` timed over HTTP (sequential runs)`,
  ],
  async run(ctx) {
    const api = apiClient(ctx.base, ctx.token);
    await waitForOperation(api, ctx.user.operation);
    const websiteId = ctx.user.websiteId;
    const seedRow: CaseRow = { id: 'analytics-seed', label: `seed ${EVENTS} events set-based, then roll up every hour with rollUpHours`, connections: 1, notes: [] };
    const yearRow: CaseRow = { id: 'analytics-12mo-day', label: ':query 12mo by day (visitors, pageviews, visits, bounce_rate)', connections: 1, target: { kind: 'p99', maxMs: 200 }, notes: [] };
    const pagesRow: CaseRow = { id: 'analytics-30d-pages', label: ':query 30d top 10 pages (visitors, pageviews)', connections: 1, notes: [] };
    const pageVisitsRow: CaseRow = { id: 'analytics-30d-page-visits', label: ':query 30d visits, pageviews, bounce_rate of pages containing /page-1 (raw visits, issue 23)', connections: 1, notes: [] };
    ctx.report.rows.push(seedRow, yearRow, pagesRow, pageVisitsRow);
    const database = await onDatabase(ctx);
    try {
      const sessions = Math.round(EVENTS / 2);
      const visitors = Math.max(1, Math.round(EVENTS / 6));
      const end = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 2 * HOUR_MS;
      const span = 365 * DAY_MS;
      const start = end - span;
      const { db } = database;
      ctx.log(`${ctx.dialect}: analytics-query: seeding ${EVENTS} events …`);
      const t0 = performance.now();
      await db.schema.dropTable('bench_visitors').ifExists().execute();
      await db.schema.createTable('bench_visitors').addColumn('vk', 'integer', (c) => c.primaryKey()).addColumn('id', 'text', (c) => c.notNull()).execute();
      for (let k = 0; k < visitors; k += 5000) {
        const rows = [];
        for (let i = k; i < Math.min(visitors, k + 5000); i++) rows.push({ vk: i, id: createHash('sha256').update(`bench-visitor-${i}`).digest('hex').slice(0, 32) });
        await dynamic(db).insertInto('bench_visitors').values(rows).execute(); // a scratch table, outside the schema
      }
      const { sql } = await import('kysely');
      for (const statement of seedStatements(ctx.dialect, sessions, visitors, start, span)) {
        await sql.raw(statement.replaceAll('@website', `'${websiteId}'`)).execute(db);
      }
      await db.insertInto('analytics_rollup_state').values({ website_id: websiteId, account_id: ctx.user.accountId, rolled_up_until: null, purged_before: null, tick_id: null, update_time: Date.now() }).execute();
      if (ctx.dialect === 'postgres') await sql.raw('ANALYZE analytics_events, analytics_sessions').execute(db);
      const seedS = (performance.now() - t0) / 1000;
      const counted = Number((await db.selectFrom('analytics_events').select(sql<number>`count(*)`.as('n')).where('website_id', '=', websiteId).executeTakeFirst())!.n);
      seedRow.notes.push(`seeded ${counted} events and ${sessions} visits in ${seedS.toFixed(1)} s (${Math.round(counted / seedS)} events/s)`);
      ctx.log(`${ctx.dialect}: analytics-query: seeded in ${seedS.toFixed(1)} s; rolling up …`);

      const t1 = performance.now();
      let rows = 0;
      for (let from = Math.floor(start / HOUR_MS) * HOUR_MS; from < end; from += 24 * HOUR_MS) rows += await rollUpHours(db, database.dialect, websiteId, { from, to: Math.min(end, from + 24 * HOUR_MS) }, Date.now());
      const rollS = (performance.now() - t1) / 1000;
      seedRow.notes.push(`roll-up: ${rows} roll-up rows for 8 760 hours in ${rollS.toFixed(1)} s (${Math.round(counted / rollS)} raw events/s)`);
      const t2 = performance.now();
      const daily = await rollUpDays(db, database.dialect, websiteId, Date.now(), Infinity);
      const dailyRows = Number((await db.selectFrom('analytics_daily_rollups').select(sql<number>`count(*)`.as('n')).where('website_id', '=', websiteId).executeTakeFirst())!.n);
      seedRow.notes.push(`daily roll-up: ${daily.days} local days, ${dailyRows} rows in ${((performance.now() - t2) / 1000).toFixed(1)} s`);
      if (ctx.dialect === 'postgres') await sql.raw('VACUUM (ANALYZE) analytics_rollups, analytics_daily_rollups, analytics_rollup_state').execute(db);
      await ctx.restart();

      const client = apiClient(ctx.base, ctx.token);
      const url = `${TENANT}/websites/${websiteId}/analytics:query`;
      const time = async (body: unknown, runs: number) => {
        const samples: number[] = [];
        let last: any;
        for (let i = 0; i < runs; i++) {
          const res = await client.call('POST', url, body);
          if (res.status !== 200) throw new Error(`query: ${res.status} ${res.text.slice(0, 300)}`);
          samples.push(res.ms);
          last = res.body;
        }
        return { samples, last };
      };
      const runs = ctx.quick ? 5 : 20;
      const year = await time({ metrics: ['visitors', 'pageviews', 'visits', 'bounce_rate'], date_range: '12mo', interval: 'day' }, runs);
      yearRow.result = stats(year.samples);
      yearRow.notes.push(`${year.last.rows.length} rows, approximate ${year.last.approximate}, totals ${JSON.stringify(year.last.totals)}`);
      const pages = await time({ metrics: ['visitors', 'pageviews'], date_range: '30d', dimensions: ['page'], limit: 10 }, runs);
      pagesRow.result = stats(pages.samples);
      pagesRow.notes.push(`top page ${JSON.stringify(pages.last.rows[0])}, approximate ${pages.last.approximate}`);

      // Visit metrics filtered by page come from raw visits (a visit counts once however many matching pages it viewed).
      const filter = { dimension: 'page', operator: 'CONTAINS', values: ['/page-1'] };
      const pageVisits = await time({ metrics: ['visits', 'pageviews', 'bounce_rate'], date_range: '30d', filters: [filter] }, runs);
      pageVisitsRow.result = stats(pageVisits.samples);
      const from = Date.parse(pageVisits.last.start_time);
      const to = Date.parse(pageVisits.last.end_time);
      const exactVisits = Number(
        (await db
          .selectFrom('analytics_sessions as s')
          .select(sql<number>`count(*)`.as('n'))
          .where('s.website_id', '=', websiteId)
          .where('s.start_time', '>=', from)
          .where('s.start_time', '<', to)
          .where(({ exists, selectFrom }) => exists(selectFrom('analytics_events as e').select('e.id').whereRef('e.website_id', '=', 's.website_id').whereRef('e.session_id', '=', 's.id').where('e.path', 'like', '%/page-1%')))
          .executeTakeFirst())!.n,
      );
      pageVisitsRow.notes.push(`totals ${JSON.stringify(pageVisits.last.totals)}; visits by SQL (visits started in the range with such a page) ${exactVisits}`);

      for (const range of ['30d', '12mo']) {
        const answer = (await time({ metrics: ['visitors'], date_range: range }, 1)).last;
        const exact = Number(
          (await db
            .selectFrom('analytics_events')
            .select(sql<number>`count(distinct visitor_id)`.as('n'))
            .where('website_id', '=', websiteId)
            .where('time', '>=', Date.parse(answer.start_time))
            .where('time', '<', Date.parse(answer.end_time))
            .executeTakeFirst())!.n,
        );
        const error = exact ? (answer.totals.visitors - exact) / exact : 0;
        yearRow.notes.push(`visitors ${range}: exact (COUNT DISTINCT of raw rows) ${exact}, :query ${answer.totals.visitors} (approximate ${answer.approximate}), relative error ${(error * 100).toFixed(2)} %`);
      }
    } catch (error) {
      seedRow.error = yearRow.error = pagesRow.error = pageVisitsRow.error = (error as Error).message;
    } finally {
      await database.db.schema.dropTable('bench_visitors').ifExists().execute().catch(() => undefined);
      await database.close();
    }
  },
};
