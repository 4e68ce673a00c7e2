/**
 * Cost of events on the write path (issue 27): every engine write also inserts its event row (and
 * bumps the events' change counter) in its transaction. Two extra server processes on the run's
 * database and DATA_DIR (bench/events-server.ts), identical but for `recordEvents`, answer the same
 * Create of a small resource (a project: one row, `project.created` in `account_events`) at 50
 * connections, in alternating rounds (off, on, off, on). Reported per round: creates/s (= events
 * written/s with events on) and p99; target: with events ≥ 0.9 × without.
 *
 *   BENCH_SUITES=events npm run bench      (BENCH_QUICK=1 for 2 s rounds; BENCH_DIALECTS=postgres for one)
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TENANT } from './api.js';
import { hammer } from './load.js';
import { startServer, type ServerHandle } from './server.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVER_JS = join(ROOT, 'dist', 'bench', 'events-server.js');
const ROUNDS = 2;
const CONNECTIONS = 50;

export const eventsSuite: BenchSuite = {
  id: 'events',
  targets: ['events: Create of a project (its event recorded in the same transaction) at 50 connections ≥ 0.9 × the same Creates with events off (creates/s, alternating rounds)'],
  setup: [
    `events: two more server processes on the same database and DATA_DIR (bench/events-server.ts, WORKER=off), events recorded and not, answer \`POST accounts/{a}/projects\` as the same user in ${ROUNDS} rounds each, ordered off, on, on, off (${CONNECTIONS} connections).`,
  ],
  async run(ctx) {
    const env: Record<string, string> = { DATA_DIR: ctx.dataDir, WORKER: 'off', ...(ctx.databaseUrl ? { DATABASE_URL: ctx.databaseUrl } : {}) };
    const on = await startServer({ mainJs: SERVER_JS, cwd: ROOT, env: { ...env, BENCH_RECORD_EVENTS: 'on' } });
    const off = await startServer({ mainJs: SERVER_JS, cwd: ROOT, env: { ...env, BENCH_RECORD_EVENTS: 'off' } });
    const servers: Record<'off' | 'on', ServerHandle> = { off, on };
    try {
      // off, on, on, off: a drift of the machine over the run weighs on both alike.
      for (let round = 1; round <= ROUNDS; round++) {
        for (const mode of round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) await measureRound(ctx, servers[mode], mode, round);
      }
    } finally {
      await servers.off.stop();
      await servers.on.stop();
    }
  },
};

async function measureRound(ctx: SuiteContext, server: ServerHandle, mode: 'off' | 'on', round: number): Promise<void> {
  const url = `${server.baseUrl}${TENANT}/accounts/${ctx.user.accountId}/projects`;
  const id = `events-create-${mode}-${round}`;
  const row = {
    id,
    label: `Create project, events ${mode === 'on' ? 'recorded' : 'off'}, round ${round}`,
    connections: CONNECTIONS,
    notes: [] as string[],
    ...(mode === 'on' && { target: { kind: 'relRate' as const, baseline: `events-create-off-${round}`, min: 0.9 } }),
  };
  const spent = async () => (await fetch(`${server.baseUrl}/_bench/events`)).json() as Promise<{ recordMs: number; records: number }>;
  try {
    const before = await spent();
    const result = await hammer({ url, connections: CONNECTIONS, durationS: ctx.durationS, method: 'POST', body: JSON.stringify({ display_name: `Bench ${mode} ${round}` }), token: ctx.token });
    const after = await spent();
    const statuses = Object.entries(result.statuses ?? {}).map(([code, n]) => `${code}: ${n}`).join(', ');
    const notes = [`statuses ${statuses}`];
    const events = after.records - before.records;
    if (events > 0) {
      // Closed loop: every connection always has one Create in flight, so the writes' time is connections × duration.
      const recordMs = after.recordMs - before.recordMs;
      notes.push(`${events} events, ${(recordMs / events).toFixed(2)} ms each inside \`events.record\` (wall): ${((100 * recordMs) / (CONNECTIONS * ctx.durationS * 1000)).toFixed(1)} % of the writes' time`);
    }
    ctx.report.rows.push({ ...row, result, notes });
    ctx.log(`${id}: ${notes.join('; ')}`);
    ctx.log(`${id}: ${result.reqPerSec.toFixed(1)} creates/s, p99 ${result.p99} ms (${statuses})`);
  } catch (err) {
    ctx.report.rows.push({ ...row, error: String(err) });
  }
}
