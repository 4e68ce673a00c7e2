/**
 * One autocannon run (programmatic API, loopback only) and the numbers the report needs.
 *
 * Latency percentiles are computed here from every 2xx response time autocannon reports (float ms),
 * because autocannon's own histogram has 1 ms resolution — too coarse for sub-millisecond routes.
 */
import type { EventEmitter } from 'node:events';
import autocannon from 'autocannon';
import { delay } from './server.js';

export interface LoadSpec {
  url: string;
  token?: string;
  /** Default GET; a POST case (a read-only custom method such as `:resolve`) sends `body` as JSON. */
  method?: 'GET' | 'POST';
  body?: string;
  /** Extra request headers (e.g. `host` of a rendered website reached on loopback). */
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
  /** autocannon's `requests`: a sequence each connection cycles (own method, headers, body, `setupRequest`). */
  requests?: autocannon.Request[];
}

export interface LoadResult {
  /** Responses received (any status). */
  requests: number;
  /** autocannon's average of per-second response counts. */
  reqPerSec: number;
  /** Of 2xx responses, ms. */
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Status code → count, for the non-2xx note. */
  statuses: Record<string, number>;
}

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') throw new Error(`refusing to load a non-loopback address: ${url}`);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil(p * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))];
}

export function hammer(spec: LoadSpec): Promise<LoadResult> {
  assertLoopback(spec.url);
  const latencies: number[] = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        connections: spec.connections,
        duration: spec.durationS,
        // Slow cases must show up as latency, not as timeouts; a request slower than this is an error.
        timeout: Math.max(30, spec.durationS * 3),
        method: spec.method ?? 'GET',
        ...(spec.body !== undefined && { body: spec.body }),
        ...(spec.requests !== undefined && { requests: spec.requests }),
        headers: {
          ...(spec.token ? { authorization: `Bearer ${spec.token}` } : {}),
          ...(spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...spec.headers,
        },
      },
      (error, result) => {
        if (error) return reject(error);
        const sorted = Float64Array.from(latencies).sort();
        const statuses: Record<string, number> = {};
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
        resolve({
          requests: result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'],
          reqPerSec: result.requests.average,
          p50: percentile(sorted, 0.5),
          p99: percentile(sorted, 0.99),
          max: sorted.length ? sorted[sorted.length - 1] : NaN,
          non2xx: result.non2xx,
          errors: result.errors,
          timeouts: result.timeouts,
          statuses,
        });
      },
    );
    // The runtime emits (client, statusCode, resBytes, responseTime); @types/autocannon omits the client.
    (instance as unknown as EventEmitter).on('response', (...args: unknown[]) => {
      const status = Number(args[1]);
      const ms = Number(args[3]);
      if (status >= 200 && status < 300 && Number.isFinite(ms)) latencies.push(ms);
    });
  });
}

/**
 * Waits until the server has worked off requests left in flight by the previous run (autocannon drops
 * its sockets at the end, but handlers already started still run). Each probe must answer fast three
 * rounds in a row: `/readyz` queues behind the write connection (and, on PostgreSQL, the pool), a cheap
 * authenticated List behind the read path (SQLite's reader threads). Bounded by `maxMs`; answers how
 * long it waited.
 */
export async function drain(baseUrl: string, probes: Array<{ path: string; token?: string }>, maxMs = 180_000): Promise<number> {
  const started = Date.now();
  let fastRounds = 0;
  while (Date.now() - started < maxMs) {
    let fast = true;
    for (const probe of probes) {
      const t0 = performance.now();
      try {
        const res = await fetch(baseUrl + probe.path, {
          headers: probe.token ? { authorization: `Bearer ${probe.token}` } : {},
          signal: AbortSignal.timeout(maxMs),
        });
        await res.arrayBuffer();
        if (!res.ok || performance.now() - t0 > 25) fast = false;
      } catch {
        fast = false;
      }
    }
    fastRounds = fast ? fastRounds + 1 : 0;
    if (fastRounds >= 3) return Date.now() - started;
    await delay(fast ? 20 : 100);
  }
  return Date.now() - started;
}
