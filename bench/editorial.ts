/**
 * Editorial suite (issue 14), `BENCH_SUITES=editorial npm run bench`:
 *
 *   - `editorial_plan:refill` over a 90-day horizon with 3 slots a day (21 a week, about 270 slots)
 *     and a backlog of 10 000 READY items: the whole call over HTTP, on an empty calendar each time
 *     (entries deleted and items set READY again between runs, straight in the database);
 *   - the same call on a full calendar (idempotent: nothing to add).
 *
 * Target: p99 under 200 ms for both.
 */
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { apiClient, TENANT, waitForOperation } from './api.js';
import type { LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const ITEMS = 10_000;
const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'];

/** Runs statements on the server's database from outside (seeding and resetting between runs). */
async function sqlOn(ctx: SuiteContext, statements: string[], values: Record<string, unknown>): Promise<void> {
  if (ctx.dialect === 'sqlite') {
    const db = new SQLite(ctx.sqliteFile);
    try {
      db.pragma('busy_timeout = 30000');
      db.transaction(() => {
        for (const statement of statements) {
          const used = Object.fromEntries(Object.entries(values).filter(([k]) => statement.includes(`@${k}`)));
          db.prepare(statement).run(used);
        }
      })();
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: ctx.databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const statement of statements) {
      const order: unknown[] = [];
      const text = statement.replace(/@([a-z]+)/g, (_, key: string) => {
        order.push(values[key]);
        return `$${order.length}`;
      });
      await client.query(text, order);
    }
    await client.query('COMMIT');
    await client.query('VACUUM (ANALYZE) editorial_backlog_items, editorial_calendar_entries');
  } finally {
    await client.end();
  }
}

function stats(samples: number[]): LoadResult {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { requests: samples.length, reqPerSec: 0, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx: 0, errors: 0, timeouts: 0, statuses: { 200: samples.length } };
}

export const editorialSuite: BenchSuite = {
  id: 'editorial',
  targets: ['editorial: `editorial_plan:refill` over 90 days × 3 slots a day with a 10 000-item backlog, p99 under 200 ms (empty calendar and full calendar)'],
  setup: [
    'editorial: 10 000 READY backlog items seeded in one INSERT … SELECT; plan of 21 weekly slots (09:00, 13:00, 17:00 every day, Europe/Berlin), horizon 90 days; each empty-calendar run starts from no entries and every item READY',
  ],
  async run(ctx) {
    const api = apiClient(ctx.base, ctx.token);
    await waitForOperation(api, ctx.user.operation);
    const site = `${TENANT}/websites/${ctx.user.websiteId}`;
    const plan = await api.call('PATCH', `${site}/editorial_plan`, {
      slots: DAYS.flatMap((weekday) => ['09:00', '13:00', '17:00'].map((time) => ({ weekday, time }))),
      horizon_days: 90,
      time_zone: 'Europe/Berlin',
    });
    if (plan.status !== 200) throw new Error(`plan: ${plan.status} ${plan.text.slice(0, 300)}`);
    ctx.log(`${ctx.dialect}: editorial: seeding ${ITEMS} backlog items …`);
    const base = Date.UTC(2026, 0, 1);
    const series = ctx.dialect === 'sqlite' ? 'seq' : 'generate_series(1, 10000) AS s(n)';
    const seed = `INSERT INTO editorial_backlog_items (website_id, id, account_id, topic, keywords, priority, state, proposed_by, revision, create_time, update_time)
      ${ctx.dialect === 'sqlite' ? `WITH RECURSIVE seq(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM seq WHERE n < ${ITEMS}) ` : ''}
      SELECT @website, 'bench-item-' || n, @account, 'Topic ' || n, '[]'${ctx.dialect === 'postgres' ? '::jsonb' : ''}, n % 101, 'READY', 'users/bench', 1,
             ${base} + n * 1000, ${base} + n * 1000
      FROM ${series}`;
    const values = { website: ctx.user.websiteId, account: ctx.user.accountId };
    await sqlOn(ctx, [seed], values);
    await ctx.restart();
    // The restarted server listens elsewhere.
    const client = apiClient(ctx.base, ctx.token);
    const reset = [
      'DELETE FROM editorial_calendar_entries WHERE website_id = @website',
      "UPDATE editorial_backlog_items SET state = 'READY' WHERE website_id = @website AND state <> 'READY'",
    ];

    const runs = ctx.quick ? 5 : 15;
    const emptyRow: CaseRow = {
      id: 'editorial-refill-empty',
      label: `POST editorial_plan:refill, 90 days × 3 slots a day, 10 000-item backlog, empty calendar (${runs} runs)`,
      connections: 1,
      target: { kind: 'p99', maxMs: 200 },
      notes: ['one INSERT … SELECT pairing free slots (VALUES list from Intl) with READY items by ROW_NUMBER, ON CONFLICT (website_id, slot_time) DO NOTHING; one UPDATE of the booked items'],
    };
    const fullRow: CaseRow = {
      id: 'editorial-refill-full',
      label: `POST editorial_plan:refill on a full calendar (idempotent, nothing added; ${runs} runs)`,
      connections: 1,
      target: { kind: 'p99', maxMs: 200 },
      notes: [],
    };
    ctx.report.rows.push(emptyRow, fullRow);
    try {
      const empty: number[] = [];
      const full: number[] = [];
      let booked = 0;
      for (let i = 0; i < runs; i++) {
        await sqlOn(ctx, reset, values);
        const first = await client.call('POST', `${site}/editorial_plan:refill`, {});
        if (first.status !== 200) throw new Error(`refill: ${first.status} ${first.text.slice(0, 300)}`);
        booked = first.body.editorial_calendar_entries.length;
        empty.push(first.ms);
        const again = await client.call('POST', `${site}/editorial_plan:refill`, {});
        if (again.status !== 200 || again.body.editorial_calendar_entries.length !== 0) throw new Error(`second refill: ${again.status} ${again.text.slice(0, 300)}`);
        full.push(again.ms);
      }
      emptyRow.result = stats(empty);
      emptyRow.notes.push(`${booked} slots booked per run`);
      fullRow.result = stats(full);
    } catch (error) {
      emptyRow.error = fullRow.error = (error as Error).message;
    }
  },
};
