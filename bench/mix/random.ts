/**
 * A seeded pseudo-random source (mulberry32): the realistic mix is generated, not committed,
 * and must be the same on every run and machine, so Math.random is never used.
 */
export class Random {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** An integer in [min, max], log-uniformly: as many small values as large ones per decade. */
  logInt(min: number, max: number): number {
    return Math.round(Math.exp(Math.log(min) + this.next() * (Math.log(max) - Math.log(min))));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** `count` distinct items of `items`, in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = [...items];
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }

  /** Fills `buffer` with bytes of this source (files of the bundle). */
  fill(buffer: Buffer): Buffer {
    for (let i = 0; i + 4 <= buffer.length; i += 4) buffer.writeUInt32LE((this.next() * 4294967296) >>> 0, i);
    for (let i = buffer.length - (buffer.length % 4); i < buffer.length; i++) buffer[i] = this.int(0, 255);
    return buffer;
  }
}

/**
 * Draws from a Zipf distribution over ranks 0…n-1 (P(k) ∝ 1/(k+1)^s): a few requests very
 * often, most rarely, as on a real site.
 */
export function zipfSampler(n: number, s: number, random: Random): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) {
    sum += 1 / (k + 1) ** s;
    cdf[k] = sum;
  }
  return () => {
    const u = random.next() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
