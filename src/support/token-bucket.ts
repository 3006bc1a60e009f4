/**
 * A token bucket: `tokens` as of `updated`, refilled with the time that passes, up to a
 * capacity. The rate limiter's buckets (server/rate-limit.ts) count requests; the answer
 * file's budget (server/answer-file.ts) counts milliseconds of keeping.
 */
export interface TokenBucket {
  tokens: number;
  /**
   * The clock's reading at the last refill; -Infinity: none yet, the next one fills it (at a
   * rate above 0: an endless time at a rate of 0 is NaN, not 0).
   */
  updated: number;
}

/**
 * Refills `bucket` at `rate` tokens a unit of the clock for the time since its last refill,
 * up to `capacity`. A reading earlier than the last (a clock set back) gives nothing and
 * takes nothing away.
 */
export function refill(bucket: TokenBucket, now: number, rate: number, capacity: number): void {
  bucket.tokens = Math.min(capacity, bucket.tokens + Math.max(0, now - bucket.updated) * rate);
  bucket.updated = now;
}
