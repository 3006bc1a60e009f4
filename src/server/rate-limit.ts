/**
 * Optional per-client rate limiting (off by default), as token buckets kept in memory per
 * process. A request is charged to its token only once that token is known valid (it
 * verified in this process); everything else — no token, a made-up or revoked one, a
 * request refused before it was decoded — is charged to the client's address. So guessing
 * tokens, or sending garbage, is throttled by address, while a client with a valid token
 * has a budget of its own that other traffic from its address cannot use up.
 *
 * The app calls `admitAddress` first for every request, and tells the admission how the
 * token check went (`admitToken` after a successful verification, `authFailed` after a
 * failed one).
 */
import { createHash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import { canonicalToken } from '../auth/tokens.ts';
import { ScoopError } from '../contract/errors.ts';
import type { Metrics } from '../observe/metrics.ts';
import { refill, type TokenBucket } from '../support/token-bucket.ts';

export interface RateLimit {
  /** Sustained requests per second per client. */
  readonly perSecond: number;
  /** Requests a client may send at once before the rate applies. */
  readonly burst: number;
}

/** One request's standing with the limiter, from admitAddress to the token check. */
export interface Admission {
  /**
   * The request's token verified: the request is charged to that token's bucket instead
   * (the address gets back what it paid). Refuses with RATE_LIMITED when the token's own
   * budget is spent.
   */
  admitToken(token: string): void;
  /** Authentication failed: the request stays charged to the address. */
  authFailed(): void;
}

/** Bounds memory under a flood of distinct addresses; the least recently seen go first. */
const MAX_ADDRESSES = 100_000;
/** Token buckets exist only for verified tokens, so this bound is never reached by guessing. */
const MAX_TOKENS = 10_000;

/**
 * The part of an address that identifies a client: an IPv4 address (also when written
 * IPv4-mapped, `::ffff:a.b.c.d`), or for IPv6 its /64 prefix — one subscriber is usually
 * given a whole /64 (RFC 6177), so counting single IPv6 addresses would give one client
 * 2^64 buckets.
 */
export function clientOf(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const bare = address.split('%')[0]!.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(bare)) return bare;
  if (!isIPv6(bare)) return bare;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, as lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  let text = address;
  // A trailing dotted IPv4 part stands for the last two groups.
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

function tokenKey(token: string): string | undefined {
  const canonical = canonicalToken(token);
  // Keyed by a hash, so no token is held in clear here.
  return canonical === undefined
    ? undefined
    : createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** Token buckets in a Map kept in least-recently-used order, with a bound. */
class Buckets {
  private readonly map = new Map<string, TokenBucket>();

  constructor(
    private readonly limit: RateLimit,
    private readonly max: number,
  ) {}

  has(key: string): boolean {
    return this.map.has(key);
  }

  delete(key: string): void {
    this.map.delete(key);
  }

  /** The bucket, refilled for the time since it was last used; created full. */
  get(key: string, now: number): TokenBucket {
    const bucket = this.map.get(key) ?? { tokens: this.limit.burst, updated: now };
    refill(bucket, now, this.limit.perSecond / 1000, this.limit.burst);
    this.map.delete(key);
    this.map.set(key, bucket);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
    return bucket;
  }

  get size(): number {
    return this.map.size;
  }
}

export class RateLimiter {
  private readonly addresses: Buckets;
  private readonly tokens: Buckets;

  constructor(
    private readonly limit: RateLimit,
    private readonly metrics?: Metrics,
    private readonly now: () => number = Date.now,
  ) {
    this.addresses = new Buckets(limit, MAX_ADDRESSES);
    this.tokens = new Buckets(limit, MAX_TOKENS);
  }

  /**
   * The first step of every request, before anything is read or decoded. `presentedToken`
   * is a token known from the request head (an `Authorization: Bearer` header), if any:
   * when it verified in this process before, the request is charged to that token at once;
   * otherwise to the client's address. Refuses with RATE_LIMITED when that budget is spent.
   */
  admitAddress(address: string | undefined, presentedToken?: string): Admission {
    const now = this.now();
    const known = presentedToken === undefined ? undefined : tokenKey(presentedToken);
    let charged: { kind: 'address' | 'token'; key: string } =
      known !== undefined && this.tokens.has(known)
        ? { kind: 'token', key: known }
        : { kind: 'address', key: clientOf(address) };
    this.take(charged.kind, charged.key, now);

    const refund = () => {
      const buckets = charged.kind === 'address' ? this.addresses : this.tokens;
      const bucket = buckets.get(charged.key, this.now());
      bucket.tokens = Math.min(this.limit.burst, bucket.tokens + 1);
    };
    return {
      admitToken: (token) => {
        const key = tokenKey(token);
        if (key === undefined || (charged.kind === 'token' && charged.key === key)) return;
        refund();
        charged = { kind: 'token', key };
        this.take('token', key, this.now());
      },
      authFailed: () => {
        if (charged.kind === 'address') return;
        // A token that passed before and fails now (revoked): it is no longer known valid.
        this.tokens.delete(charged.key);
        charged = { kind: 'address', key: clientOf(address) };
        const bucket = this.addresses.get(charged.key, this.now());
        bucket.tokens = Math.max(0, bucket.tokens - 1);
      },
    };
  }

  /** Takes one request from a bucket, or refuses with RATE_LIMITED and Retry-After. */
  private take(kind: 'address' | 'token', key: string, now: number): void {
    const bucket = (kind === 'address' ? this.addresses : this.tokens).get(key, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    this.metrics?.rateLimited.series(kind).inc();
    // RFC 9110 §10.2.3: Retry-After in whole seconds, when the bucket holds one request again.
    const wait = Math.max(1, Math.ceil((1 - bucket.tokens) / this.limit.perSecond));
    throw new ScoopError('RATE_LIMITED', `Too many requests; retry in ${wait} s.`, {
      retryAfterSeconds: wait,
    });
  }

  /** Buckets held now (for tests and bounds). */
  get size(): { addresses: number; tokens: number } {
    return { addresses: this.addresses.size, tokens: this.tokens.size };
  }
}
