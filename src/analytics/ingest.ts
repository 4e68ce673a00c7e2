import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../platform/db/database.js';
import type { Operations } from '../platform/jobs/operations.js';
import { storeHits, type Hit } from './collection.repo.js';
import { armRollups } from './rollups.js';

export interface IngestOptions {
  /** A batch is written this long after its first hit arrived (default 500 ms). */
  flushMs?: number;
  /** A batch is written at once when it has this many hits, and never holds more (default 2 000). */
  maxBatch?: number;
  /** Hits waiting, all websites together; past it `offer` refuses (default 20 000). */
  maxQueued?: number;
}

export interface Ingest {
  /** Queues the hits (all or none); false when the queue cannot take them all (the caller answers 429). */
  offer(hits: Hit[]): boolean;
  /** Hits waiting for a flush (not those being written). */
  readonly queued: number;
  /** Writes everything queued (waits for a running flush first); for shutdown and tests. */
  drain(): Promise<void>;
  /** Stops the timer and drains: a graceful stop loses nothing. */
  close(): Promise<void>;
}

export const INGEST_DEFAULTS = { flushMs: 500, maxBatch: 2_000, maxQueued: 20_000 } as const;

/**
 * The batched ingest (docs/architecture.md, "Analytics: collection"): hits wait in a bounded
 * in-process queue and are written by one flush at a time, every `flushMs` or as soon as
 * `maxBatch` are waiting, each flush ONE transaction for all hits of all websites. A failed flush
 * is logged and its hits dropped (never retried: a database that is down must not grow the queue);
 * a killed process loses at most what was queued since the last flush. A flush also starts the
 * roll-up chain of every website it wrote to when none is live (`armRollups`).
 */
export function createIngest(database: Database, operations: Operations, logger: FastifyBaseLogger, options: IngestOptions = {}): Ingest {
  const { flushMs, maxBatch, maxQueued } = { ...INGEST_DEFAULTS, ...options };
  let queue: Hit[] = [];
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> | undefined;
  let closed = false;

  const schedule = () => {
    if (closed || flushing || queue.length === 0) return;
    if (queue.length >= maxBatch) {
      flushing = flushLoop();
      return;
    }
    timer ??= setTimeout(() => {
      timer = undefined;
      flushing ??= flushLoop();
    }, flushMs);
  };

  /** Writes batches until fewer than a full batch waits (the rest waits for the timer). */
  async function flushLoop(): Promise<void> {
    try {
      do {
        const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
        queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
        try {
          const now = Date.now();
          const armed = await storeHits(database.db, database.dialect, batch, (trx, websiteId, accountId) => armRollups(trx, { operations, dialect: database.dialect }, websiteId, accountId, now));
          if (armed) operations.wake();
        } catch (err) {
          logger.error({ err, hits: batch.length }, 'analytics flush failed; its hits are dropped');
        }
      } while (queue.length >= maxBatch || (closed && queue.length > 0));
    } finally {
      flushing = undefined;
      if (timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      schedule();
    }
  }

  async function drain(): Promise<void> {
    while (flushing || queue.length > 0) {
      if (flushing) await flushing;
      else {
        if (timer) clearTimeout(timer);
        timer = undefined;
        flushing = flushLoop();
      }
    }
  }

  return {
    offer(hits) {
      if (closed || queue.length + hits.length > maxQueued) return false;
      for (const hit of hits) queue.push(hit);
      schedule();
      return true;
    },
    get queued() {
      return queue.length;
    },
    drain,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await drain();
    },
  };
}
