/**
 * Strings encoded as UTF-8 into large buffers, each string a view of one: an import's
 * tens of thousands of answers in a few slabs, not a buffer each. `rewind` reuses the
 * slabs, so the views made before must no longer be in use.
 */
const SLAB_BYTES = 1024 * 1024;

export class Utf8Arena {
  private readonly slabs: Buffer[] = [];
  /** The slab being filled, and how much of it is. */
  private current = -1;
  private used = SLAB_BYTES;

  write(text: string): Buffer {
    // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
    const most = text.length * 3;
    // A text that might take more than a quarter of a slab gets a buffer of its own: a slab
    // is then always at least three quarters used when the next one is begun.
    if (most > SLAB_BYTES / 4) return Buffer.from(text, 'utf8');
    // `>=`: an empty text, first, needs a slab too.
    if (this.used + most >= SLAB_BYTES) {
      this.current++;
      if (this.current === this.slabs.length) this.slabs.push(Buffer.allocUnsafeSlow(SLAB_BYTES));
      this.used = 0;
    }
    const slab = this.slabs[this.current]!;
    const written = slab.write(text, this.used, 'utf8');
    const view = slab.subarray(this.used, this.used + written);
    this.used += written;
    return view;
  }

  rewind(): void {
    this.current = -1;
    this.used = SLAB_BYTES;
  }
}
