/**
 * The media suite of `npm run bench` (`BENCH_SUITES=media` alone), side by side in one run against
 * the platform as a child process (per dialect, local disk blobs):
 *
 *   - a cached variant read (`?w=400&fmt=webp`) versus the same bytes served by @fastify/static in a
 *     child process of its own (the ceiling), with the hot-variant memory cache (default) and
 *     without it (`MEDIA_MEMORY_CACHE_BYTES=0`: every read streams from blob storage);
 *   - a cold transform (2400×1600 JPEG → 400 px WebP over HTTP: lookup, original read, sharp,
 *     variant write) versus calling sharp directly in this process (the physical limit);
 *   - a burst of 100 concurrent cold requests (distinct variants): every answer must be 200, and
 *     the server's peak RSS (VmHWM) is reported against its RSS before the burst;
 *   - the upload rate of ~1 MB JPEGs (multipart, 4 connections).
 *
 * Targets (reported, never asserted): cached reads ≥ 70 % of the static ceiling; cold transforms
 * within 1.3× of direct sharp; peak memory bounded under the burst.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { TENANT } from './api.js';
import { assertLoopback, hammer } from './load.js';
import { startServer, type ServerHandle } from './server.js';
import type { BenchSuite, SuiteContext } from './suites.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..', '..');
const MAIN_JS = join(HERE, '..', 'src', 'main.js');
const STATIC_JS = join(HERE, 'static-server.js');

/** Memory of a process from /proc (Linux): current and peak resident set, MiB. */
function memoryOf(pid: number): { rssMiB: number; peakMiB: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, peakMiB: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '—');

/** A photo-like JPEG (noise compresses like a photo, unlike a flat colour). */
async function photo(width: number, height: number, quality: number): Promise<Buffer> {
  const noise = await sharp({ create: { width, height, channels: 3, background: '#808080', noise: { type: 'gaussian', mean: 128, sigma: 40 } } }).raw().toBuffer();
  return sharp(noise, { raw: { width, height, channels: 3 } }).blur(1.2).jpeg({ quality }).toBuffer();
}

/** Peak and current RSS of a process as a note. */
const memoryNote = (pid: number, what: string) => {
  const m = memoryOf(pid);
  return m ? `${what}: RSS ${f1(m.rssMiB)} MiB, peak ${f1(m.peakMiB)} MiB` : `${what}: memory unavailable (no /proc)`;
};

async function run(ctx: SuiteContext): Promise<void> {
  const { report, log } = ctx;
  const tmp = mkdtempSync(join(tmpdir(), 'siteplatform-bench-media-'));
  const servers: ServerHandle[] = [];
  try {
    const original = await photo(2400, 1600, 85);
    const upload = async (filename: string, data: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), filename);
      const res = await fetch(`${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/media`, { method: 'POST', headers: { authorization: `Bearer ${ctx.token}` }, body: form });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return (await res.json()) as { id: string };
    };
    const media = await upload('bench.jpg', original);
    const readPath = (query: string) => `/engine-api/v1/websites/${ctx.user.websiteId}/media/${media.id}${query}`;
    const VARIANT = '?w=400&fmt=webp';

    // 1. Cached variant read vs @fastify/static serving the same bytes (a child process of its own).
    const first = await fetch(ctx.base + readPath(VARIANT));
    if (first.status !== 200) throw new Error(`variant read answered ${first.status}`);
    const variantBytes = Buffer.from(await first.arrayBuffer());
    const staticDir = join(tmp, 'static');
    mkdirSync(staticDir);
    writeFileSync(join(staticDir, 'variant.webp'), variantBytes);
    const staticServer = await startServer({ mainJs: STATIC_JS, cwd: ROOT, env: { STATIC_ROOT: staticDir }, readyTimeoutMs: 30_000 });
    servers.push(staticServer);
    await hammer({ url: `${staticServer.baseUrl}/variant.webp`, connections: ctx.connections, durationS: 1 });
    await hammer({ url: ctx.base + readPath(VARIANT), connections: ctx.connections, durationS: 1 });
    const ceiling = await ctx.measure('media-static', `media ceiling: @fastify/static, the same ${variantBytes.length} B`, `${staticServer.baseUrl}/variant.webp`, { auth: false });
    const cached = await ctx.measure('media-cached', `media cached variant read \`${VARIANT}\` (memory cache on, default)`, ctx.base + readPath(VARIANT), { auth: false });
    const ratio = (row: typeof cached) => (row.result && ceiling.result ? row.result.reqPerSec / ceiling.result.reqPerSec : NaN);
    cached.notes.unshift(`${ratio(cached).toFixed(2)}× the @fastify/static ceiling (target ≥ 0.70×: ${ratio(cached) >= 0.7 ? 'pass' : 'MISS'})`);

    // 2. The same read from blob storage only: a second server on the same DATA_DIR and database
    // with the memory cache off (it also serves the burst below, so its memory is observable).
    const noCache = await startServer({
      mainJs: MAIN_JS,
      cwd: ROOT,
      env: { DATA_DIR: ctx.dataDir, ...(ctx.databaseUrl ? { DATABASE_URL: ctx.databaseUrl } : {}), MEDIA_MEMORY_CACHE_BYTES: '0', WORKER: 'off' },
    });
    servers.push(noCache);
    await hammer({ url: noCache.baseUrl + readPath(VARIANT), connections: ctx.connections, durationS: 1 });
    const storageOnly = await ctx.measure('media-cached-storage', `media cached variant read, memory cache off (blob storage only)`, noCache.baseUrl + readPath(VARIANT), { auth: false });
    storageOnly.notes.unshift(`${ratio(storageOnly).toFixed(2)}× the @fastify/static ceiling`);
    await staticServer.stop();

    // 3. Cold transforms one at a time (each a distinct variant: q varies) vs sharp in this process.
    const samples = ctx.quick ? 5 : 15;
    const viaHttp: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const res = await fetch(noCache.baseUrl + readPath(`?w=400&fmt=webp&q=${60 + i}`));
      await res.arrayBuffer();
      viaHttp.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`cold transform answered ${res.status}`);
    }
    const direct: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      await sharp(original).rotate().resize({ width: 400, fit: 'inside', withoutEnlargement: true }).webp({ quality: 60 + i }).toBuffer();
      direct.push(performance.now() - t0);
    }
    const coldRatio = median(viaHttp) / median(direct);
    report.rows.push({
      id: 'media-cold',
      label: `media cold transform 2400×1600 JPEG → 400 px WebP over HTTP: median ${median(viaHttp).toFixed(1)} ms vs direct sharp ${median(direct).toFixed(1)} ms = ${coldRatio.toFixed(2)}×`,
      connections: 1,
      notes: [`${samples} sequential samples each; max ${Math.max(...viaHttp).toFixed(1)} ms over HTTP, ${Math.max(...direct).toFixed(1)} ms direct; target ≤ 1.3× direct sharp: ${coldRatio <= 1.3 ? 'pass' : 'MISS'}`],
    });

    // 4. A burst of 100 concurrent cold requests (distinct variants): all answered, memory bounded.
    const before = memoryNote(noCache.pid, 'before');
    const burstStart = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const res = await fetch(noCache.baseUrl + readPath(`?w=${300 + i}&fmt=webp`));
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const burstMs = performance.now() - burstStart;
    const ok = statuses.filter((s) => s === 200).length;
    report.rows.push({
      id: 'media-burst',
      label: `media burst: 100 concurrent cold transforms, ${ok}/100 answered 200 in ${(burstMs / 1000).toFixed(1)} s`,
      connections: 100,
      notes: [`${before}; ${memoryNote(noCache.pid, 'after')} (peak = VmHWM since the server started); transform slots MEDIA_TRANSFORM_CONCURRENCY = cores`],
      ...(ok === 100 ? {} : { error: `${100 - ok} requests did not answer 200` }),
    });
    await noCache.stop();

    // 5. Upload rate of ~1 MB JPEGs.
    const megabyte = await photo(1800, 1250, 97);
    const boundary = '----bench-media-boundary';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`),
      megabyte,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const url = `${ctx.base}${TENANT}/websites/${ctx.user.websiteId}/media`;
    assertLoopback(url);
    log(`media: uploads of ${(megabyte.length / 1e6).toFixed(2)} MB …`);
    const uploads = await new Promise<autocannon.Result>((done, fail) =>
      autocannon(
        { url, method: 'POST', connections: 4, duration: ctx.durationS, timeout: 60, headers: { authorization: `Bearer ${ctx.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` }, body },
        (error, result) => (error ? fail(error) : done(result)),
      ),
    );
    report.rows.push({
      id: 'media-upload',
      label: `media upload ${(megabyte.length / 1e6).toFixed(2)} MB JPEG: ${uploads.requests.average.toFixed(1)} uploads/s = ${((uploads.requests.average * megabyte.length) / 1e6).toFixed(1)} MB/s`,
      connections: 4,
      notes: [`${uploads['2xx']} stored in ${ctx.durationS} s; p50 ${uploads.latency.p50} ms, p99 ${uploads.latency.p99} ms (autocannon, 1 ms resolution)`],
      ...(uploads.non2xx + uploads.errors ? { error: `${uploads.non2xx} non-2xx, ${uploads.errors} errors` } : {}),
    });
  } finally {
    for (const server of servers) await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}

export const mediaSuite: BenchSuite = {
  id: 'media',
  targets: [
    'media: a cached variant read ≥ 70 % of @fastify/static serving the same bytes (`media-cached` vs `media-static`, notes);',
    'media: a cold transform over HTTP within 1.3× of calling sharp directly (`media-cold`); peak memory bounded under a burst of 100 concurrent cold requests (`media-burst`); upload rate of 1 MB JPEGs reported (`media-upload`).',
  ],
  run,
};
