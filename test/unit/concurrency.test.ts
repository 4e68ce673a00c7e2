/**
 * The bounded-work helpers: a Semaphore never runs more than its size and refuses beyond its queue;
 * SingleFlight shares one run per key and holds the key until the follow-up work settled.
 */
import { describe, expect, it } from 'vitest';
import { Semaphore, SingleFlight } from '../../src/platform/concurrency.js';
import { ApiError } from '../../src/platform/errors.js';

/** A promise resolved from outside. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe('Semaphore', () => {
  it('runs at most `size` tasks at once, the rest wait in order, and refuses beyond the queue with UNAVAILABLE', async () => {
    const semaphore = new Semaphore(2, 2);
    const gates = Array.from({ length: 4 }, () => gate());
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const tasks = gates.map((g, i) =>
      semaphore.run(async () => {
        started.push(i);
        running++;
        most = Math.max(most, running);
        await g.promise;
        running--;
        return i;
      }),
    );
    await Promise.resolve();
    expect(semaphore.load).toEqual({ running: 2, waiting: 2 });
    const refused = semaphore.run(async () => 'never');
    await expect(refused).rejects.toSatisfy((err: unknown) => err instanceof ApiError && err.status === 'UNAVAILABLE');
    for (const g of gates) g.open();
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
    expect(semaphore.load).toEqual({ running: 0, waiting: 0 });
  });

  it('a failing task frees its slot', async () => {
    const semaphore = new Semaphore(1, 1);
    await expect(semaphore.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await semaphore.run(async () => 'next')).toBe('next');
  });
});

describe('SingleFlight', () => {
  it('concurrent calls with one key share one run; the key stays taken until `after` settled', async () => {
    const flight = new SingleFlight<string>();
    const stored = gate();
    let runs = 0;
    const work = async () => {
      runs++;
      return { value: 'made', after: stored.promise };
    };
    const answers = await Promise.all([flight.do('k', work), flight.do('k', work), flight.do('k', work)]);
    expect(answers).toEqual(['made', 'made', 'made']);
    // Answered, but still storing: a new caller joins instead of starting again.
    expect(await flight.do('k', work)).toBe('made');
    expect(runs).toBe(1);
    stored.open();
    await stored.promise;
    await new Promise((resolve) => setImmediate(resolve));
    expect(flight.size).toBe(0);
    await flight.do('k', async () => ({ value: 'again' }));
    expect(runs).toBe(1);
  });

  it('a failed run releases the key and every caller sees the failure', async () => {
    const flight = new SingleFlight<string>();
    const failing = async (): Promise<{ value: string }> => Promise.reject(new Error('nope'));
    await expect(Promise.all([flight.do('k', failing), flight.do('k', failing)])).rejects.toThrow('nope');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await flight.do('k', async () => ({ value: 'ok' }))).toBe('ok');
  });
});
