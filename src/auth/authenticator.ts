/**
 * Checks a presented token. Missing, malformed, unknown and revoked tokens are refused
 * with one message that does not tell them apart. The token is never logged.
 */
import { ScoopError } from '../contract/errors.ts';
import { canonicalToken, hashToken, sameHash, type TokenStore } from './tokens.ts';

export const AUTH_FAILED_MESSAGE = 'Authentication failed: a valid token is required.';

/** `last used` is written at most this often per token, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;
/** Verified spellings kept; past this the table starts afresh (a re-check each, never memory). */
const MAX_VERIFIED = 10_000;

interface Verified {
  /** The token version the verification holds for: any token change invalidates it. */
  readonly tokensVersion: number;
  readonly hash: Buffer;
  touchedAt: number;
}

export class Authenticator {
  /**
   * Successful verifications by the text presented, so a repeated token costs no hash and
   * no store lookup. Only valid tokens get in, and only until the store's token version
   * moves (a token created or revoked, in any process): a revoked token is refused as soon
   * as the store's version says so, exactly as an uncached check would refuse it.
   */
  private readonly verified = new Map<string, Verified>();

  constructor(
    private readonly store: TokenStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Whether `presented` is known valid right now, without waiting: a cached verification
   * for the store's current token version, with no `last used` write due. False means
   * "not known", not "invalid": verify() decides then.
   */
  verifiedNow(presented: string | undefined): boolean {
    if (presented === undefined) return false;
    const entry = this.verified.get(presented);
    if (entry === undefined || entry.tokensVersion !== this.store.peekTokensVersion()) return false;
    return this.now().getTime() - entry.touchedAt < TOUCH_INTERVAL_MS;
  }

  async verify(presented: string | undefined): Promise<void> {
    if (presented === undefined) throw new ScoopError('AUTH_FAILED', AUTH_FAILED_MESSAGE);
    const tokensVersion = await this.store.knownTokensVersion();
    let entry = this.verified.get(presented);
    if (entry === undefined || entry.tokensVersion !== tokensVersion) {
      entry = await this.check(presented, tokensVersion, entry?.touchedAt ?? 0);
    }
    const now = this.now().getTime();
    if (now - entry.touchedAt >= TOUCH_INTERVAL_MS) {
      entry.touchedAt = now;
      // Best effort: a busy store (an import holding the write lock) must not fail the request.
      await this.store.touchToken(entry.hash, new Date(now).toISOString()).catch(() => undefined);
    }
  }

  private async check(presented: string, tokensVersion: number, touchedAt: number): Promise<Verified> {
    const canonical = canonicalToken(presented);
    if (canonical === undefined) throw new ScoopError('AUTH_FAILED', AUTH_FAILED_MESSAGE);
    const hash = hashToken(canonical);
    const stored = await this.store.findActiveToken(hash);
    if (!stored || !sameHash(stored, hash)) {
      this.verified.delete(presented);
      throw new ScoopError('AUTH_FAILED', AUTH_FAILED_MESSAGE);
    }
    if (this.verified.size >= MAX_VERIFIED) this.verified.clear();
    const entry: Verified = { tokensVersion, hash, touchedAt };
    this.verified.set(presented, entry);
    return entry;
  }
}
