/**
 * Bounded in-process caches. Every cache is bounded twice: by entry count and by an estimate of the
 * bytes it holds (`approximateBytes`, or the cache's own `sizeOf`), so a cache of large values (a
 * sitemap, a rendered block) cannot grow the process by count alone. Oldest (least recently used)
 * entries go first once either bound is reached.
 */
export interface CacheBounds<K, V> {
  /** Most entries. */
  max: number;
  /** Most bytes of keys and values, estimated (default 16 MiB). */
  maxBytes?: number;
  /** Bytes of one entry; default `approximateBytes(key) + approximateBytes(value)`. */
  sizeOf?: (key: K, value: V) => number;
}

const DEFAULT_MAX_BYTES = 16 * 2 ** 20;

/**
 * Rough heap bytes of a value: strings by length, objects and arrays by their members (to a depth of
 * 4), anything else (a Promise, a function) a fixed amount. An estimate for cache bounds, not a
 * measurement; it errs high for short strings (V8 headers) and is linear in the value's size.
 */
export function approximateBytes(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return 16 + value.length;
    case 'number':
    case 'boolean':
    case 'undefined':
      return 8;
    case 'bigint':
      return 16;
    case 'object': {
      if (value === null) return 8;
      if (depth >= 4 || value instanceof Promise) return 64;
      if (ArrayBuffer.isView(value)) return 64 + value.byteLength;
      let bytes = 32;
      if (Array.isArray(value)) for (const item of value) bytes += 8 + approximateBytes(item, depth + 1);
      else for (const [k, v] of Object.entries(value)) bytes += 8 + k.length + approximateBytes(v, depth + 1);
      return bytes;
    }
    default:
      return 64;
  }
}

interface Slot<V> {
  value: V;
  bytes: number;
  /** Epoch ms after which the entry is gone (TtlCache), or the version it was read under (VersionedCache). */
  tag: number;
  /** The store's `moves` when the entry last went to the young end. */
  moved: number;
}

/** The shared store: a Map in least-recently-used order with count and byte bounds. */
class BoundedStore<K, V> {
  private readonly entries = new Map<K, Slot<V>>();
  private bytes = 0;
  /** Entries placed at the young end so far (puts and refreshes). */
  private moves = 0;
  private readonly maxBytes: number;
  private readonly sizeOf: (key: K, value: V) => number;
  constructor(private readonly bounds: CacheBounds<K, V>) {
    this.maxBytes = bounds.maxBytes ?? DEFAULT_MAX_BYTES;
    this.sizeOf = bounds.sizeOf ?? ((k, v) => approximateBytes(k) + approximateBytes(v));
  }

  slot(key: K, refresh: boolean): Slot<V> | undefined {
    const slot = this.entries.get(key);
    // Map order is insertion order: re-inserting makes this the most recently used. An entry among
    // the younger half is not moved (a delete and a set on every hit cost more than the rest of a
    // lookup); it cannot be evicted before half the store has been placed after it, and a hit after
    // that moves it.
    if (slot && refresh && this.moves - slot.moved > this.entries.size >> 1) {
      this.entries.delete(key);
      this.entries.set(key, slot);
      slot.moved = ++this.moves;
    }
    return slot;
  }

  put(key: K, value: V, tag: number): void {
    this.delete(key);
    const bytes = this.sizeOf(key, value);
    // A value larger than the whole budget is not kept at all.
    if (bytes > this.maxBytes) return;
    while (this.entries.size > 0 && (this.entries.size >= this.bounds.max || this.bytes + bytes > this.maxBytes)) {
      this.delete(this.entries.keys().next().value as K);
    }
    this.entries.set(key, { value, bytes, tag, moved: ++this.moves });
    this.bytes += bytes;
  }

  delete(key: K): void {
    const slot = this.entries.get(key);
    if (!slot) return;
    this.entries.delete(key);
    this.bytes -= slot.bytes;
  }

  keys(): IterableIterator<K> {
    return this.entries.keys();
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  get byteSize(): number {
    return this.bytes;
  }
}

/**
 * A bounded in-process cache with per-entry expiry. Oldest entries are evicted first once a bound is
 * reached. For short-lived facts that are costly to re-derive on every request (verified tokens).
 */
export class TtlCache<K, V> {
  private readonly store: BoundedStore<K, V>;
  constructor(
    max: number,
    private readonly ttlMs: number,
    bounds: Omit<CacheBounds<K, V>, 'max'> = {},
  ) {
    this.store = new BoundedStore({ ...bounds, max });
  }

  get(key: K, now = Date.now()): V | undefined {
    const slot = this.store.slot(key, false);
    if (!slot) return undefined;
    if (slot.tag <= now) {
      this.store.delete(key);
      return undefined;
    }
    return slot.value;
  }

  set(key: K, value: V, now = Date.now(), ttlMs = this.ttlMs): void {
    this.store.put(key, value, now + ttlMs);
  }

  delete(key: K): void {
    this.store.delete(key);
  }

  /** Drops every entry whose key matches. */
  deleteWhere(predicate: (key: K) => boolean): void {
    for (const key of [...this.store.keys()]) if (predicate(key)) this.store.delete(key);
  }

  clear(): void {
    this.store.clear();
  }

  get size(): number {
    return this.store.size;
  }

  get byteSize(): number {
    return this.store.byteSize;
  }
}

/**
 * A bounded in-process cache without expiry: a read refreshes the entry, and the least recently
 * used one goes once a bound is reached. For facts that stay true until their key changes.
 */
export class LruCache<K, V> {
  private readonly store: BoundedStore<K, V>;
  constructor(max: number, bounds: Omit<CacheBounds<K, V>, 'max'> = {}) {
    this.store = new BoundedStore({ ...bounds, max });
  }

  get(key: K): V | undefined {
    return this.store.slot(key, true)?.value;
  }

  set(key: K, value: V): void {
    this.store.put(key, value, 0);
  }

  get size(): number {
    return this.store.size;
  }

  get byteSize(): number {
    return this.store.byteSize;
  }
}

/**
 * A bounded cache whose entries hold while the version they were read under is current
 * (src/platform/cache-invalidation.ts: a topic's version, raised by every write that can change the
 * cached answer, in any process). `load` reads the version before and after reading the value and
 * keeps the value only if no write came in between, so a read racing a write never caches the old row.
 */
export class VersionedCache<K, V> {
  private readonly store: BoundedStore<K, V>;
  constructor(bounds: CacheBounds<K, V>) {
    this.store = new BoundedStore(bounds);
  }

  /** The entry of `key` if it was read under `version`. */
  get(key: K, version: number): V | undefined {
    const slot = this.store.slot(key, true);
    if (!slot) return undefined;
    if (slot.tag !== version) {
      this.store.delete(key);
      return undefined;
    }
    return slot.value;
  }

  /**
   * The entry of `key` under the topic's current version when both are known without waiting: the
   * hot path of a request that can then answer without a promise. Undefined means "ask `load`".
   */
  peek(key: K, version: () => number | Promise<number>): V | undefined {
    const current = version();
    if (typeof current === 'number') return this.get(key, current);
    // The version needs a read: `load` asks again and waits for it (and sees any failure).
    current.catch(() => undefined);
    return undefined;
  }

  /**
   * The value of `key`: cached under the current version, else `read()` (kept when the version did
   * not move meanwhile). `version()` is the topic's current version.
   */
  async load(key: K, version: () => number | Promise<number>, read: () => Promise<V>): Promise<V> {
    const known = version();
    const before = typeof known === 'number' ? known : await known;
    const hit = this.get(key, before);
    if (hit !== undefined) return hit;
    const value = await read();
    if ((await version()) === before) this.store.put(key, value, before);
    return value;
  }

  /** Keeps `value` as read under `version` (a caller that knows no write came in between). */
  set(key: K, value: V, version: number): void {
    this.store.put(key, value, version);
  }

  delete(key: K): void {
    this.store.delete(key);
  }

  clear(): void {
    this.store.clear();
  }

  get size(): number {
    return this.store.size;
  }

  get byteSize(): number {
    return this.store.byteSize;
  }
}
