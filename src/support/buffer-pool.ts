/**
 * Buffers lent to one answer and given back once it has been written.
 *
 * Every fresh Buffer of more than 4 KiB is memory outside V8's heap that V8 counts
 * ("external"), and each 64 MiB of it that outlives a scavenge starts a major collection.
 * Reading each whole text an answer sends (cache/base64-cache.ts `textNow`) into a fresh
 * buffer made about 400 MB/s of it under the realistic mix: a mark-compact every 150-200 ms,
 * whose concurrent marking shares the server's one core (docs/performance.md, "The
 * thirteenth round"). Lent buffers are reused instead, so that memory is allocated once.
 */

/** Smaller requests are served from node's own shared pool (Buffer.allocUnsafe), which is cheap. */
const SMALLEST_CLASS = 8 * 1024;

/**
 * A pool of buffers in power-of-two size classes, keeping at most `maxKeptBytes` unused, and
 * at most half of that of one size.
 */
export class BufferPool {
  /** Unused buffers by their size class. */
  private readonly free = new Map<number, ArrayBuffer[]>();
  /**
   * Each buffer lent and not yet given back, by its memory: only that very view is taken
   * back, and once, so no buffer can go to two answers at a time.
   */
  private readonly out = new WeakMap<ArrayBuffer, Buffer>();
  private keptBytes = 0;

  constructor(
    private readonly maxKeptBytes: number,
    /** Longer requests get a buffer of their own, never kept. */
    readonly largestClass: number,
  ) {}

  /** Whether `length` bytes come from this pool (and should be given back). */
  lends(length: number): boolean {
    return length > SMALLEST_CLASS / 2 && length <= this.largestClass;
  }

  /** A buffer of `length` bytes: a view of a pooled one when the pool `lends` that length. */
  borrow(length: number): Buffer {
    if (!this.lends(length)) return Buffer.allocUnsafe(length);
    const size = classOf(length);
    let whole = this.free.get(size)?.pop();
    if (whole === undefined) whole = new ArrayBuffer(size);
    else this.keptBytes -= size;
    const lent = Buffer.from(whole, 0, length);
    this.out.set(whole, lent);
    return lent;
  }

  /** Takes back a buffer `borrow` lent; nothing may read or write it afterwards. */
  giveBack(lent: Buffer): void {
    const whole = lent.buffer;
    if (!(whole instanceof ArrayBuffer) || this.out.get(whole) !== lent) return;
    this.out.delete(whole);
    const size = whole.byteLength;
    if (this.keptBytes + size > this.maxKeptBytes) return;
    let list = this.free.get(size);
    if (list === undefined) {
      list = [];
      this.free.set(size, list);
    }
    // Half the bound at most for one size: a burst of one size cannot keep the rest out. (A
    // quarter was too little: 32 answers in flight of the mix lend about 48 texts of 64 KiB.)
    if ((list.length + 1) * size > this.maxKeptBytes / 2) return;
    list.push(whole);
    this.keptBytes += size;
  }

  /** Bytes held for reuse (for tests). */
  get kept(): number {
    return this.keptBytes;
  }
}

function classOf(length: number): number {
  return Math.max(SMALLEST_CLASS, 2 ** Math.ceil(Math.log2(length)));
}

/**
 * The buffers one answer borrowed: given back when it has been written in full, or left to
 * the collector when it was not (the connection closed early, and its socket may still hold
 * a write of them).
 */
export class Loans {
  private readonly lent: Buffer[] = [];

  constructor(private readonly pool: BufferPool) {}

  borrow(length: number): Buffer {
    const buffer = this.pool.borrow(length);
    if (this.pool.lends(length)) this.lent.push(buffer);
    return buffer;
  }

  /** The answer was written: every buffer goes back to the pool. */
  settle(): void {
    for (const buffer of this.lent) this.pool.giveBack(buffer);
    this.lent.length = 0;
  }

  /** The answer was not written in full: the buffers are not reused. */
  forfeit(): void {
    this.lent.length = 0;
  }
}
