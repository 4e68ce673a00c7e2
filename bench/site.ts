/**
 * Rendered-site suite (issue 15), `BENCH_SUITES=site npm run bench`, on loopback with the website's
 * `Host` (`{code}.localhost`):
 *
 *   - the ceiling of this run: `GET /healthz` (a bare route) on the same server, just before;
 *   - a cached page: the same CMS page over and over (rendered once per content version, then from
 *     the page cache). Target ≥ 0.5 × the ceiling, uncompressed (no Accept-Encoding) and as a
 *     browser asks for it (brotli, sent from the compressed bytes kept with the rendering);
 *   - cold render: the first GET of each of many distinct pages (nothing cached for their paths;
 *     the view's settings and chrome are warm), one at a time;
 *   - write→visible: PATCH a page's content through the tenant API, then GET the page every 5 ms
 *     until the new content shows; from the PATCH's answer to the first GET showing it. Bounded by
 *     SITE_VERSION_TTL_MS (1 s) plus one render. Target p99 < 1.5 s.
 */
import { request } from 'node:http';
import { TENANT } from './api.js';
import { perRequestUs, postgresBackends, sampleCpu } from './cpu.js';
import { hammer, type LoadResult, type LoadSpec } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const CONTENT = `<h2>Our breads</h2><ul>${Array.from({ length: 20 }, (_, i) => `<li>Bread ${i}: flour, water, salt and time.</li>`).join('')}</ul>` + '<p>We bake sourdough every morning. </p>'.repeat(30);

/** What Chromium sends: the cached page goes out brotli-compressed. */
const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br, zstd';

/** GET on loopback with the site's Host (fetch may not set `Host`). */
function siteGet(base: string, host: string, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function stats(samples: number[]): LoadResult {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { requests: samples.length, reqPerSec: 0, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx: 0, errors: 0, timeouts: 0, statuses: { 200: samples.length } };
}

async function createPage(ctx: SuiteContext, urlKey: string, content = CONTENT): Promise<string> {
  const res = await ctx.api.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/cms_pages`, { title: `Bench ${urlKey}`, url_key: urlKey, content, meta_description: 'A page of the bench' });
  if (res.status !== 201) throw new Error(`create page: ${res.status} ${res.text.slice(0, 300)}`);
  return String(res.body.name);
}

async function until(ctx: SuiteContext, host: string, path: string, check: (body: string, status: number) => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await siteGet(ctx.base, host, path);
    if (check(res.body, res.status)) return;
    if (Date.now() > deadline) throw new Error(`${what}: ${path} answered ${res.status} for 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * One autocannon run of `row`, with the CPU per response of the server (and its PostgreSQL backends)
 * and of this load generator noted: unlike the req/s ratio, it does not move with what else the
 * shared machine runs.
 */
async function hammerNoting(ctx: SuiteContext, row: CaseRow, spec: LoadSpec): Promise<void> {
  const backends = ctx.databaseUrl ? await postgresBackends(ctx.databaseUrl).catch(() => []) : [];
  const before = await sampleCpu(ctx.serverPid(), backends);
  row.result = await hammer(spec);
  const cpu = perRequestUs(before, await sampleCpu(ctx.serverPid(), backends), row.result.requests);
  row.notes.push(`CPU per response: server ${cpu.server.toFixed(0)} µs${ctx.databaseUrl ? ` + PostgreSQL backends ${cpu.backends.toFixed(0)} µs` : ''}; load generator ${cpu.client.toFixed(0)} µs`);
}

export const siteSuite: BenchSuite = {
  id: 'site',
  targets: [
    'rendered site, cached page: ≥ 50 % of the ceiling (GET /healthz, measured in the same run), uncompressed and with a browser\'s Accept-Encoding',
    'rendered site, write→visible (PATCH through the tenant API → page shows it): p99 < 1.5 s (bound: SITE_VERSION_TTL_MS = 1 s + one render)',
  ],
  setup: [
    'site: a CMS page of about 4 kB of content in the default layout (theme, main menu), requested with `Host: {code}.localhost` on loopback; cold renders over 100 (quick: 30) fresh pages; write→visible over 60 (quick: 20) PATCHes polled every 5 ms.',
  ],
  async run(ctx) {
    const website = await ctx.api.call('GET', `${TENANT}/websites/${ctx.user.websiteId}`);
    const host = `${website.body.code}.localhost`;
    const headers = { host };
    const pageName = await createPage(ctx, 'bench-page');
    await until(ctx, host, '/bench-page', (_b, s) => s === 200, 'new page');

    // Ceiling and cached page, back to back (warm-up for both first).
    await hammer({ url: `${ctx.base}/healthz`, connections: ctx.connections, durationS: 1 });
    await hammer({ url: `${ctx.base}/bench-page`, headers, connections: ctx.connections, durationS: 1 });
    const ceiling: CaseRow = { id: 'site-ceiling', label: 'site ceiling: GET /healthz (same run)', connections: ctx.connections, notes: [] };
    ctx.report.rows.push(ceiling);
    ctx.log(`${ctx.dialect}: ${ceiling.label} …`);
    await hammerNoting(ctx, ceiling, { url: `${ctx.base}/healthz`, connections: ctx.connections, durationS: ctx.durationS });
    const cached: CaseRow = {
      id: 'site-cached-page',
      label: 'site: cached CMS page (GET /bench-page)',
      connections: ctx.connections,
      target: { kind: 'relRate', baseline: 'site-ceiling', min: 0.5 },
      notes: [],
    };
    ctx.report.rows.push(cached);
    ctx.log(`${ctx.dialect}: ${cached.label} …`);
    await hammerNoting(ctx, cached, { url: `${ctx.base}/bench-page`, headers, connections: ctx.connections, durationS: ctx.durationS });
    if (!cached.result || !ceiling.result) throw new Error('no result');
    const ratio = cached.result.reqPerSec / ceiling.result.reqPerSec;
    cached.notes.push(`${ratio.toFixed(2)}× the ceiling of this run (target ≥ 0.50×: ${ratio >= 0.5 ? 'pass' : 'MISS'}); sent uncompressed (no Accept-Encoding)`);
    if (cached.result.non2xx) cached.notes.push(`${cached.result.non2xx} non-2xx answers`);

    // The same page as browsers ask for it: compressed (brotli), from the bytes kept with the cached rendering.
    const browser: CaseRow = {
      id: 'site-cached-page-br',
      label: `site: cached CMS page, Accept-Encoding of a browser (GET /bench-page, br)`,
      connections: ctx.connections,
      target: { kind: 'relRate', baseline: 'site-ceiling', min: 0.5 },
      notes: [],
    };
    ctx.report.rows.push(browser);
    ctx.log(`${ctx.dialect}: ${browser.label} …`);
    const browserHeaders = { ...headers, 'accept-encoding': BROWSER_ACCEPT_ENCODING };
    await hammer({ url: `${ctx.base}/bench-page`, headers: browserHeaders, connections: ctx.connections, durationS: 1 });
    await hammerNoting(ctx, browser, { url: `${ctx.base}/bench-page`, headers: browserHeaders, connections: ctx.connections, durationS: ctx.durationS });
    if (!browser.result) throw new Error('no result');
    const browserRatio = browser.result.reqPerSec / ceiling.result.reqPerSec;
    browser.notes.push(`${browserRatio.toFixed(2)}× the ceiling of this run (target ≥ 0.50×: ${browserRatio >= 0.5 ? 'pass' : 'MISS'}); Accept-Encoding: ${BROWSER_ACCEPT_ENCODING}`);
    if (browser.result.non2xx) browser.notes.push(`${browser.result.non2xx} non-2xx answers`);

    // Cold renders: distinct pages, each fetched once its version is visible (first GET = the render).
    const coldCount = ctx.quick ? 30 : 100;
    const keys: string[] = [];
    for (let i = 0; i < coldCount; i++) {
      keys.push(`bench-cold-${i}`);
      await createPage(ctx, keys[i]);
    }
    // Wait until the last write is visible, without requesting the cold pages themselves.
    const marker = await ctx.api.call('PATCH', `${TENANT}/${pageName}`, { content: `${CONTENT}<p>marker-cold</p>` });
    if (marker.status !== 200) throw new Error(`patch: ${marker.status}`);
    await until(ctx, host, '/bench-page', (b) => b.includes('marker-cold'), 'cold marker');
    const cold: number[] = [];
    for (const key of keys) {
      const t0 = performance.now();
      const res = await siteGet(ctx.base, host, `/${key}`);
      cold.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`cold /${key}: ${res.status}`);
    }
    ctx.report.rows.push({
      id: 'site-cold-render',
      label: `site: cold render of a CMS page (first GET of ${coldCount} pages, one at a time)`,
      connections: 1,
      result: stats(cold),
      notes: ['time of the whole request: resolution of the page (prepared queries) + Liquid layout + hashing for the ETag'],
    });

    // Write → visible.
    const writes = ctx.quick ? 20 : 60;
    const lags: number[] = [];
    for (let i = 0; i < writes; i++) {
      const mark = `marker-${i}-${Date.now()}`;
      const res = await ctx.api.call('PATCH', `${TENANT}/${pageName}`, { content: `${CONTENT}<p>${mark}</p>` });
      if (res.status !== 200) throw new Error(`patch: ${res.status} ${res.text.slice(0, 200)}`);
      const t0 = performance.now();
      await until(ctx, host, '/bench-page', (b) => b.includes(mark), 'write→visible');
      lags.push(performance.now() - t0);
      // A random pause, so writes land anywhere in the version's reuse period (a fixed one would sample one phase of it).
      await new Promise((r) => setTimeout(r, Math.random() * 1_000));
    }
    ctx.report.rows.push({
      id: 'site-write-visible',
      label: `site: write→visible (PATCH page → GET shows it, ${writes} writes)`,
      connections: 1,
      result: stats(lags),
      target: { kind: 'p99', maxMs: 1_500 },
      notes: ['polled every 5 ms from the PATCH answer on; the content version is re-read at most once per SITE_VERSION_TTL_MS (1 s) per process'],
    });
  },
};
