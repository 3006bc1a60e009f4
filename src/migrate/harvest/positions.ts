/**
 * How far the job sequence is done: `watermark` is the first position not finished, so
 * every job before it is. Jobs finish out of order (several in flight); those past the
 * watermark are remembered until it reaches them. A job that failed holds the watermark
 * where it is (a resumed harvest asks it again), and nothing after it is remembered, so
 * the memory used stays bounded by the jobs in flight.
 */
export class Positions {
  private finished = new Set<number>();
  private stuckAt: number | undefined;

  constructor(private mark: number) {}

  get watermark(): number {
    return this.mark;
  }

  done(position: number): void {
    if (this.stuckAt !== undefined && position > this.stuckAt) return;
    if (position !== this.mark) {
      this.finished.add(position);
      return;
    }
    this.mark++;
    while (this.finished.delete(this.mark)) this.mark++;
  }

  /** A job that is not done: the watermark stops before it. */
  failed(position: number): void {
    if (this.stuckAt === undefined || position < this.stuckAt) this.stuckAt = position;
    for (const p of this.finished) if (p > position) this.finished.delete(p);
  }
}
