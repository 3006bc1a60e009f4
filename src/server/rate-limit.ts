/**
 * Optional per-client rate limiting (off by default): a token bucket per client,
 * keyed by the token's hash when the request carries one, else by the remote address.
 * Buckets are kept in memory per process; with several instances each limits its share.
 */
import { createHash } from 'node:crypto';
import { ScoopError } from '../contract/errors.ts';
import type { Metrics } from '../observe/metrics.ts';

export interface RateLimit {
  /** Sustained requests per second per client. */
  readonly perSecond: number;
  /** Requests a client may send at once before the rate applies. */
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  updated: number;
}

/** Bounds memory under a flood of distinct clients; the oldest buckets go first. */
const MAX_CLIENTS = 100_000;

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly metrics?: Metrics,
    private readonly now: () => number = Date.now,
  ) {}

  private key(token: string | undefined, address: string | undefined): string {
    if (token !== undefined && token.trim() !== '') {
      return `t:${createHash('sha256').update(token.trim().toLowerCase()).digest('base64url').slice(0, 22)}`;
    }
    return `a:${address ?? 'unknown'}`;
  }

  /** Takes one request from the client's bucket, or refuses with RATE_LIMITED and Retry-After. */
  check(token: string | undefined, address: string | undefined): void {
    const key = this.key(token, address);
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.limit.burst, updated: now };
    bucket.tokens = Math.min(
      this.limit.burst,
      bucket.tokens + ((now - bucket.updated) / 1000) * this.limit.perSecond,
    );
    bucket.updated = now;
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_CLIENTS) this.buckets.delete(this.buckets.keys().next().value!);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    this.metrics?.rateLimited.series().inc();
    const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
    throw new ScoopError('RATE_LIMITED', `Too many requests; retry in ${wait} s.`, {
      retryAfterSeconds: wait,
    });
  }
}
