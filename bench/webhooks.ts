/**
 * Webhook delivery lag (issue 27), `BENCH_SUITES=webhooks npm run bench`:
 *
 *   a fast receiver on loopback (node:http, answers 204 at once; the server runs with
 *   WEBHOOK_ALLOW_HOSTS=127.0.0.1) subscribed to `media_folder.created`; media folders (a light
 *   write) are created through the tenant API at a steady rate (open loop: one write every 1/rate s,
 *   whatever the answers). Lag = arrival at the receiver − the write's answer (the delivery pipeline:
 *   commit, fan-out row, wake-up, claim, sign, POST; 0 when the delivery came first); the write's own
 *   latency and the lag from the event's `occur_time` are noted. Every event must arrive (at least
 *   once). Target p99 < 1 s.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiClient, TENANT, waitForOperation } from './api.js';
import type { LoadResult } from './load.js';
import type { CaseRow } from './report.js';
import type { BenchSuite } from './suites.js';

const TARGET_P99_MS = 1000;

function stats(samples: number[]): LoadResult {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return { requests: samples.length, reqPerSec: 0, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], non2xx: 0, errors: 0, timeouts: 0, statuses: { 200: samples.length } };
}

export const webhooksSuite: BenchSuite = {
  id: 'webhooks',
  targets: [`webhooks: delivery lag (write answered → arrival at a fast loopback receiver) p99 < ${TARGET_P99_MS} ms while media folders are created at a steady rate`],
  setup: [
    'webhooks: one webhook on `media_folder.created` pointing at a loopback receiver answering 204; folders created through the tenant API at 10 and 25 writes/s (open loop); lag from each write\'s answer to the arrival of its event',
  ],
  async run(ctx) {
    const api = apiClient(ctx.base, ctx.token);
    await waitForOperation(api, ctx.user.operation);
    /** Resource name → arrival time (ms). */
    const arrivals = new Map<string, number>();
    /** Resource name → lag from the event's occur_time. */
    const sinceEvent = new Map<string, number>();
    let duplicates = 0;
    const seen = new Set<string>();
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const now = Date.now();
        const id = String(req.headers['webhook-id']);
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          const resource = String(body.data.resource);
          if (seen.has(id)) duplicates++;
          else {
            seen.add(id);
            arrivals.set(resource, now);
            sinceEvent.set(resource, now - Date.parse(body.data.occur_time));
          }
        } catch {
          // not ours
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    try {
      const port = (receiver.address() as AddressInfo).port;
      const hook = await api.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/webhooks`, { url: `http://127.0.0.1:${port}/hook`, event_types: ['media_folder.created'] });
      if (hook.status !== 201) throw new Error(`webhook create: ${hook.status} ${hook.text.slice(0, 300)}`);
      const seconds = ctx.quick ? 5 : 20;
      for (const rate of [10, 25]) {
        const row: CaseRow = {
          id: `webhooks-lag-${rate}`,
          label: `webhooks: delivery lag after the write's answer, ${rate} media folder creates/s for ${seconds} s, fast receiver`,
          connections: 1,
          target: { kind: 'p99', maxMs: TARGET_P99_MS },
          notes: [],
        };
        ctx.report.rows.push(row);
        ctx.log(`${ctx.dialect}: ${row.label} …`);
        arrivals.clear();
        sinceEvent.clear();
        duplicates = 0;
        /** Resource name → when its write answered; write latencies. */
        const answered = new Map<string, number>();
        const writeMs: number[] = [];
        const total = rate * seconds;
        const started = Date.now();
        const writes: Array<Promise<number>> = [];
        for (let i = 0; i < total; i++) {
          const due = started + (i * 1000) / rate;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const sent = Date.now();
          writes.push(
            api.call('POST', `${TENANT}/websites/${ctx.user.websiteId}/media_folders`, { display_name: `Lag ${rate} ${i}` }).then((r) => {
              const at = Date.now();
              writeMs.push(at - sent);
              if (r.status === 201) answered.set(String(r.body.name), at);
              return r.status;
            }),
          );
        }
        const statuses = await Promise.all(writes);
        const created = statuses.filter((s) => s === 201).length;
        const deadline = Date.now() + 60_000;
        while (arrivals.size < created && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        const lags = [...answered].filter(([name]) => arrivals.has(name)).map(([name, at]) => Math.max(0, arrivals.get(name)! - at));
        row.result = stats(lags);
        const writes_ = stats(writeMs);
        const fromEvent = stats([...sinceEvent.values()]);
        row.notes.push(`${created} of ${total} writes succeeded; ${arrivals.size} events arrived (${duplicates} duplicates) within a minute of the last write`);
        row.notes.push(`write latency p50 ${writes_.p50.toFixed(0)} ms, p99 ${writes_.p99.toFixed(0)} ms; lag from the event's occur_time p50 ${fromEvent.p50.toFixed(0)} ms, p99 ${fromEvent.p99.toFixed(0)} ms`);
        if (arrivals.size < created) row.notes.push(`MISSING ${created - arrivals.size} deliveries`);
      }
    } finally {
      await new Promise<void>((done) => receiver.close(() => done()));
    }
  },
};
