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
    `events: two more server processes on the same database and DATA_DIR (bench/events-server.ts, WORKER=off), events recorded and not, answer \`POST accounts/{a}/projects\` as the same user in ${ROUNDS} alternating rounds each (${CONNECTIONS} connections).`,
  ],
  async run(ctx) {
    const env: Record<string, string> = { DATA_DIR: ctx.dataDir, WORKER: 'off', ...(ctx.databaseUrl ? { DATABASE_URL: ctx.databaseUrl } : {}) };
    const servers: Record<'off' | 'on', ServerHandle> = {
      off: await startServer({ mainJs: SERVER_JS, cwd: ROOT, env: { ...env, BENCH_RECORD_EVENTS: 'off' } }),
      on: await startServer({ mainJs: SERVER_JS, cwd: ROOT, env: { ...env, BENCH_RECORD_EVENTS: 'on' } }),
    };
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        for (const mode of ['off', 'on'] as const) await measureRound(ctx, servers[mode], mode, round);
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
  try {
    const result = await hammer({ url, connections: CONNECTIONS, durationS: ctx.durationS, method: 'POST', body: JSON.stringify({ display_name: `Bench ${mode} ${round}` }), token: ctx.token });
    const statuses = Object.entries(result.statuses ?? {}).map(([code, n]) => `${code}: ${n}`).join(', ');
    ctx.report.rows.push({ ...row, result, notes: [`statuses ${statuses}`] });
    ctx.log(`${id}: ${result.reqPerSec.toFixed(1)} creates/s, p99 ${result.p99} ms (${statuses})`);
  } catch (err) {
    ctx.report.rows.push({ ...row, error: String(err) });
  }
}
