/**
 * Strings encoded as UTF-8 into large buffers, each string a view of one: an import's
 * tens of thousands of answers in a few slabs, not a buffer each. The slabs come from a
 * pool, to which whoever is done with every view of them gives them back: memory used
 * again costs no page faults and makes the collector no busier (external memory).
 */
export const SLAB_BYTES = 1024 * 1024;

export class SlabPool {
  private readonly free: ArrayBuffer[] = [];

  take(): Buffer {
    const slab = this.free.pop();
    return slab ? Buffer.from(slab) : Buffer.allocUnsafeSlow(SLAB_BYTES);
  }

  /** Slabs no view of which is used any more; other buffers (a long text's own) are let go. */
  give(buffers: Iterable<ArrayBuffer>): void {
    for (const buffer of buffers) if (buffer.byteLength === SLAB_BYTES) this.free.push(buffer);
  }
}

export class Utf8Arena {
  private readonly taken: Buffer[] = [];
  /** How much of the last slab is used. */
  private used = SLAB_BYTES;

  constructor(private readonly pool = new SlabPool()) {}

  write(text: string): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    const most = text.length * 3;
    // A text that might take more than a quarter of a slab gets a buffer of its own (never
    // of Node's shared pool, so it can be handed to another thread): a slab is then always
    // at least three quarters used when the next one is begun.
    if (most > SLAB_BYTES / 4) {
      const own = Buffer.allocUnsafeSlow(Buffer.byteLength(text, 'utf8'));
      own.write(text, 'utf8');
      return own;
    }
    // `>=`: an empty text, first, needs a slab too.
    if (this.used + most >= SLAB_BYTES) {
      this.taken.push(this.pool.take());
      this.used = 0;
    }
    const slab = this.taken[this.taken.length - 1]!;
    const written = slab.write(text, this.used, 'utf8');
    const view = slab.subarray(this.used, this.used + written);
    this.used += written;
    return view;
  }
}
