/**
 * The media cases of `npm run bench`, side by side in one run against the platform as a child
 * process (SQLite, local disk blobs):
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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import sharp from 'sharp';
import { apiClient, signUp, TENANT } from './api.js';
import { assertLoopback, hammer, type LoadResult } from './load.js';
import { startServer, type ServerHandle } from './server.js';

export interface MediaBenchOptions {
  mainJs: string;
  staticJs: string;
  cwd: string;
  tmp: string;
  durationS: number;
  connections: number;
  /** Cold transforms measured one at a time (each a distinct variant). */
  coldSamples: number;
  log(message: string): void;
  cleanups: Array<() => Promise<void> | void>;
}

export interface MediaBenchReport {
  /** Markdown lines of the report section. */
  markdown: string[];
  /** Plain text for the console. */
  text: string[];
  failed: boolean;
}

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

/** A multipart body with one `file` part, built once and replayed by autocannon. */
function multipartBody(filename: string, data: Buffer): { body: Buffer; contentType: string } {
  const boundary = '----bench-media-boundary';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/jpeg\r\n\r\n`);
  return { body: Buffer.concat([head, data, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/form-data; boundary=${boundary}` };
}

function uploadLoad(url: string, token: string, body: Buffer, contentType: string, connections: number, durationS: number): Promise<{ ok: number; other: number; reqPerSec: number }> {
  assertLoopback(url);
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method: 'POST', connections, duration: durationS, timeout: 60, headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body },
      (error, result) => (error ? reject(error) : resolve({ ok: result['2xx'], other: result.non2xx + result.errors, reqPerSec: result.requests.average })),
    );
  });
}

export async function runMediaBench(opts: MediaBenchOptions): Promise<MediaBenchReport> {
  const text: string[] = [];
  const rows: string[] = [];
  const notes: string[] = [];
  let failed = false;
  const dataDir = join(opts.tmp, 'media-data');
  const staticDir = join(opts.tmp, 'media-static');
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(staticDir, { recursive: true });

  let server: ServerHandle | undefined;
  let staticServer: ServerHandle | undefined;
  try {
    server = await startServer({ mainJs: opts.mainJs, cwd: opts.cwd, env: { DATA_DIR: dataDir } });
    opts.cleanups.push(server.stop);
    const api = apiClient(server.baseUrl);
    const user = await signUp(api);
    const original = await photo(2400, 1600, 85);
    opts.log(`media: server pid ${server.pid}; original ${(original.length / 1024).toFixed(0)} KiB 2400×1600 JPEG`);

    const upload = async (filename: string, data: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type: 'image/jpeg' }), filename);
      const res = await fetch(`${server!.baseUrl}${TENANT}/websites/${user.websiteId}/media`, { method: 'POST', headers: { authorization: `Bearer ${user.token}` }, body: form });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return (await res.json()) as { id: string };
    };
    const media = await upload('bench.jpg', original);
    const readUrl = (query: string) => `${server!.baseUrl}/engine-api/v1/websites/${user.websiteId}/media/${media.id}${query}`;

    // 1. Cached variant read vs @fastify/static serving the same bytes.
    const first = await fetch(readUrl('?w=400&fmt=webp'));
    if (first.status !== 200) throw new Error(`variant read answered ${first.status}`);
    const variantBytes = Buffer.from(await first.arrayBuffer());
    writeFileSync(join(staticDir, 'variant.webp'), variantBytes);
    staticServer = await startServer({ mainJs: opts.staticJs, cwd: opts.cwd, env: { STATIC_ROOT: staticDir }, readyTimeoutMs: 30_000 });
    opts.cleanups.push(staticServer.stop);
    await hammer({ url: readUrl('?w=400&fmt=webp'), connections: opts.connections, durationS: 1 });
    await hammer({ url: `${staticServer.baseUrl}/variant.webp`, connections: opts.connections, durationS: 1 });
    opts.log('media: cached variant read …');
    const cached: LoadResult = await hammer({ url: readUrl('?w=400&fmt=webp'), connections: opts.connections, durationS: opts.durationS });
    opts.log('media: @fastify/static ceiling …');
    const ceiling: LoadResult = await hammer({ url: `${staticServer.baseUrl}/variant.webp`, connections: opts.connections, durationS: opts.durationS });
    const readRatio = cached.reqPerSec / ceiling.reqPerSec;
    rows.push(`| ceiling: @fastify/static, same ${variantBytes.length} B | ${opts.connections} | ${f1(ceiling.reqPerSec)} | ${ceiling.p50.toFixed(2)} | ${ceiling.p99.toFixed(2)} | — | ${ceiling.non2xx + ceiling.errors ? 'FLAGGED' : ''} |`);
    rows.push(
      `| cached variant read \`?w=400&fmt=webp\` (hot-variant memory cache, default) | ${opts.connections} | ${f1(cached.reqPerSec)} | ${cached.p50.toFixed(2)} | ${cached.p99.toFixed(2)} | ≥ 0.70× ceiling | ${readRatio.toFixed(2)}× ${readRatio >= 0.7 ? 'met' : 'MISSED'}${cached.non2xx + cached.errors ? ', FLAGGED' : ''} |`,
    );

    // 2. Cold transforms, one at a time, vs sharp in this process (each a distinct variant: q varies).
    const viaHttp: number[] = [];
    for (let i = 0; i < opts.coldSamples; i++) {
      const t0 = performance.now();
      const res = await fetch(readUrl(`?w=400&fmt=webp&q=${60 + i}`));
      await res.arrayBuffer();
      viaHttp.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`cold transform answered ${res.status}`);
    }
    const direct: number[] = [];
    for (let i = 0; i < opts.coldSamples; i++) {
      const t0 = performance.now();
      await sharp(original).rotate().resize({ width: 400, fit: 'inside', withoutEnlargement: true }).webp({ quality: 60 + i }).toBuffer();
      direct.push(performance.now() - t0);
    }
    const coldRatio = median(viaHttp) / median(direct);
    rows.push(`| direct sharp in-process, 2400×1600 JPEG → 400 px WebP | 1 | — | ${median(direct).toFixed(1)} | ${Math.max(...direct).toFixed(1)} (max) | — | |`);
    rows.push(
      `| cold transform over HTTP (new variant each) | 1 | — | ${median(viaHttp).toFixed(1)} | ${Math.max(...viaHttp).toFixed(1)} (max) | ≤ 1.3× direct | ${coldRatio.toFixed(2)}× ${coldRatio <= 1.3 ? 'met' : 'MISSED'} |`,
    );

    // 3. A burst of 100 concurrent cold requests: all answered, memory bounded by the transform slots.
    const before = memoryOf(server.pid);
    const burstStart = performance.now();
    const burst = await Promise.all(
      Array.from({ length: 100 }, async (_, i) => {
        const res = await fetch(readUrl(`?w=${300 + i}&fmt=webp`));
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const burstMs = performance.now() - burstStart;
    const after = memoryOf(server.pid);
    const ok = burst.filter((s) => s === 200).length;
    rows.push(
      `| burst: 100 concurrent cold requests (distinct variants) | 100 | ${f1((ok / burstMs) * 1000)} | — | ${f1(burstMs)} (all done) | peak RSS bounded | ${ok}/100 answered 200; RSS ${before ? f1(before.rssMiB) : '?'} MiB before, peak ${after ? f1(after.peakMiB) : '?'} MiB |`,
    );
    if (ok !== 100) failed = true;

    // 4. Upload rate of ~1 MB JPEGs.
    const megabyte = await photo(1800, 1250, 97);
    const { body, contentType } = multipartBody('upload.jpg', megabyte);
    opts.log(`media: uploads of ${(megabyte.length / 1e6).toFixed(2)} MB …`);
    const uploads = await uploadLoad(`${server.baseUrl}${TENANT}/websites/${user.websiteId}/media`, user.token, body, contentType, 4, opts.durationS);
    rows.push(
      `| upload ${(megabyte.length / 1e6).toFixed(2)} MB JPEG (multipart) | 4 | ${f1(uploads.reqPerSec)} | — | — | reported | ${f1((uploads.reqPerSec * megabyte.length) / 1e6)} MB/s; ${uploads.ok} stored${uploads.other ? `, ${uploads.other} FAILED` : ''} |`,
    );
    if (uploads.other) failed = true;
    const peak = memoryOf(server.pid);
    const problems = server.problemLines();

    // 5. The cached read again with the memory cache off: every read streams from blob storage.
    await server.stop();
    server = await startServer({ mainJs: opts.mainJs, cwd: opts.cwd, env: { DATA_DIR: dataDir, MEDIA_MEMORY_CACHE_BYTES: '0' } });
    opts.cleanups.push(server.stop);
    await hammer({ url: readUrl('?w=400&fmt=webp'), connections: opts.connections, durationS: 1 });
    opts.log('media: cached variant read from blob storage only …');
    const storageOnly = await hammer({ url: readUrl('?w=400&fmt=webp'), connections: opts.connections, durationS: opts.durationS });
    const storageRatio = storageOnly.reqPerSec / ceiling.reqPerSec;
    rows.splice(
      2,
      0,
      `| cached variant read, memory cache off (\`MEDIA_MEMORY_CACHE_BYTES=0\`) | ${opts.connections} | ${f1(storageOnly.reqPerSec)} | ${storageOnly.p50.toFixed(2)} | ${storageOnly.p99.toFixed(2)} | (≥ 0.70× ceiling) | ${storageRatio.toFixed(2)}×${storageOnly.non2xx + storageOnly.errors ? ', FLAGGED' : ''} |`,
    );
    notes.push(
      `Server peak RSS over the whole media run: ${peak ? f1(peak.peakMiB) : '?'} MiB (transform slots: MEDIA_TRANSFORM_CONCURRENCY, default = cores).`,
      `Cold transform samples: ${opts.coldSamples} over HTTP (median ${median(viaHttp).toFixed(1)} ms) and ${opts.coldSamples} direct (median ${median(direct).toFixed(1)} ms).`,
    );
    if (problems.length) notes.push(`The server logged warnings/errors: ${problems[0].slice(0, 300)}`);
  } catch (error) {
    failed = true;
    notes.push(`**The media run FAILED:** ${(error as Error).message}${server ? `\n\n\`\`\`\n${server.logTail()}\n\`\`\`` : ''}`);
  } finally {
    await staticServer?.stop();
    await server?.stop();
  }

  const header = ['| case | conns | req/s | p50 ms | p99 ms | target | result |', '|---|---:|---:|---:|---:|---|---|'];
  const markdown = [
    '## Media (SQLite, local disk blobs)',
    '',
    'Platform and @fastify/static each run as child processes; the load generator shares the machine. Cold transforms and direct sharp run one at a time; their p50 column is the median.',
    '',
    ...header,
    ...rows,
    '',
    ...notes.map((n) => `- ${n}`),
    '',
  ];
  text.push('=== Media ===', ...header, ...rows, ...notes);
  return { markdown, text, failed };
}
