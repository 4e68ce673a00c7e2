/**
 * `npm run bench`: starts the platform as a child process and measures it with autocannon on loopback,
 * on SQLite and on PostgreSQL, in one run:
 *
 *   - the ceiling: a bare Fastify route (`GET /healthz`) on the same server;
 *   - authenticated Get of website-scoped resources;
 *   - List with a filter and `order_by` (first page, which counts total_size) at the small and the large
 *     row count, and a later page of the same token chain at the large one (the token carries the count);
 *   - cheap Gets while another client hammers a heavy List, against the same Gets unloaded.
 *
 * Prints a table per dialect and overwrites docs/performance.md. Targets are reported, never asserted.
 *
 *   BENCH_QUICK=1            2 s per case, 10 000 / 100 000 rows (smoke run)
 *   BENCH_DIALECTS=sqlite    which dialects, comma-separated (default: sqlite,postgres)
 *   BENCH_DURATION=10        seconds per case (full run)
 *   BENCH_POSTGRES_URL=…     superuser URL of an existing PostgreSQL server (default: a throwaway one)
 *   BENCH_SUITES=foundation,customers   which suites run (default: all; see bench/suites.ts), e.g.
 *                            `BENCH_SUITES=lists` for the List of every collection at 100 000 rows (bench/lists.ts)
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { findPostgresBinaries, startThrowawayPostgres, type RunningPostgres } from '../test/support/postgres-server.js';
import { createDatabase, databaseUrl, dropDatabase } from '../test/support/postgres-admin.js';
import { apiClient, createAccount, signUp, TENANT, type Api } from './api.js';
import { perRequestUs, postgresBackends, sampleCpu } from './cpu.js';
import { drain, hammer, type LoadResult } from './load.js';
import { countLabel, markdownNotes, markdownTable, textTable, verdictOf, type CaseRow, type DialectReport, type Target } from './report.js';
import { countProjects, midCreateTime, seedPostgres, seedSqlite, type SeedSpec } from './seed.js';
import { startServer, type ServerHandle } from './server.js';
import { SUITES, suiteSelected, type MeasureOptions, type SuiteContext } from './suites.js';

type Dialect = 'sqlite' | 'postgres';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN_JS = join(ROOT, 'dist', 'src', 'main.js');
// BENCH_DOC: write the report elsewhere (e.g. one suite's run, whose figures go into a hand-kept section).
const DOC = process.env.BENCH_DOC ?? join(ROOT, 'docs', 'performance.md');

function flag(name: string): boolean {
  const v = process.env[name] ?? '';
  return v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

const QUICK = flag('BENCH_QUICK');
const SMALL = QUICK ? 10_000 : 100_000;
const LARGE = QUICK ? 100_000 : 1_000_000;
const DURATION_S = QUICK ? 2 : Math.max(1, Number(process.env.BENCH_DURATION ?? 10));
const WARMUP_S = QUICK ? 1 : 3;
const CONNECTIONS = 50;
const LOAD_CONNECTIONS = 10;
/** Concurrency of the List latency runs: a few clients paging at once (see measureList). */
const LATENCY_CONNECTIONS = 4;
/** How deep the token chain is walked before its page is hammered. */
const CHAIN_DEPTH = 20;
const PAGE_SIZE = 50;
const DIALECTS: Dialect[] = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres')
  .split(',')
  .map((d) => d.trim().toLowerCase())
  .filter(Boolean)
  .map((d) => {
    if (d === 'pg' || d === 'postgresql') return 'postgres';
    if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d} (sqlite, postgres)`);
    return d;
  });

/** Cleanups still owed, run in reverse on the way out (also on SIGINT/SIGTERM). */
const cleanups: Array<() => Promise<void> | void> = [];

async function runCleanups(): Promise<void> {
  while (cleanups.length) {
    const fn = cleanups.pop()!;
    try {
      await fn();
    } catch (error) {
      console.error('cleanup failed:', error);
    }
  }
}

function log(message: string): void {
  console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);
}

function loud(message: string): void {
  const rule = '!'.repeat(Math.min(100, message.length + 8));
  console.error(`\n${rule}\n!!! ${message}\n${rule}\n`);
}

// ---------------------------------------------------------------------------------------------
// Machine description

function tryRun(file: string, args: string[]): string | undefined {
  try {
    return execFileSync(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'], timeout: 5_000 }).toString().trim();
  } catch {
    return undefined;
  }
}

function machine(): Record<string, string> {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpuModel = m[1].trim();
  } catch {
    // not Linux: os.cpus() it is
  }
  const sqliteDb = new SQLite(':memory:');
  const sqliteVersion = (sqliteDb.prepare('select sqlite_version() as v').get() as { v: string }).v;
  sqliteDb.close();
  const commit = tryRun('git', ['rev-parse', '--short', 'HEAD']);
  const dirty = tryRun('git', ['status', '--porcelain', '--untracked-files=no']);
  return {
    nproc: tryRun('nproc', []) ?? String(cpus().length),
    cpu: cpuModel,
    memory: `${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    node: process.version,
    sqlite: sqliteVersion,
    commit: commit ? `${commit}${dirty ? ' (with uncommitted changes)' : ''}` : 'unknown',
  };
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

interface PostgresServer {
  adminUrl: string;
  source: string;
  stop(): Promise<void>;
}

async function acquirePostgres(): Promise<PostgresServer | string> {
  const given = process.env.BENCH_POSTGRES_URL;
  if (given) {
    const host = new URL(given).hostname;
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') return `BENCH_POSTGRES_URL must point at loopback, not ${host}`;
    return { adminUrl: given, source: 'BENCH_POSTGRES_URL', stop: async () => {} };
  }
  const binaries = findPostgresBinaries();
  if (!binaries) return 'no PostgreSQL server binaries (initdb, pg_ctl) in /usr/lib/postgresql/*/bin or PATH, and BENCH_POSTGRES_URL is unset';
  let server: RunningPostgres;
  try {
    server = await startThrowawayPostgres(binaries);
  } catch (error) {
    return `could not start a throwaway PostgreSQL server: ${(error as Error).message}`;
  }
  return { adminUrl: server.url, source: `throwaway cluster (${binaries.initdb.replace(/\/initdb$/, '')}, fsync off)`, stop: () => server.stop() };
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
    return rows[0].v;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// One dialect

function listUrl(base: string, accountId: string, query: { filter: string; order_by: string; page_token?: string }): string {
  const params = new URLSearchParams({ filter: query.filter, order_by: query.order_by, page_size: String(PAGE_SIZE) });
  if (query.page_token) params.set('page_token', query.page_token);
  return `${base}${TENANT}/accounts/${accountId}/projects?${params.toString()}`;
}

async function getJson(url: string, token: string): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(120_000) });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

async function runDialect(dialect: Dialect, pgServer: PostgresServer | undefined): Promise<DialectReport> {
  const report: DialectReport = {
    dialect,
    title: dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL',
    status: 'ran',
    rows: [],
    info: [],
    serverProblems: [],
  };
  const started = Date.now();
  const loadStart = loadavg()[0].toFixed(2);
  const tmp = mkdtempSync(join(tmpdir(), `siteplatform-bench-${dialect}-`));
  cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  const dataDir = join(tmp, 'data');
  mkdirSync(dataDir);

  // The loopback client is a trusted proxy: the analytics-ingest suite plays many visitors through X-Forwarded-For.
  // The webhooks suite's receiver listens on loopback, which webhooks may reach only when allowed.
  const env: Record<string, string> = { DATA_DIR: dataDir, TRUST_PROXY: '127.0.0.1', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' };
  let dbUrl: string | undefined;
  if (dialect === 'postgres') {
    if (!pgServer) throw new Error('no PostgreSQL server');
    const name = `bench_${randomBytes(4).toString('hex')}`;
    await createDatabase(pgServer.adminUrl, name);
    cleanups.push(() => dropDatabase(pgServer.adminUrl, name));
    dbUrl = databaseUrl(pgServer.adminUrl, name);
    env.DATABASE_URL = dbUrl;
    report.info.push(`PostgreSQL ${await postgresVersion(dbUrl)}, ${pgServer.source}; server pool PG_POOL_MAX=${process.env.PG_POOL_MAX ?? '10 (default)'}`);
  } else {
    report.info.push(`SQLite file in a fresh DATA_DIR (WAL); server SQLITE_READERS=${process.env.SQLITE_READERS ?? '(default)'}`);
  }

  let server: ServerHandle | undefined;
  const start = async () => {
    const t0 = Date.now();
    server = await startServer({ mainJs: MAIN_JS, cwd: ROOT, env });
    const handle = server;
    cleanups.push(handle.stop);
    log(`${dialect}: server pid ${handle.pid} ready at ${handle.baseUrl} in ${Date.now() - t0} ms`);
    return handle;
  };
  const stopServer = async () => {
    if (!server) return;
    report.serverProblems.push(...server.problemLines());
    await server.stop();
    const idx = cleanups.lastIndexOf(server.stop);
    if (idx >= 0) cleanups.splice(idx, 1);
    server = undefined;
  };

  try {
    // 1. Migrate (the server does it on start), sign up, second account.
    let s = await start();
    const api: Api = apiClient(s.baseUrl);
    const user = await signUp(api);
    const largeAccount = await createAccount(api, 'Bench large');
    log(`${dialect}: signed up (account ${user.accountId}, website ${user.websiteId}); large account ${largeAccount}`);

    // 2. Seed in the database directly (foundation cases), 3. restart, so the server measured is a
    // fresh process that sees the statistics from the start.
    const small: SeedSpec = { accountId: user.accountId, count: SMALL, idPrefix: 'bench-s-', baseMs: Date.UTC(2024, 0, 1), stepMs: 30_000 };
    const large: SeedSpec = { accountId: largeAccount, count: LARGE, idPrefix: 'bench-l-', baseMs: Date.UTC(2024, 0, 1), stepMs: 30_000 };
    const sqliteFile = join(dataDir, 'platform.sqlite');
    if (suiteSelected('foundation')) {
      const t0 = Date.now();
      if (dialect === 'sqlite') seedSqlite(sqliteFile, [small, large]);
      else await seedPostgres(dbUrl!, [small, large]);
      const seeded = { small: await countProjects(dialect, dialect === 'sqlite' ? sqliteFile : dbUrl!, small.accountId), large: await countProjects(dialect, dialect === 'sqlite' ? sqliteFile : dbUrl!, large.accountId) };
      const seedS = ((Date.now() - t0) / 1000).toFixed(1);
      report.info.push(
        `seeded ${seeded.small.toLocaleString('en-US')} + ${seeded.large.toLocaleString('en-US')} projects in ${seedS} s (${dialect === 'sqlite' ? 'recursive CTE, ANALYZE, WAL checkpoint' : 'generate_series, VACUUM (ANALYZE)'}); the small account also holds the sign-up's own project`,
      );
      log(`${dialect}: seeded ${seeded.small} + ${seeded.large} projects in ${seedS} s`);
      await stopServer();
      s = await start();
    }
    let base = s.baseUrl;
    const token = user.token;

    const check = await getJson(`${base}${TENANT}/websites/${user.websiteId}`, token);
    if (check.status !== 200) throw new Error(`Get website after restart: ${check.status} ${check.text.slice(0, 300)}`);

    // After each case: /readyz (write connection) and a one-row List of the caller's accounts (read path).
    const drainProbes = [{ path: '/readyz' }, { path: `${TENANT}/accounts?page_size=1`, token }];

    // 4. Warm-up (not recorded): JIT, connection pools, caches.
    await hammer({ url: `${base}/healthz`, connections: CONNECTIONS, durationS: WARMUP_S });
    await hammer({ url: `${base}${TENANT}/websites/${user.websiteId}`, token, connections: CONNECTIONS, durationS: WARMUP_S });
    await drain(base, drainProbes);

    const measure = async (id: string, label: string, url: string, opts: MeasureOptions = {}): Promise<CaseRow> => {
      const row: CaseRow = { id, label, connections: opts.connections ?? CONNECTIONS, target: opts.target, notes: [...(opts.notes ?? [])] };
      report.rows.push(row);
      try {
        // Sequential probes first: each must answer 200; lists tell what they matched; their times are the
        // service time of one request without queueing (bounded: at most 10 requests or about 5 s).
        const probeStart = Date.now();
        const times: number[] = [];
        const probes = opts.probes ?? 10;
        for (let i = 0; i < probes && (i < 3 || Date.now() - probeStart < 5_000); i++) {
          const t0 = performance.now();
          const probe = await getJson(url, opts.auth === false ? '' : (opts.token ?? token));
          times.push(performance.now() - t0);
          if (probe.status !== 200) throw new Error(`probe answered ${probe.status}: ${probe.text.slice(0, 300)}`);
          if (i === 0 && probe.body && typeof probe.body.total_size === 'number') {
            row.notes.unshift(`total_size ${probe.body.total_size.toLocaleString('en-US')}, ${(Object.values(probe.body).find(Array.isArray) as unknown[] | undefined)?.length ?? 0} items/page`);
          }
        }
        times.sort((a, b) => a - b);
        row.notes.push(`one request at a time: median ${fmtMs(times[Math.floor((times.length - 1) / 2)])} ms, max ${fmtMs(times[times.length - 1])} ms (${times.length} sequential requests before the run)`);
        log(`${dialect}: ${label} …`);
        // CPU per response of the server (and its PostgreSQL backends) and of this load generator, from /proc.
        const backends = dbUrl ? await postgresBackends(dbUrl).catch(() => []) : [];
        const cpu0 = await sampleCpu(s.pid, backends);
        row.result = await hammer({ url, token: opts.auth === false ? undefined : (opts.token ?? token), connections: row.connections, durationS: opts.durationS ?? DURATION_S });
        const cpu = perRequestUs(cpu0, await sampleCpu(s.pid, backends), row.result.requests);
        row.notes.push(`CPU per request: server ${cpu.server.toFixed(0)} µs${dbUrl ? ` + PostgreSQL backends ${cpu.backends.toFixed(0)} µs` : ''}; load generator ${cpu.client.toFixed(0)} µs`);
        summarise(row.result);
      } catch (error) {
        row.error = (error as Error).message;
        log(`${dialect}: ${label} failed: ${row.error}`);
      }
      const waited = await drain(base, drainProbes);
      if (waited > 1_000) row.notes.push(`server took ${(waited / 1000).toFixed(1)} s to work off in-flight requests afterwards`);
      return row;
    };

    const getWebsite = `${base}${TENANT}/websites/${user.websiteId}`;
    const getOperation = `${base}${TENANT}/${user.operation}`;
    const contains = { filter: 'display_name:"shop"', order_by: 'display_name desc' };
    const byTime = (spec: SeedSpec) => ({ filter: `create_time > "${midCreateTime(spec)}"`, order_by: 'create_time desc' });
    const S = countLabel(SMALL);
    const L = countLabel(LARGE);

    /**
     * A List case twice: at full concurrency for throughput, and at LATENCY_CONNECTIONS for its
     * latency target (at 50 connections a p99 is mostly queueing: ≈ connections ÷ req/s).
     */
    const measureList = async (id: string, label: string, url: string, opts: { target?: Target; notes?: string[] } = {}) => {
      await measure(`${id}-throughput`, `${label} (throughput)`, url, { notes: opts.notes });
      await measure(id, `${label} (latency)`, url, { ...opts, connections: LATENCY_CONNECTIONS });
    };

    if (suiteSelected('foundation')) {
      // 5. The cases.
      await measure('ceiling', 'ceiling: GET /healthz', `${base}/healthz`, { auth: false });
      await measure('get-website', 'Get websites/{w}', getWebsite, { target: { kind: 'ratio', min: 0.4 } });
      await measure('get-operation', 'Get websites/{w}/operations/{o}', getOperation, { target: { kind: 'ratio', min: 0.4 } });
      await measureList('list-s-contains', `List ${S}: display_name:"shop", display_name desc, first page`, listUrl(base, small.accountId, contains), {
        target: { kind: 'p99', maxMs: 20 },
      });
      await measureList('list-s-time', `List ${S}: create_time > mid, create_time desc, first page`, listUrl(base, small.accountId, byTime(small)), {
        target: { kind: 'p99', maxMs: 20 },
      });
      await measureList('list-l-contains', `List ${L}: display_name:"shop", display_name desc, first page`, listUrl(base, large.accountId, contains));
      await measureList('list-l-time', `List ${L}: create_time > mid, create_time desc, first page`, listUrl(base, large.accountId, byTime(large)));

      for (const [id, query, what] of [
        ['page-l-contains', contains, 'display_name:"shop", display_name desc'],
        ['page-l-time', byTime(large), 'create_time > mid, create_time desc'],
      ] as const) {
        const chain = await walkChain(base, token, large.accountId, query);
        const label = `List ${L}: ${what}, page ${chain.depth + 1}`;
        if (!chain.token) {
          report.rows.push({ id, label, connections: CONNECTIONS, notes: [], error: chain.error ?? 'no next_page_token' });
          continue;
        }
        await measureList(id, label, listUrl(base, large.accountId, { ...query, page_token: chain.token }), {
          target: { kind: 'p99', maxMs: 10 },
          notes: [`token chain walked ${chain.depth} pages sequentially first (${chain.ms.map((m) => Math.round(m)).join(', ')} ms)`],
        });
      }

      // Cheap Gets with and without a concurrent heavy List (10 connections each).
      await measure('get-unloaded', `Get websites/{w}, unloaded`, getWebsite, { connections: LOAD_CONNECTIONS });
      for (const [id, query, what] of [
        ['time', byTime(large), 'create_time > mid'],
        ['contains', contains, 'display_name:"shop"'],
      ] as const) {
        const listLoad = listUrl(base, large.accountId, query);
        const getRow: CaseRow = {
          id: `get-loaded-${id}`,
          label: `Get websites/{w}, under List ${L} ${what} load`,
          connections: LOAD_CONNECTIONS,
          target: { kind: 'relP99', baseline: 'get-unloaded', factor: 3 },
          notes: [],
        };
        const loadRow: CaseRow = { id: `load-${id}`, label: `  … the List ${L} ${what} first-page load itself`, connections: LOAD_CONNECTIONS, notes: [] };
        report.rows.push(getRow, loadRow);
        log(`${dialect}: ${getRow.label} …`);
        try {
          const [gets, lists] = await Promise.all([
            hammer({ url: getWebsite, token, connections: LOAD_CONNECTIONS, durationS: DURATION_S }),
            hammer({ url: listLoad, token, connections: LOAD_CONNECTIONS, durationS: DURATION_S }),
          ]);
          getRow.result = gets;
          loadRow.result = lists;
          summarise(gets);
        } catch (error) {
          getRow.error = (error as Error).message;
        }
        const waited = await drain(base, drainProbes);
        if (waited > 1_000) loadRow.notes.push(`server took ${(waited / 1000).toFixed(1)} s to work off in-flight requests afterwards`);
      }
    }

    // 6. The areas' suites (bench/suites.ts), on the same server.
    for (const suite of SUITES) {
      if (!suiteSelected(suite.id)) continue;
      log(`${dialect}: suite ${suite.id} …`);
      try {
        const suiteApi = apiClient(base);
        suiteApi.token = token;
        const ctx: SuiteContext = {
          dialect, base, token, user, api: suiteApi, report, measure, log, dataDir, sqliteFile, databaseUrl: dbUrl, serverPid: () => s.pid,
          quick: QUICK, durationS: DURATION_S, connections: CONNECTIONS,
          // After seeding: a fresh server process plans with the new statistics (as in step 3).
          restart: async () => {
            await stopServer();
            s = await start();
            base = s.baseUrl;
            ctx.base = base;
            ctx.api = apiClient(base);
            ctx.api.token = token;
            await hammer({ url: `${base}${TENANT}/websites/${user.websiteId}`, token, connections: CONNECTIONS, durationS: WARMUP_S });
            await drain(base, drainProbes);
          },
        };
        await suite.run(ctx);
      } catch (error) {
        report.rows.push({ id: `${suite.id}-failed`, label: `suite ${suite.id}`, connections: 0, notes: [], error: (error as Error).stack ?? String(error) });
      }
      await drain(base, drainProbes);
    }
  } catch (error) {
    report.status = 'failed';
    report.reason = (error as Error).stack ?? String(error);
    if (server) report.reason += `\n--- server log tail ---\n${server.logTail()}`;
  } finally {
    await stopServer();
  }
  report.info.push(`dialect run took ${((Date.now() - started) / 1000).toFixed(0)} s; 1-min load average ${loadStart} at its start, ${loadavg()[0].toFixed(2)} at its end (other processes on the machine disturb the figures)`);
  return report;
}

function fmtMs(v: number): string {
  return v < 10 ? v.toFixed(2) : v.toFixed(1);
}

function summarise(r: LoadResult): void {
  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '—');
  log(`    ${r.requests} responses, ${r.reqPerSec.toFixed(1)} req/s, p50 ${f(r.p50)} ms, p99 ${f(r.p99)} ms${r.non2xx || r.errors ? `, ${r.non2xx} non-2xx, ${r.errors} errors` : ''}`);
}

/** Follows next_page_token `depth` times (bounded), answering the token of the page after the last one fetched. */
async function walkChain(
  base: string,
  token: string,
  accountId: string,
  query: { filter: string; order_by: string },
): Promise<{ token?: string; depth: number; ms: number[]; error?: string }> {
  let pageToken: string | undefined;
  const times: number[] = [];
  for (let depth = 0; depth < CHAIN_DEPTH; depth++) {
    const t0 = performance.now();
    const page = await getJson(listUrl(base, accountId, { ...query, page_token: pageToken }), token);
    times.push(performance.now() - t0);
    if (page.status !== 200) return { depth, ms: times, error: `page ${depth + 1} answered ${page.status}: ${page.text.slice(0, 300)}` };
    const next = page.body?.next_page_token;
    if (!next) return { token: pageToken, depth, ms: times, error: pageToken ? undefined : 'the first page had no next_page_token' };
    pageToken = String(next);
  }
  return { token: pageToken, depth: CHAIN_DEPTH, ms: times };
}

// ---------------------------------------------------------------------------------------------
// Output

function targetsText(): string[] {
  return [
    ...SUITES.filter((suite) => suiteSelected(suite.id)).flatMap((suite) => suite.targets),
    `authenticated Get ≥ 40 % of the ceiling's req/s (\`get-website\`, \`get-operation\`);`,
    `a List first page with total_size: p99 < 20 ms at ${countLabel(SMALL)} rows (\`list-s-*\`);`,
    `later pages of the same token chain: p99 < 10 ms at ${countLabel(LARGE)} rows (\`page-l-*\`); the first page at ${countLabel(LARGE)} (\`list-l-*\`) is reported without a target;`,
    `cheap Gets under concurrent heavy List load keep p99 within 3× of the same Gets unloaded (\`get-loaded-*\` vs \`get-unloaded\`, 10 + 10 connections).`,
  ];
}

function writeDoc(reports: DialectReport[], info: Record<string, string>, startedAt: Date): void {
  const command = `${QUICK ? 'BENCH_QUICK=1 ' : ''}${process.env.BENCH_DIALECTS ? `BENCH_DIALECTS=${process.env.BENCH_DIALECTS} ` : ''}npm run bench`;
  const lines: string[] = [
    '# Performance',
    '',
    '<!-- Generated by `npm run bench` (bench/run.ts). Every run overwrites this file: it is the record of the last run. -->',
    '',
    `Last run: ${startedAt.toISOString().replace(/\.\d+Z$/, 'Z')} — \`${command}\`${QUICK ? ' (**quick smoke run**: 2 s per case and 10× fewer rows; not a reference measurement)' : ''}.`,
    '',
    '## Machine',
    '',
    `- CPUs (nproc): ${info.nproc} — ${info.cpu}`,
    `- memory: ${info.memory}`,
    `- Node.js ${info.node}, SQLite ${info.sqlite}`,
    `- commit: ${info.commit}`,
    '',
    'Server and load generator share the machine (loopback): on few cores autocannon competes with the server for CPU, so absolute req/s are lower than on a dedicated client; the ratios are the comparable figures.',
    '',
    '## Setup',
    '',
    `- The server runs as \`node dist/src/main.js\` (PORT=0, LOG_LEVEL=warn, WORKER=inline, SIGNUP_RATE_LIMIT=0, MEDIA_COLD_TRANSFORMS_PER_MINUTE=0, NODE_ENV unset) on a fresh DATA_DIR (and, for PostgreSQL, a fresh database); migrations run at its start.`,
    `- One user signs up over HTTP and exchanges the hand-off for a bearer token; a second account is created through the API.`,
    `- Projects are inserted straight into the database with set-based SQL: ${countLabel(SMALL)} in the user's account, ${countLabel(LARGE)} in the second one; every tenth is named \`Shop …\` (so \`display_name:"shop"\` matches 10 %), create_time 30 s apart. Then ANALYZE (PostgreSQL: VACUUM (ANALYZE)) and a server restart.`,
    `- List cases run twice: \`(throughput)\` at ${CONNECTIONS} connections, and \`(latency)\` at ${LATENCY_CONNECTIONS} connections, where the latency targets apply (at ${CONNECTIONS} connections a p99 is mostly queueing, ≈ connections ÷ req/s).`,
    `- Each case: autocannon, ${CONNECTIONS} connections unless stated, ${DURATION_S} s, after a few sequential probe requests (each must answer 200; their median is the "one request at a time" note) and followed by a wait until the server has worked off in-flight requests. Warm-up of ${WARMUP_S} s on \`/healthz\` and on Get beforehand, not recorded.`,
    `- List pages: \`page_size=${PAGE_SIZE}\`. "mid" is the create_time of the middle row of the account (\`create_time > mid\` keeps half the rows). Later pages: the token chain is walked ${CHAIN_DEPTH} pages deep, then the request for page ${CHAIN_DEPTH + 1} is repeated (its token carries total_size, so nothing is counted).`,
    ...SUITES.filter((suite) => suiteSelected(suite.id)).flatMap((suite) => (suite.setup ?? []).map((line) => `- ${line}`)),
    '',
    '## How to read',
    '',
    '`req/s` is autocannon\'s average of per-second completed responses; `p50`/`p99` are latency percentiles of the 2xx responses in milliseconds, computed from every response time (sub-millisecond resolution), measured at the client under the stated number of concurrent connections — so with many connections queued on a slow route, p50/p99 are mostly queueing time (≈ connections ÷ req/s), not the time of one query alone; the notes give each case\'s "one request at a time" latency (a few sequential requests before the run), which is that service time. `× ceiling` is the case\'s req/s divided by the req/s of the bare `/healthz` route on the same server, i.e. the share of the framework\'s ceiling the endpoint keeps after authentication, database access and serialisation. `responses` is the number of responses completed in the run; a run whose count is tiny (a slow List) rests on few samples. A row marked FLAGGED had non-2xx answers or connection errors/timeouts and its figures are suspect. `target`/`result` compare with the goals below; they are reported, not enforced.',
    '',
    'Targets:',
    '',
    ...targetsText().map((t) => `- ${t}`),
    '',
  ];
  for (const r of reports) {
    lines.push(`## ${r.title}`, '');
    if (r.status === 'skipped') {
      lines.push(`**SKIPPED: ${r.reason}**`, '');
      continue;
    }
    if (r.status === 'failed') lines.push(`**The run FAILED before it finished:**`, '', '```', (r.reason ?? '').slice(0, 4000), '```', '');
    for (const i of r.info) lines.push(`- ${i}`);
    lines.push('');
    if (r.rows.length) lines.push(markdownTable(r), '');
    const notes = markdownNotes(r);
    if (notes) lines.push('Notes:', '', notes, '');
    const missed = r.rows.filter((row) => verdictOf(row, r).passed === false);
    if (missed.length) lines.push(`Targets missed: ${missed.map((m) => `\`${m.id}\``).join(', ')}.`, '');
    if (r.serverProblems.length) {
      lines.push(`The server logged ${r.serverProblems.length}${r.serverProblems.length >= 50 ? '+' : ''} warning/error lines; the first:`, '', '```', ...r.serverProblems.slice(0, 5).map((l) => l.slice(0, 500)), '```', '');
    }
  }
  mkdirSync(dirname(DOC), { recursive: true });
  writeFileSync(DOC, lines.join('\n'));
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const startedAt = new Date();
  const info = machine();
  log(`mode ${QUICK ? 'QUICK' : 'full'}: ${countLabel(SMALL)} / ${countLabel(LARGE)} rows, ${DURATION_S} s per case; dialects ${DIALECTS.join(', ')}`);
  log(`machine: ${info.nproc} CPUs (${info.cpu}), Node ${info.node}, SQLite ${info.sqlite}`);

  const reports: DialectReport[] = [];
  for (const dialect of DIALECTS) {
    let pgServer: PostgresServer | undefined;
    if (dialect === 'postgres') {
      const acquired = await acquirePostgres();
      if (typeof acquired === 'string') {
        loud(`PostgreSQL SKIPPED: ${acquired}`);
        reports.push({ dialect, title: 'PostgreSQL', status: 'skipped', reason: acquired, rows: [], info: [], serverProblems: [] });
        continue;
      }
      pgServer = acquired;
      cleanups.push(() => acquired.stop());
      log(`postgres: ${acquired.source}`);
    }
    const report = await runDialect(dialect, pgServer);
    reports.push(report);
    // Remove the temp dir, drop the database and stop PostgreSQL now rather than at exit.
    await runCleanups();
    console.log(`\n=== ${report.title} (${countLabel(SMALL)} / ${countLabel(LARGE)} rows, ${DURATION_S} s per case) ===`);
    for (const i of report.info) console.log(`  ${i}`);
    console.log('');
    if (report.rows.length) console.log(textTable(report));
    if (report.status === 'failed') loud(`${report.title} run FAILED: ${report.reason}`);
    if (report.serverProblems.length) console.log(`\nserver logged ${report.serverProblems.length} warning/error lines, e.g.:\n${report.serverProblems.slice(0, 3).join('\n')}`);
    console.log('');
  }

  writeDoc(reports, info, startedAt);
  log(`wrote ${DOC}`);
  for (const r of reports) if (r.status === 'skipped') loud(`${r.title} was SKIPPED: ${r.reason}`);
  return reports.some((r) => r.status === 'failed') ? 1 : 0;
}

let exiting = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (exiting) return;
    exiting = true;
    console.error(`\n${signal}: cleaning up…`);
    runCleanups().finally(() => process.exit(130));
  });
}

main()
  .then(async (code) => {
    await runCleanups();
    process.exit(code);
  })
  .catch(async (error) => {
    console.error(error);
    await runCleanups();
    process.exit(1);
  });
