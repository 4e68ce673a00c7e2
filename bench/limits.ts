/**
 * Cost of a shared limit check (issue 24): the tenant request limit (TENANT_RATE_LIMIT, one check per
 * request) is the hot one. Two extra server processes on the run's database and DATA_DIR, identical
 * but for TENANT_RATE_LIMIT (off, and 1 000 000 000 a minute: every request is checked, none is
 * refused), answer the same authenticated Get of a website in alternating rounds (off, on, off, on).
 * Reported per round: req/s, and CPU per request of the server process plus, on PostgreSQL, of the
 * database backends serving it (from /proc, so the upsert's cost on the server side is counted too).
 * On SQLite the check is the in-memory limiter (one process owns the file); on PostgreSQL it is one
 * `INSERT … ON CONFLICT DO UPDATE … RETURNING` on the user's row of `limit_counters`.
 *
 *   BENCH_SUITES=limits npm run bench      (BENCH_QUICK=1 for 2 s rounds; BENCH_DIALECTS=postgres for one)
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TENANT } from './api.js';
import { cpuMs, postgresBackends } from './cpu.js';
import { startServer, type ServerHandle } from './server.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_JS = join(ROOT, 'dist', 'src', 'main.js');
const ROUNDS = 2;

export const limitsSuite: BenchSuite = {
  id: 'limits',
  targets: ['limits: authenticated Get with the tenant limit checked (shared counter on PostgreSQL) within 10 % of the same Get without it (req/s, alternating rounds); CPU per request reported'],
  setup: [
    `limits: two more server processes on the same database and DATA_DIR, TENANT_RATE_LIMIT off and 1 000 000 000 (checked, never refused), answer \`GET websites/{w}\` as the same user in ${ROUNDS} alternating rounds each (50 connections, all on one user: the hot row). CPU per request = (server process + database backends) CPU time over the round ÷ requests answered, from /proc.`,
  ],
  async run(ctx) {
    const env: Record<string, string> = { DATA_DIR: ctx.dataDir, TRUST_PROXY: '127.0.0.1', WORKER: 'off', ...(ctx.databaseUrl ? { DATABASE_URL: ctx.databaseUrl } : {}) };
    const servers: Record<'off' | 'on', ServerHandle> = {
      off: await startServer({ mainJs: MAIN_JS, cwd: ROOT, env: { ...env, TENANT_RATE_LIMIT: '0' } }),
      on: await startServer({ mainJs: MAIN_JS, cwd: ROOT, env: { ...env, TENANT_RATE_LIMIT: '1000000000' } }),
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
  const url = `${server.baseUrl}${TENANT}/websites/${ctx.user.websiteId}`;
  // Every backend of the database (the other servers' are idle), also those opened during the round.
  const snapshot = async () => new Map([server.pid, ...(ctx.databaseUrl ? await postgresBackends(ctx.databaseUrl) : [])].map((pid) => [pid, cpuMs(pid) ?? 0]));
  const before = await snapshot();
  const row = await ctx.measure(
    `limits-get-${mode}-${round}`,
    `Get website, tenant limit ${mode === 'on' ? (ctx.dialect === 'postgres' ? 'checked (shared counter)' : 'checked (in memory)') : 'off'}, round ${round}`,
    url,
    mode === 'on' ? { target: { kind: 'relRate', baseline: `limits-get-off-${round}`, min: 0.9 } } : {},
  );
  const after = await snapshot();
  const spentBy = (pid: number, ms: number) => ms - (before.get(pid) ?? 0);
  const own = spentBy(server.pid, after.get(server.pid) ?? 0);
  const backends = [...after].reduce((sum, [pid, ms]) => (pid === server.pid ? sum : sum + spentBy(pid, ms)), 0);
  const answered = row.result?.requests ?? 0;
  if (answered > 0) {
    const per = (ms: number) => (ms / answered).toFixed(3);
    row.notes.push(
      `CPU per request ${per(own + backends)} ms: server process ${per(own)}${after.size > 1 ? ` + ${after.size - 1} database backends ${per(backends)}` : ''} (probes included)`,
    );
  }
}
