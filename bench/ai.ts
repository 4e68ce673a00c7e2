/**
 * AI executions under load (issue 4, scale): how many runs the API accepts per second (`POST
 * .../ai_executions`, workers off so runs stay queued), and end-to-end runs per second against the
 * stand-in provider with 1 and 2 `npm run worker` processes (`node dist/src/worker-main.js`).
 *
 * Part of `npm run bench` (alone: `BENCH_SUITES=ai npm run bench`).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { createDatabase, databaseUrl, dropDatabase } from '../test/support/postgres-admin.js';
import { startProviderStandin, standinEnv } from '../test/support/provider-standin.js';
import { apiClient, signUp, TENANT, type Api } from './api.js';
import { delay, startServer } from './server.js';
import type { LoadResult } from './load.js';
import type { BenchSuite } from './suites.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_JS = join(ROOT, 'dist', 'src', 'main.js');
const WORKER_JS = join(ROOT, 'dist', 'src', 'worker-main.js');

export interface AiBenchRow {
  label: string;
  value: string;
  note: string;
  /** Runs (or requests) the figure rests on. */
  count: number;
}

async function post(api: Api, path: string, body: unknown, status: number): Promise<any> {
  const answer = await api.call('POST', path, body);
  if (answer.status !== status) throw new Error(`POST ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
  return answer.body;
}

function startWorker(env: Record<string, string>): { stop(): Promise<void> } {
  const child = spawn(process.execPath, [WORKER_JS], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, delay(15_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

/** Runs in `state` of the account (total_size of a filtered first page). */
async function countRuns(api: Api, accountId: string, filter: string): Promise<number> {
  const answer = await api.call('GET', `${TENANT}/accounts/${accountId}/ai_executions?page_size=1&filter=${encodeURIComponent(filter)}`);
  return Number(answer.body?.total_size ?? 0);
}

/** One dialect: create rate, then end-to-end drain rates with 1 and 2 worker processes. */
export async function runAiBench(opts: { dialect: 'sqlite' | 'postgres'; adminUrl?: string; quick: boolean; durationS: number; log: (m: string) => void }): Promise<AiBenchRow[]> {
  const rows: AiBenchRow[] = [];
  const tmp = mkdtempSync(join(tmpdir(), `siteplatform-aibench-${opts.dialect}-`));
  const standin = await startProviderStandin();
  const dataDir = join(tmp, 'data');
  mkdirSync(dataDir);
  const env: Record<string, string> = { ...standinEnv(standin), DATA_DIR: dataDir, AI_STARTING_CREDIT: '100000', WORKER: 'off' };
  let dbName: string | undefined;
  if (opts.dialect === 'postgres') {
    dbName = `aibench_${randomBytes(4).toString('hex')}`;
    await createDatabase(opts.adminUrl!, dbName);
    env.DATABASE_URL = databaseUrl(opts.adminUrl!, dbName);
  }
  const server = await startServer({ mainJs: MAIN_JS, cwd: ROOT, env });
  try {
    const api = apiClient(server.baseUrl);
    // Sign-up provisions a website in the background: a worker runs it, then leaves.
    const provisioner = startWorker(env);
    const user = await signUp(api);
    await provisioner.stop();
    const runsPath = `${TENANT}/accounts/${user.accountId}/ai_executions`;
    const instruction = await post(api, `${TENANT}/accounts/${user.accountId}/ai_instructions`, { display_name: 'Bench', variables: ['topic'], content: 'Write one line about {{topic}}.' }, 201);
    const agent = await post(api, `${TENANT}/accounts/${user.accountId}/ai_agents`, { display_name: 'Bench', instruction_id: instruction.id, preferred_model_id: 'gpt-5-mini', max_tokens: 100 }, 201);
    const body = { agent_id: agent.id, input: { variables: { topic: 'bread' } } };

    // End to end: queue N runs with no worker running, then start the workers and time the drain.
    const batch = opts.quick ? 200 : 1000;
    const FINAL = 'state = SUCCEEDED OR state = FAILED OR state = CANCELLED OR state = EXPIRED';
    for (const workers of [1, 2]) {
      const finalBefore = await countRuns(api, user.accountId, FINAL);
      const failedBefore = await countRuns(api, user.accountId, 'state = FAILED');
      for (let i = 0; i < batch; i += 20) await Promise.all(Array.from({ length: Math.min(20, batch - i) }, () => post(api, runsPath, body, 201)));
      const started = performance.now();
      const procs = Array.from({ length: workers }, () => startWorker(env));
      let done = 0;
      try {
        while (done < batch && performance.now() - started < 300_000) {
          await delay(100);
          done = (await countRuns(api, user.accountId, FINAL)) - finalBefore;
        }
      } finally {
        await Promise.all(procs.map((p) => p.stop()));
      }
      const seconds = (performance.now() - started) / 1000;
      const failed = (await countRuns(api, user.accountId, 'state = FAILED')) - failedBefore;
      rows.push({
        label: `end-to-end runs/s, ${workers} worker process${workers > 1 ? 'es' : ''}`,
        value: ((done - failed) / seconds).toFixed(1),
        count: done,
        note: `${batch} queued runs; ${done - failed} SUCCEEDED, ${failed} FAILED${done < batch ? `, ${batch - done} unfinished after 300 s (FLAGGED)` : ''} in ${seconds.toFixed(1)} s (WORKER_CONCURRENCY=4 each, includes worker start-up)`,
      });
      opts.log(`ai ${opts.dialect}: ${rows[rows.length - 1].label}: ${rows[rows.length - 1].value} (${rows[rows.length - 1].note})`);
    }

    // Create rate: POST /ai_executions at 10 connections, workers off (runs stay QUEUED).
    const result = await new Promise<autocannon.Result>((resolveRun, reject) =>
      autocannon(
        {
          url: `${server.baseUrl}${runsPath}`,
          method: 'POST',
          connections: 10,
          duration: opts.durationS,
          headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
        (error, res) => (error ? reject(error) : resolveRun(res)),
      ),
    );
    rows.push({
      label: 'executions created/s (POST, 10 connections)',
      value: result.requests.average.toFixed(0),
      count: result['2xx'],
      note: `${result['2xx']} created in ${opts.durationS} s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms${result.non2xx ? `, ${result.non2xx} non-2xx (FLAGGED)` : ''}`,
    });
    opts.log(`ai ${opts.dialect}: ${rows[rows.length - 1].label}: ${rows[rows.length - 1].value}`);
  } finally {
    await server.stop();
    await standin.close();
    if (dbName) await dropDatabase(opts.adminUrl!, dbName).catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
  return rows;
}

/** A throughput row for the main report (values measured here, not by autocannon's GET runner). */
function rateRow(id: string, label: string, perSecond: number, count: number, notes: string[]): import('./report.js').CaseRow {
  const result: LoadResult = { requests: count, reqPerSec: perSecond, p50: NaN, p99: NaN, max: NaN, non2xx: 0, errors: 0, timeouts: 0, statuses: {} };
  return { id, label, connections: 1, result, notes };
}

/**
 * `npm run bench` suite `ai`: runs on a server and database of its own (workers off, worker processes
 * started by the suite), next to the dialect's main server.
 */
export const aiSuite: BenchSuite = {
  id: 'ai',
  targets: ['AI executions: created/s and end-to-end runs/s with 1 and 2 worker processes are reported without a target (`ai-*`).'],
  async run(ctx) {
    let adminUrl: string | undefined;
    if (ctx.dialect === 'postgres' && ctx.databaseUrl) {
      const url = new URL(ctx.databaseUrl);
      url.pathname = '/postgres';
      adminUrl = url.toString();
    }
    const rows = await runAiBench({ dialect: ctx.dialect, adminUrl, quick: ctx.quick, durationS: ctx.durationS, log: ctx.log });
    rows.forEach((row, i) => ctx.report.rows.push(rateRow(`ai-${i + 1}`, row.label, Number(row.value), row.count, [row.note])));
  },
};
