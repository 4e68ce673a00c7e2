// Dialect-independent (no database): runs in both vitest projects, cheap enough to repeat.
import { EventEmitter } from 'node:events';
import { getHeapStatistics } from 'node:v8';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IDLE_RELEASE_GROWTH_BYTES, IDLE_RELEASE_MS, releaseStartupMemory, releaseWhenIdle } from '../../src/platform/memory.js';

/** Work no request asked for (the search indexer catching up): garbage that grows the heap. */
function backgroundWork(bytes: number): void {
  let kept: string[] = [];
  for (let made = 0; made < bytes; made += 1024) kept.push('x'.repeat(1000) + made);
  kept = [];
  void kept;
}

describe('idle memory', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives memory back after background work while no request comes', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    releaseStartupMemory();
    const server = new EventEmitter();
    const stop = releaseWhenIdle(server as never);
    try {
      const before = getHeapStatistics().total_heap_size;
      backgroundWork(4 * IDLE_RELEASE_GROWTH_BYTES);
      const grown = getHeapStatistics().total_heap_size;
      expect(grown).toBeGreaterThan(before + IDLE_RELEASE_GROWTH_BYTES);
      vi.advanceTimersByTime(IDLE_RELEASE_MS);
      expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - IDLE_RELEASE_GROWTH_BYTES);
    } finally {
      stop();
    }
  });

  it('gives memory back after requests once they stop', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    releaseStartupMemory();
    const server = new EventEmitter();
    const stop = releaseWhenIdle(server as never);
    try {
      server.emit('request');
      backgroundWork(4 * IDLE_RELEASE_GROWTH_BYTES);
      const grown = getHeapStatistics().total_heap_size;
      // Requests came in this stretch: nothing is collected while the server is busy.
      vi.advanceTimersByTime(IDLE_RELEASE_MS);
      expect(getHeapStatistics().total_heap_size).toBeGreaterThan(grown - IDLE_RELEASE_GROWTH_BYTES);
      vi.advanceTimersByTime(IDLE_RELEASE_MS);
      expect(getHeapStatistics().total_heap_size).toBeLessThan(grown - IDLE_RELEASE_GROWTH_BYTES);
    } finally {
      stop();
    }
  });
});
