/**
 * Mergeable visitor sets for hourly roll-ups (docs/decisions.md, "Analytics query and roll-ups").
 *
 * A visitor id is the hex of a SHA-256 prefix, so its first bits are already a uniform hash: the
 * set keeps the first 53 (exact in a double; collisions negligible), never the id. Two forms:
 * - exact: the sorted distinct hashes, while at most `EXACT_LIMIT` (512 × 8 bytes = the size
 *   of the dense form), so a quiet hour stores a few bytes and unions of quiet hours stay exact;
 * - dense: a HyperLogLog of 2^12 one-byte registers (Flajolet et al. 2007, with linear counting
 *   below 2.5 m; a 64-bit hash needs no large-range correction): relative standard error
 *   1.04 / √4096 ≈ 1.6 %. Union = register-wise maximum.
 * Serialised as one byte of form, then 8 bytes per hash (exact; the top 53 bits kept) or 4 096 registers (dense).
 */

const PRECISION = 12;
const REGISTERS = 1 << PRECISION;
/** Largest exact set; one more visitor turns it dense (same number of bytes either way). */
export const EXACT_LIMIT = REGISTERS / 8;
/** Documented relative standard error of a count from a dense sketch. */
export const SKETCH_RELATIVE_ERROR = Math.round((1.04 / Math.sqrt(REGISTERS)) * 10_000) / 10_000;
const ALPHA = 0.7213 / (1 + 1.079 / REGISTERS);
/** 2^-rank for every rank a register can hold (at most 42), read by `count` instead of a power per register. */
const INVERSE_POWERS = Float64Array.from({ length: 64 }, (_, rank) => 2 ** -rank);
const EXACT = 1;
const DENSE = 2;

/** Whether stored sketch bytes are the HyperLogLog form (their count is an estimate). */
export const isDenseSketch = (bytes: Uint8Array): boolean => bytes[0] === DENSE;

/** 2^21: a hash is kept as its top 53 bits, `high · 2^21 + (low >>> 11)`, exact in a double. */
const LOW_SHIFT = 2 ** 21;

/** A set of visitors: exact (`hashes`) or estimated (`registers`). */
export class VisitorSketch {
  /** Exact form: the top 53 bits of each visitor's 64-bit hash. */
  private hashes: Set<number> | undefined = new Set();
  private registers: Uint8Array | undefined;

  /** `limit`: largest exact set kept (Infinity for an exact count of a bounded range). */
  constructor(private readonly limit = EXACT_LIMIT) {}

  /** Adds a visitor by its id (hex; its first 16 digits are the hash). */
  addVisitorId(visitorId: string): void {
    const hex = visitorId.slice(0, 16).padEnd(16, '0');
    this.addWords(parseInt(hex.slice(0, 8), 16) >>> 0, parseInt(hex.slice(8, 16), 16) >>> 0);
  }

  get approximate(): boolean {
    return this.registers !== undefined;
  }

  count(): number {
    if (this.hashes) return this.hashes.size;
    const registers = this.registers!;
    let sum = 0;
    let zeros = 0;
    for (let i = 0; i < REGISTERS; i++) {
      sum += INVERSE_POWERS[registers[i]];
      if (registers[i] === 0) zeros++;
    }
    const raw = (ALPHA * REGISTERS * REGISTERS) / sum;
    const estimate = raw <= 2.5 * REGISTERS && zeros > 0 ? REGISTERS * Math.log(REGISTERS / zeros) : raw;
    return Math.round(estimate);
  }

  /** Adds every visitor of `other` (union). */
  merge(other: VisitorSketch): void {
    if (other.hashes) {
      for (const hash of other.hashes) this.addWords(Math.floor(hash / LOW_SHIFT), ((hash % LOW_SHIFT) * 2048) >>> 0);
      return;
    }
    this.densify();
    const mine = this.registers!;
    const theirs = other.registers!;
    for (let i = 0; i < REGISTERS; i++) if (theirs[i] > mine[i]) mine[i] = theirs[i];
  }

  /** Adds the sketch stored as `bytes` (see `toBytes`) without building an intermediate object. */
  mergeBytes(bytes: Uint8Array): void {
    if (bytes[0] === EXACT) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      for (let offset = 1; offset + 8 <= bytes.length; offset += 8) this.addWords(view.getUint32(offset), view.getUint32(offset + 4));
      return;
    }
    if (bytes[0] !== DENSE || bytes.length !== REGISTERS + 1) throw new Error('not a visitor sketch');
    this.densify();
    const mine = this.registers!;
    for (let i = 0; i < REGISTERS; i++) if (bytes[i + 1] > mine[i]) mine[i] = bytes[i + 1];
  }

  toBytes(): Uint8Array {
    if (this.registers) {
      const out = new Uint8Array(REGISTERS + 1);
      out[0] = DENSE;
      out.set(this.registers, 1);
      return out;
    }
    const sorted = Float64Array.from(this.hashes!).sort();
    const out = new Uint8Array(1 + sorted.length * 8);
    const view = new DataView(out.buffer);
    out[0] = EXACT;
    sorted.forEach((hash, i) => {
      view.setUint32(1 + i * 8, Math.floor(hash / LOW_SHIFT));
      view.setUint32(5 + i * 8, ((hash % LOW_SHIFT) * 2048) >>> 0);
    });
    return out;
  }

  static fromBytes(bytes: Uint8Array, limit = EXACT_LIMIT): VisitorSketch {
    const sketch = new VisitorSketch(limit);
    sketch.mergeBytes(bytes);
    return sketch;
  }

  private addWords(high: number, low: number): void {
    if (this.registers) {
      addToRegisters(this.registers, high, low);
      return;
    }
    this.hashes!.add(high * LOW_SHIFT + (low >>> 11));
    if (this.hashes!.size > this.limit) this.densify();
  }

  /**
   * Switches to the dense form now: a union that will certainly exceed the exact limit (its parts'
   * exact counts sum past it) skips building the exact set first.
   */
  densify(): void {
    if (this.registers) return;
    this.registers = new Uint8Array(REGISTERS);
    for (const hash of this.hashes!) addToRegisters(this.registers, Math.floor(hash / LOW_SHIFT), ((hash % LOW_SHIFT) * 2048) >>> 0);
    this.hashes = undefined;
  }
}

/** HyperLogLog update: the first 12 bits pick the register, the rank is 1 + the leading zeros of the next 41 (kept) bits. */
function addToRegisters(registers: Uint8Array, high: number, low: number): void {
  const index = high >>> (32 - PRECISION);
  const rest = high & ((1 << (32 - PRECISION)) - 1);
  const rank = rest !== 0 ? Math.clz32(rest) - PRECISION + 1 : low !== 0 ? 32 - PRECISION + Math.clz32(low) + 1 : 42;
  if (rank > registers[index]) registers[index] = rank;
}
