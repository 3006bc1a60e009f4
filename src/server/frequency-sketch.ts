/**
 * How often each request was asked for lately, approximately, in fixed memory: a count-min
 * sketch with periodic halving, the frequency estimate of TinyLFU (Einziger, Friedman and
 * Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", ACM TOS 13(4), 2017). The
 * answer cache asks it whether a new answer is wanted more than the one it would displace.
 *
 * Each key is counted in one counter of each of ROWS rows; the estimate is the smallest of
 * them, so a collision can only make a key look more frequent, never less. Every `period`
 * additions all counters are halved: old popularity fades, and a counter never passes
 * MAX_COUNT, so a key once hot cannot keep its place forever.
 */

const ROWS = 4;
const MAX_COUNT = 15;
/** Odd multipliers (from MurmurHash3 and xxHash) that spread a key differently in each row. */
const SPREAD = [0x9e3779b1, 0x85ebca6b, 0xc2b2ae35, 0x27d4eb2f] as const;

export class FrequencySketch {
  private readonly counts: Uint8Array;
  private readonly bits: number;
  private added = 0;

  /** `width` counters per row (a power of two); halved every `period` additions (by default `width`). */
  constructor(
    width = 1 << 16,
    private readonly period = width,
  ) {
    const bits = Math.log2(width);
    if (!Number.isInteger(bits) || bits < 1 || bits > 24)
      throw new RangeError(`width ${width} is not a power of two`);
    this.counts = new Uint8Array(ROWS * width);
    this.bits = bits;
  }

  /** The key's counter in `row`: the top bits of the key spread by the row's multiplier. */
  private slot(hash: number, row: number): number {
    return (row << this.bits) + (Math.imul(hash ^ (hash >>> 15), SPREAD[row]!) >>> (32 - this.bits));
  }

  add(hash: number): void {
    for (let row = 0; row < ROWS; row++) {
      const i = this.slot(hash, row);
      const count = this.counts[i]!;
      if (count < MAX_COUNT) this.counts[i] = count + 1;
    }
    if (++this.added >= this.period) this.halve();
  }

  estimate(hash: number): number {
    let least = MAX_COUNT;
    for (let row = 0; row < ROWS; row++) least = Math.min(least, this.counts[this.slot(hash, row)]!);
    return least;
  }

  private halve(): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] = this.counts[i]! >> 1;
    this.added = 0;
  }
}

/** A 32-bit FNV-1a hash of a string's UTF-16 code units, for keys that are strings. */
export function stringHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash | 0;
}
