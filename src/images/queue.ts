/**
 * At most `concurrency` resizes at once, at most `maxWaiting` more waiting in turn; a
 * request beyond that is refused at once as BUSY rather than piling up, so a resize
 * storm costs bounded memory and CPU and the other operations keep being answered.
 * A waiting request whose `signal` fires leaves the queue and never runs; a running one
 * keeps its slot until sharp returns (about at its timeout, for raster images), since
 * libvips cannot be stopped from outside: freeing the slot early would let clients that connect and leave
 * start any number of resizes at once.
 */
import { ScoopError } from '../contract/errors.ts';

export interface QueueOptions {
  readonly concurrency: number;
  readonly maxWaiting: number;
  /** A first guess of one resize's duration, until real ones are measured. */
  readonly estimateMs?: number;
}

/** The request went away while waiting: never sent, but logged and counted as such. */
export function abandoned(): ScoopError {
  return new ScoopError('CLIENT_CLOSED', 'The client closed the connection before the resize started.');
}

const INITIAL_ESTIMATE_MS = 250;
const MAX_RETRY_AFTER_SECONDS = 60;

export class ResizeQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  private averageMs: number;

  constructor(private readonly options: QueueOptions) {
    if (options.concurrency < 1) throw new RangeError('concurrency must be at least 1');
    this.averageMs = options.estimateMs ?? INITIAL_ESTIMATE_MS;
  }

  get stats(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw abandoned();
    if (this.running < this.options.concurrency) {
      this.running++;
    } else if (this.waiting.length < this.options.maxWaiting) {
      // The finishing task hands its slot over (see release), so `running` stays as is.
      await this.slot(signal);
    } else {
      throw new ScoopError('BUSY', 'The server is busy resizing images; retry shortly.', {
        retryAfterSeconds: this.retryAfterSeconds(),
      });
    }
    const started = performance.now();
    try {
      return await task();
    } finally {
      // A moving average, so Retry-After follows the current image mix.
      this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - started);
      this.release();
    }
  }

  private slot(signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (!signal) {
        this.waiting.push(resolve);
        return;
      }
      const leave = () => {
        const at = this.waiting.indexOf(take);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(abandoned());
      };
      const take = () => {
        signal.removeEventListener('abort', leave);
        resolve();
      };
      signal.addEventListener('abort', leave, { once: true });
      this.waiting.push(take);
    });
  }

  /** How long the work ahead of a new request takes, by the recent average: 1 to 60 seconds. */
  retryAfterSeconds(): number {
    const ahead = this.running + this.waiting.length;
    const seconds = Math.ceil((this.averageMs * ahead) / this.options.concurrency / 1000);
    return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, seconds));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
