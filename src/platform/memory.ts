import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives back the memory that building the platform used once (issue 24: idle RSS). Compiling every
 * route's validators and serializers and the OpenAPI documents grows V8's young generation to its
 * largest size, and V8 keeps those pages while the process idles (RSS ~340 MB right after start,
 * ~190 MB after this). One full, compacting collection of everything collectable ("last resort":
 * the young generation is shrunk too) right after start costs some 100 ms, once, before the server
 * announces it is ready. The `gc` function is reached through V8's flag (`--expose-gc` set at run
 * time exposes it to new contexts only), so the process needs no command-line option.
 */
export function releaseStartupMemory(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options?: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** An HTTP server's idle stretch after which memory is given back again (see releaseWhenIdle). */
export const IDLE_RELEASE_MS = 10_000;

/** Heap growth since the last release that, with no request in an idle stretch, makes it release again. */
export const IDLE_RELEASE_GROWTH_BYTES = 32 * 2 ** 20;

/**
 * After a burst of requests the young generation has grown again: once `server` has answered no
 * request for IDLE_RELEASE_MS, the same collection runs once more (once per idle stretch), so a
 * server's idle RSS stays what it was after start. Background work grows the heap without a request
 * (the search indexer catching up with 100 000 pages left ~360 MB of heap behind): an idle stretch
 * in which the heap stands IDLE_RELEASE_GROWTH_BYTES above its size after the last release releases
 * too. Costs one heap-statistics read per stretch while requests come in.
 */
export function releaseWhenIdle(server: { on(event: 'request', listener: () => void): unknown }): () => void {
  let requests = 0;
  let seen = 0;
  let released = true;
  let heapAfterRelease = getHeapStatistics().total_heap_size;
  server.on('request', () => {
    requests++;
    released = false;
  });
  const timer = setInterval(() => {
    if (requests === seen && (!released || getHeapStatistics().total_heap_size > heapAfterRelease + IDLE_RELEASE_GROWTH_BYTES)) {
      released = true;
      releaseStartupMemory();
      heapAfterRelease = getHeapStatistics().total_heap_size;
    }
    seen = requests;
  }, IDLE_RELEASE_MS);
  timer.unref();
  return () => clearInterval(timer);
}
