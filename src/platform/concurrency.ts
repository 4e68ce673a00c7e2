import { Unavailable } from './errors.js';

/**
 * At most `size` tasks at once; up to `maxQueue` more wait in arrival order. A task arriving when
 * the queue is full is refused with UNAVAILABLE at once, so a burst waits in a bounded line
 * instead of piling up work (and memory) without end.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly size: number,
    readonly maxQueue: number,
  ) {
    if (!(size >= 1)) throw new Error('Semaphore size must be at least 1');
  }

  /** Tasks running and waiting now (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) {
      if (this.waiting.length >= this.maxQueue) throw new Unavailable('the server is busy with other work; try again shortly', 'BUSY');
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` never drops below the line.
      if (next) next();
      else this.running--;
    }
  }
}

/**
 * Single-flight: concurrent calls with the same key share one run of `work` and its value. `work`
 * may hand back follow-up work (`after`, e.g. storing what it made): callers get the value at once,
 * and the key stays taken until the follow-up settled, so nobody starts the same work meanwhile.
 */
export class SingleFlight<T> {
  private readonly inFlight = new Map<string, Promise<T>>();

  get size(): number {
    return this.inFlight.size;
  }

  /** Whether work for key is running (a call now would join it rather than start it). */
  has(key: string): boolean {
    return this.inFlight.has(key);
  }

  do(key: string, work: () => Promise<{ value: T; after?: Promise<unknown> }>): Promise<T> {
    const current = this.inFlight.get(key);
    if (current) return current;
    const started = work();
    const value = started.then((r) => r.value);
    this.inFlight.set(key, value);
    const release = () => {
      if (this.inFlight.get(key) === value) this.inFlight.delete(key);
    };
    started.then((r) => (r.after ?? Promise.resolve()).then(release, release), release);
    return value;
  }
}
