/**
 * Request cost and memory (issue 24), `BENCH_SUITES=cost npm run bench`:
 *
 *   - authenticated `GET websites/{w}/cms_pages/{p}` (a page of ~2 KB) against the bare-route ceiling
 *     (`GET /healthz`) of the same server, in alternating rounds (ceiling, Get, ceiling, Get, …), on the
 *     website as signed up and again with 100 000 pages of ~2 KB seeded; two ratios each: req/s ÷ the
 *     ceiling's req/s (what autocannon sees) and the ceiling's CPU per request ÷ the Get's (server plus
 *     PostgreSQL backends, from /proc: what the server can do with a core, whatever the client costs);
 *   - refused requests (401 without a token, 401 with a malformed one, 404 for a website that does not
 *     exist, 403 for a member whose role holds nothing), each against the served Get's CPU per request
 *     in the same round (rounds alternate the Get and the refusals);
 *   - idle RSS of a freshly started server, before and after the pages are seeded (after: once the
 *     server has indexed the seeded pages for search, which it does right after the restart);
 *   - peak RSS (VmHWM, reset first) while filtered Lists of the 100 000 pages run.
 */
import { randomUUID } from 'node:crypto';
import { TENANT } from './api.js';
import { perRequestUs, postgresBackends, resetPeak, sampleCpu, statusMb, type CpuSample } from './cpu.js';
import { hammer, type LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import { runSeedStatements } from './seed.js';
import type { BenchSuite, SuiteContext } from './suites.js';
import { delay } from './server.js';

const PAGES = 100_000;
const ROUNDS = Number(process.env.BENCH_COST_ROUNDS ?? 3);
const BODY = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. '.repeat(25);
// Longer than the server's idle stretch before it gives memory back (src/platform/memory.ts, IDLE_RELEASE_MS).
const IDLE_WAIT_MS = 25_000;
// The 100 000 seeded pages are indexed by the restarted server (about a minute on SQLite on an idle machine).
const BACKLOG_TIMEOUT_MS = 600_000;

interface Measured {
  result: LoadResult;
  cpu: CpuSample;
}

const median = (values: number[]) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : NaN;
};
const fmt = (v: number, digits = 0) => (Number.isFinite(v) ? v.toFixed(digits) : '—');

async function measureOnce(ctx: SuiteContext, url: string, token: string | undefined, durationS: number, headers?: Record<string, string>): Promise<Measured> {
  const backends = ctx.databaseUrl ? await postgresBackends(ctx.databaseUrl).catch(() => []) : [];
  const before = await sampleCpu(ctx.serverPid(), backends);
  const result = await hammer({ url, token, headers, connections: ctx.connections, durationS });
  return { result, cpu: perRequestUs(before, await sampleCpu(ctx.serverPid(), backends), result.requests) };
}

const total = (m: Measured) => m.cpu.server + (Number.isFinite(m.cpu.backends) ? m.cpu.backends : 0);

/** Alternating rounds of the ceiling and the Get; one report row each, ratios in the Get's row. */
async function ratioCase(ctx: SuiteContext, id: string, label: string, getUrl: string): Promise<{ throughput: number; cpu: number; getCpu: number }> {
  const durationS = ctx.quick ? 2 : Math.min(ctx.durationS, 5);
  const ceiling: Measured[] = [];
  const gets: Measured[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ceiling.push(await measureOnce(ctx, `${ctx.base}/healthz`, undefined, durationS));
    gets.push(await measureOnce(ctx, getUrl, ctx.token, durationS));
  }
  const throughput = median(gets.map((g, i) => g.result.reqPerSec / ceiling[i].result.reqPerSec));
  const cpu = median(ceiling.map(total)) / median(gets.map(total));
  const describe = (ms: Measured[]) =>
    ms.map((m) => `${fmt(m.result.reqPerSec)} req/s, ${fmt(m.cpu.server)}${ctx.dialect === 'postgres' ? `+${fmt(m.cpu.backends)}` : ''} µs server CPU, ${fmt(m.cpu.client)} µs client CPU`).join(' | ');
  const last = (ms: Measured[]): LoadResult => ({ ...ms[ms.length - 1].result, reqPerSec: median(ms.map((m) => m.result.reqPerSec)) });
  ctx.report.rows.push(
    { id: `${id}-ceiling`, label: `ceiling GET /healthz (${label}), median of ${ROUNDS} rounds`, connections: ctx.connections, result: last(ceiling), notes: [`rounds: ${describe(ceiling)}`] },
    {
      id,
      label: `Get cms_pages/{p} (${label}): req/s ÷ ceiling ${fmt(throughput, 2)}, CPU ratio ${fmt(cpu, 2)}`,
      connections: ctx.connections,
      result: last(gets),
      target: { kind: 'relRate', baseline: `${id}-ceiling`, min: 0.5 },
      notes: [
        `rounds: ${describe(gets)}`,
        `CPU per request (median): ceiling ${fmt(median(ceiling.map(total)))} µs, Get ${fmt(median(gets.map(total)))} µs${ctx.dialect === 'postgres' ? ' (server + PostgreSQL backends)' : ''}; CPU ratio ${fmt(cpu, 2)} (target ≥ 0.50); load generator ${fmt(median(gets.map((g) => g.cpu.client)))} µs per Get`,
      ],
    },
  );
  ctx.log(`cost: ${label}: req/s ratio ${fmt(throughput, 2)}, CPU ratio ${fmt(cpu, 2)}`);
  return { throughput, cpu, getCpu: median(gets.map(total)) };
}

/** Rows still waiting for the search indexer (the seeded pages' triggers queue every one of them). */
async function searchBacklog(ctx: SuiteContext): Promise<number> {
  const text = 'select count(*) as n from search_pending';
  if (ctx.dialect === 'postgres') {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    return Number((await client.query(text).finally(() => client.end())).rows[0].n);
  }
  const SQLite = (await import('better-sqlite3')).default;
  const db = new SQLite(ctx.sqliteFile, { readonly: true });
  try {
    return Number((db.prepare(text).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

/**
 * Waits until the restarted server has indexed the seeded pages: until then it is busy (the indexer's
 * CPU would count as the Get's, its heap as idle memory). Reports how long that took from the restart
 * (whose warm-up and drain it includes) and the server's peak RSS since it started.
 */
async function drainSearchBacklog(ctx: SuiteContext, label: string, atRestart: number, restartedAt: number): Promise<void> {
  let left = await searchBacklog(ctx);
  while (left > 0 && Date.now() - restartedAt < BACKLOG_TIMEOUT_MS) {
    await delay(1_000);
    left = await searchBacklog(ctx);
  }
  const seconds = (Date.now() - restartedAt) / 1000;
  ctx.report.rows.push({
    id: `search-backlog-${label.replace(/\W+/g, '-')}`,
    label: `search indexing after the restart (${label}): ${atRestart.toLocaleString('en-US')} sources pending at the restart, ${left.toLocaleString('en-US')} ${fmt(seconds)} s later; peak RSS of the server ${fmt(statusMb(ctx.serverPid(), 'VmHWM') ?? NaN)} MB`,
    connections: 0,
    notes: [`the idle RSS and the Gets below are measured once nothing is pending${left > 0 ? ` — NOT reached within ${BACKLOG_TIMEOUT_MS / 1000} s` : ''}`],
  });
  ctx.log(`cost: search backlog ${label}: ${atRestart} at the restart, ${left} after ${fmt(seconds)} s`);
}

async function idleRss(ctx: SuiteContext, label: string, opts: { drainSearch?: boolean } = {}): Promise<void> {
  const atRestart = opts.drainSearch ? await searchBacklog(ctx) : 0;
  const restartedAt = Date.now();
  await ctx.restart();
  if (opts.drainSearch) await drainSearchBacklog(ctx, label, atRestart, restartedAt);
  await delay(IDLE_WAIT_MS);
  const rss = statusMb(ctx.serverPid(), 'VmRSS');
  const anon = statusMb(ctx.serverPid(), 'RssAnon');
  ctx.report.rows.push({
    id: `idle-rss-${label.replace(/\W+/g, '-')}`,
    label: `idle RSS after start (${label}): ${fmt(rss ?? NaN)} MB (anonymous ${fmt(anon ?? NaN)} MB); target ≤ 200 MB`,
    connections: 0,
    notes: [`read from /proc/${ctx.serverPid()}/status ${IDLE_WAIT_MS / 1000} s after the restart's warm-up (3 s of load), i.e. idle`],
  });
  ctx.log(`cost: idle RSS ${label}: ${fmt(rss ?? NaN)} MB`);
}

async function seedPages(ctx: SuiteContext): Promise<void> {
  const active = ctx.dialect === 'postgres' ? 'true' : '1';
  await runSeedStatements(
    { dialect: ctx.dialect, sqliteFile: ctx.sqliteFile, databaseUrl: ctx.databaseUrl },
    (series, n, pad) => [
      `INSERT INTO cms_pages (id, account_id, website_id, title, url_key, is_active, content_heading, content, meta_title, meta_description,
                              meta_keywords, meta_robots, visible_view_ids, revision, create_time, update_time)
       SELECT 'cost-p-' || ${pad}, @account, @website, 'Page ' || ${n}, 'cost-page-' || ${n}, ${active}, NULL,
              '<p>' || ${n} || ' ${BODY}</p>', NULL, 'About page ' || ${n}, NULL, 'INDEX_FOLLOW', '[]', 1, @base + ${n}, @base + ${n}
       FROM ${series}`,
    ],
    { account: ctx.user.accountId, website: ctx.user.websiteId, base: Date.UTC(2025, 0, 1), count: PAGES },
    ['cms_pages'],
  );
}

/** A second user, member of the bench account with `roles/restricted` and no grants: every website route is 403. */
async function restrictedMember(ctx: SuiteContext): Promise<string> {
  const { apiClient, signUp } = await import('./api.js');
  const other = await signUp(apiClient(ctx.base));
  const now = Date.now();
  const values = [ctx.user.accountId, other.userId, other.userId, now, now];
  const text = `insert into memberships (account_id, id, user_id, role, grants, website_ids, revision, create_time, update_time)
    values (?, ?, ?, 'restricted', '[]', '[]', 1, ?, ?)`;
  if (ctx.dialect === 'postgres') {
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: ctx.databaseUrl });
    await client.connect();
    let i = 0;
    await client.query(text.replace(/\?/g, () => `$${++i}`), values).finally(() => client.end());
  } else {
    const SQLite = (await import('better-sqlite3')).default;
    const db = new SQLite(ctx.sqliteFile);
    db.pragma('busy_timeout = 5000');
    try {
      db.prepare(text).run(...values);
    } finally {
      db.close();
    }
  }
  return other.token;
}

/**
 * Refusals against the served Get in alternating rounds (Get, then each refusal, ROUNDS times): each
 * refusal's ratio is the median over rounds of its CPU per request ÷ the same round's Get, so the
 * machine's load, which swings between rounds, weighs on both sides of every ratio alike.
 */
async function refusedCases(ctx: SuiteContext, pageUrl: string): Promise<void> {
  const durationS = ctx.quick ? 2 : Math.min(ctx.durationS, 5);
  const restricted = await restrictedMember(ctx);
  const cases: Array<[string, string, string, string | undefined, number]> = [
    ['refused-401-missing', '401: no Authorization header', pageUrl, undefined, 401],
    ['refused-401-malformed', '401: Bearer not.a.jwt', pageUrl, 'not.a.jwt', 401],
    ['refused-404', "404: a website that does not exist", `${ctx.base}${TENANT}/websites/no-such-${randomUUID().slice(0, 8)}/cms_pages/x`, ctx.token, 404],
    ['refused-403', '403: a member whose role holds nothing', pageUrl, restricted, 403],
  ];
  const served: Measured[] = [];
  const refused: Measured[][] = cases.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    served.push(await measureOnce(ctx, pageUrl, ctx.token, durationS));
    for (const [i, [, , url, token]] of cases.entries()) refused[i].push(await measureOnce(ctx, url, token, durationS));
  }
  const servedCpu = median(served.map(total));
  for (const [i, [id, what, , , status]] of cases.entries()) {
    const ms = refused[i];
    const ratio = median(ms.map((m, round) => total(m) / total(served[round])));
    const cpu = median(ms.map(total));
    const answered = ms.reduce((sum, m) => sum + (m.result.statuses[String(status)] ?? 0), 0);
    const requests = ms.reduce((sum, m) => sum + m.result.requests, 0);
    const row: CaseRow = {
      id,
      label: `refused ${what}: ${fmt(cpu)} µs CPU per request, ${fmt(ratio, 2)}× the served Get of the same round (median of ${ROUNDS}; served Get ${fmt(servedCpu)} µs)`,
      connections: ctx.connections,
      notes: [
        `${answered} of ${requests} answers were ${status}; per round (refused ÷ served, µs): ${ms.map((m, round) => `${fmt(total(m))} ÷ ${fmt(total(served[round]))}`).join(', ')}; target: no more CPU than a served Get`,
      ],
    };
    // Refusals are the expected answer here: keep the row unflagged, the CPU is the figure.
    row.result = { ...ms[ms.length - 1].result, reqPerSec: median(ms.map((m) => m.result.reqPerSec)), non2xx: 0 };
    ctx.report.rows.push(row);
    ctx.log(`cost: refused ${what}: ${fmt(cpu)} µs, ${fmt(ratio, 2)}× served`);
  }
}

async function peakDuringLists(ctx: SuiteContext): Promise<void> {
  const pid = ctx.serverPid();
  const reset = resetPeak(pid);
  const base = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/cms_pages?page_size=50&filter=`;
  const before = statusMb(pid, 'VmRSS');
  for (const filter of ['title:"Page 1"', 'is_active = true', 'url_key:"cost-page-9"']) {
    await hammer({ url: base + encodeURIComponent(filter), token: ctx.token, connections: 10, durationS: ctx.quick ? 2 : 5 });
  }
  const peak = statusMb(pid, 'VmHWM');
  ctx.report.rows.push({
    id: 'peak-rss-lists',
    label: `peak RSS during filtered Lists of ${PAGES.toLocaleString('en-US')} pages: ${fmt(peak ?? NaN)} MB (RSS before ${fmt(before ?? NaN)} MB)`,
    connections: 10,
    notes: [reset ? 'VmHWM reset (clear_refs 5) before the Lists' : 'VmHWM could not be reset: the peak may predate the Lists'],
  });
}

export const costSuite: BenchSuite = {
  id: 'cost',
  targets: [
    'cost: authenticated Get of a cms page ≥ 0.50 of the ceiling (req/s and CPU per request) on the website as signed up and with 100 000 pages (`cost-get-*`)',
    'cost: idle RSS after start ≤ 200 MB, without and with 100 000 pages (`idle-rss-*`); refused requests (401, 403, 404) cost no more CPU than a served Get (`refused-*`)',
  ],
  setup: [
    `cost: GET /healthz and Get cms_pages/{p} alternate, ${ROUNDS} rounds of 5 s each at 50 connections; CPU per request from /proc/<pid>/stat (utime + stime) of the server and, on PostgreSQL, of the backends of its database, over the run, divided by the responses; then ${PAGES.toLocaleString('en-US')} pages of ~2 KB are seeded and the server restarted; its search indexer works through the seeded pages first (reported), and only then are idle RSS and the Gets measured.`,
  ],
  async run(ctx) {
    const website = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}`;
    const created = await ctx.api.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/cms_pages`, { title: 'Cost', url_key: `cost-${randomUUID().slice(0, 6)}`, content: `<p>${BODY}</p>` });
    if (created.status !== 201) throw new Error(`create page: ${created.status} ${created.text.slice(0, 300)}`);
    const pageUrl = () => `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/cms_pages/${created.body.id}`;
    void website;
    await idleRss(ctx, 'as signed up');
    await ratioCase(ctx, 'cost-get-small', 'as signed up', pageUrl());
    await refusedCases(ctx, pageUrl());
    const t0 = Date.now();
    await seedPages(ctx);
    ctx.log(`cost: seeded ${PAGES} pages in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await idleRss(ctx, `${PAGES.toLocaleString('en-US')} pages`, { drainSearch: true });
    await ratioCase(ctx, 'cost-get-large', `${PAGES.toLocaleString('en-US')} pages`, pageUrl());
    await peakDuringLists(ctx);
  },
};
