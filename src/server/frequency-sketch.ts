/**
 * How often each request was asked for lately, in fixed memory: a count-min sketch of small
 * counters (at most 15, as TinyLFU's four bits), halved each time it has counted as many keys
 * as a row has counters, so that what was popular long ago fades (Einziger, Friedman and
 * Manes, "TinyLFU", 2017). An estimate is never below the true count since the last halving
 * (capped at 15), and above it only by collisions.
 */
import { randomInt } from 'node:crypto';

const ROWS = 4;
const MAX_COUNT = 15;

/**
 * Each row places a key by a seed of its own, per process: keys that share one counter
 * seldom share all four. (Keys come hashed, with a seed of their caller's: response-cache.ts.)
 */
const SEEDS = Array.from({ length: ROWS }, () => randomInt(2 ** 31));

export class FrequencySketch {
  private readonly counts: Uint8Array;
  private readonly rowBits: number;
  /** Additions between two halvings: one per counter of a row. */
  private readonly resetEvery: number;
  private additions = 0;

  /** Rows of 2^`rowBits` counters: wide enough for the keys a period of that many additions brings. */
  constructor(rowBits: number) {
    this.rowBits = rowBits;
    this.resetEvery = 2 ** rowBits;
    this.counts = new Uint8Array(ROWS * this.resetEvery);
  }

  /** The memory its counters take. */
  get bytes(): number {
    return this.counts.byteLength;
  }

  /** The counter of `hash` in `row`: the top bits of a seeded multiplicative hash. */
  private slotOf(hash: number, row: number): number {
    return (row << this.rowBits) + (Math.imul(hash ^ SEEDS[row]!, 0x9e3779b1) >>> (32 - this.rowBits));
  }

  /** Counts `hash` (a key's 32-bit hash) once more. */
  add(hash: number): void {
    for (let row = 0; row < ROWS; row++) {
      const slot = this.slotOf(hash, row);
      const count = this.counts[slot]!;
      if (count < MAX_COUNT) this.counts[slot] = count + 1;
    }
    if (++this.additions === this.resetEvery) this.halve();
  }

  estimate(hash: number): number {
    let least = MAX_COUNT;
    for (let row = 0; row < ROWS; row++) least = Math.min(least, this.counts[this.slotOf(hash, row)]!);
    return least;
  }

  private halve(): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] = this.counts[i]! >> 1;
    this.additions = 0;
  }
}
