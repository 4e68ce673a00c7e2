import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../db/database.js';

/**
 * Wakes idle worker loops early: `wake()` after a commit that queued work in this process, or a
 * PostgreSQL NOTIFY from another process.
 */
export class Wakeup {
  private waiters: Array<() => void> = [];

  wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  /** Resolves after `ms`, or at the next `wake()`. */
  idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }
}

export interface WorkerLoopOptions {
  /** Loops run side by side, each one unit of work at a time. */
  concurrency: number;
  /** How long an idle loop waits before looking again (unless woken). */
  pollMs: number;
  /** Claims and runs one due unit of work; false when none was due. */
  runOne(): Promise<boolean>;
  /** Periodic clean-up (purging ended rows), at most every `housekeepingEveryMs`. */
  housekeeping?(now: number): Promise<unknown>;
  housekeepingEveryMs?: number;
  wakeup: Wakeup;
  /** NOTIFY channel that wakes the loops when another process queues work (PostgreSQL). */
  channel: string;
  database: Database;
  logger: FastifyBaseLogger;
  /** Names the queue in log lines. */
  what: string;
}

export interface WorkerLoops {
  /** Lets every loop finish the unit it is running and end; resolves when all have ended. */
  halt(): Promise<void>;
  /** Stops listening for NOTIFY. */
  unsubscribe(): Promise<void>;
}

/**
 * The polling loops behind every durable queue (Operations, the mail outbox): each loop claims and
 * runs one unit at a time, idles `pollMs` when nothing is due, and is woken early by `wakeup` or a
 * NOTIFY on `channel`. An error in one round is logged and the loop goes on after an idle wait.
 */
export function startWorkerLoops(opts: WorkerLoopOptions): WorkerLoops {
  const housekeepingEveryMs = opts.housekeepingEveryMs ?? 600_000;
  let stopping = false;
  let lastHousekeeping = 0;
  const loop = async () => {
    while (!stopping) {
      try {
        if (opts.housekeeping && Date.now() - lastHousekeeping > housekeepingEveryMs) {
          lastHousekeeping = Date.now();
          await opts.housekeeping(lastHousekeeping);
        }
        if (!(await opts.runOne())) await opts.wakeup.idle(opts.pollMs);
      } catch (err) {
        if (stopping) break;
        opts.logger.error({ err }, `${opts.what} worker loop error`);
        await opts.wakeup.idle(opts.pollMs);
      }
    }
  };
  const loops = Promise.all(Array.from({ length: opts.concurrency }, loop));
  const subscription = opts.database.subscribe?.(opts.channel, () => opts.wakeup.wake()).catch((err) => {
    opts.logger.warn({ err }, `no LISTEN connection for new ${opts.what}; polling only`);
    return undefined;
  });
  return {
    async halt() {
      stopping = true;
      opts.wakeup.wake();
      await loops;
    },
    async unsubscribe() {
      await (await subscription)?.();
    },
  };
}
