/**
 * How often each request was asked for lately, in fixed memory: a count-min sketch of small
 * counters (at most 15, as TinyLFU's four bits), halved every RESET_EVERY additions so that
 * what was popular long ago fades (Einziger, Friedman and Manes, "TinyLFU", 2017). An estimate
 * is never below the true count since the last halving, and above it only by collisions.
 */
import { randomInt } from 'node:crypto';

const ROWS = 4;
const ROW_BITS = 17;
const ROW_SIZE = 1 << ROW_BITS;
const MAX_COUNT = 15;
/** Additions between two halvings: about one per counter of a row. */
const RESET_EVERY = ROW_SIZE;

/** Seeded per process, so requests whose counters collide cannot be worked out in advance. */
const SEEDS = Array.from({ length: ROWS }, () => randomInt(2 ** 31));

/** A key's 32-bit hash: a number as it is, a string by FNV-1a over its UTF-16 code units. */
function hashOf(key: number | string): number {
  if (typeof key === 'number') return key;
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 16777619);
  return hash;
}

/** The counter of `hash` in `row`: the top bits of a seeded multiplicative hash. */
function slotOf(hash: number, row: number): number {
  return row * ROW_SIZE + (Math.imul(hash ^ SEEDS[row]!, 0x9e3779b1) >>> (32 - ROW_BITS));
}

export class FrequencySketch {
  private readonly counts = new Uint8Array(ROWS * ROW_SIZE);
  private additions = 0;

  add(key: number | string): void {
    const hash = hashOf(key);
    for (let row = 0; row < ROWS; row++) {
      const slot = slotOf(hash, row);
      const count = this.counts[slot]!;
      if (count < MAX_COUNT) this.counts[slot] = count + 1;
    }
    if (++this.additions === RESET_EVERY) this.halve();
  }

  estimate(key: number | string): number {
    const hash = hashOf(key);
    let least = MAX_COUNT;
    for (let row = 0; row < ROWS; row++) least = Math.min(least, this.counts[slotOf(hash, row)]!);
    return least;
  }

  private halve(): void {
    for (let i = 0; i < this.counts.length; i++) this.counts[i] = this.counts[i]! >> 1;
    this.additions = 0;
  }
}
