/**
 * Politeness towards the source: request starts spaced to at most `--rate` per second,
 * a pause for everyone when the source says `Retry-After` (it is overloaded, not just
 * this request's unlucky), and exponential back-off with jitter between attempts.
 * Concurrency is the number of workers (harvest.ts), each with one request in flight.
 */

export interface PacerOptions {
  /** Request starts per second; undefined for no limit. */
  readonly ratePerSecond?: number | undefined;
  readonly clock?: () => number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

export class Pacer {
  private readonly interval: number;
  private lastStart = Number.NEGATIVE_INFINITY;
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly clock: () => number;
  private readonly wait: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(options: PacerOptions = {}) {
    this.interval = options.ratePerSecond === undefined ? 0 : 1000 / options.ratePerSecond;
    this.clock = options.clock ?? (() => performance.now());
    this.wait = options.sleep ?? sleep;
  }

  /**
   * Resolves when a request may start: after any pause, and — with a rate — at least one
   * interval after the start before it. Callers take their turns one after another, each
   * measured from the previous start as it happened, so timers that fire late (a busy
   * event loop) never let requests bunch up.
   */
  turn(signal?: AbortSignal): Promise<void> {
    if (this.interval === 0) return this.untilUnpaused(signal);
    const mine = this.queue.then(async () => {
      for (;;) {
        await this.untilUnpaused(signal);
        if (signal?.aborted) return;
        const due = this.lastStart + this.interval - this.clock();
        if (due <= 0) break;
        await this.wait(due, signal);
      }
      this.lastStart = this.clock();
    });
    this.queue = mine.catch(() => undefined);
    return mine;
  }

  private async untilUnpaused(signal?: AbortSignal): Promise<void> {
    for (
      let left = this.pausedUntil - this.clock();
      left > 0 && !signal?.aborted;
      left = this.pausedUntil - this.clock()
    )
      await this.wait(left, signal);
  }

  /** Every request waits until `ms` from now (a Retry-After), on top of any pause already set. */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock() + ms);
  }
}

/** The longest the harvest waits for one retry, whatever the source says. */
export const MAX_WAIT_MS = 5 * 60_000;

/**
 * RFC 9110 §10.2.3: `Retry-After` is delay-seconds or an HTTP-date. Undefined when absent
 * or unreadable; capped at MAX_WAIT_MS.
 */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_WAIT_MS);
}

/** Attempts per request: the first and five retries, waiting about 0.5, 1, 2, 4, 8 s between. */
export const ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 30_000;

/** The wait before attempt `attempt + 1` (attempt counts from 1): doubling, ±25 % jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  return Math.round(base * (0.75 + random() * 0.5));
}
