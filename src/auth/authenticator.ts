/**
 * Checks a presented token. Missing, malformed, unknown and revoked tokens are refused
 * with one message that does not tell them apart. The token is never logged.
 */
import { ScoopError } from '../contract/errors.ts';
import { canonicalToken, hashToken, sameHash, type TokenStore } from './tokens.ts';

export const AUTH_FAILED_MESSAGE = 'Authentication failed: a valid token is required.';

/** `last used` is written at most this often per token, so reads stay reads. */
const TOUCH_INTERVAL_MS = 60_000;

export class Authenticator {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly store: TokenStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async verify(presented: string | undefined): Promise<void> {
    const canonical = presented === undefined ? undefined : canonicalToken(presented);
    if (canonical === undefined) throw new ScoopError('AUTH_FAILED', AUTH_FAILED_MESSAGE);
    const hash = hashToken(canonical);
    const stored = await this.store.findActiveToken(hash);
    if (!stored || !sameHash(stored, hash)) throw new ScoopError('AUTH_FAILED', AUTH_FAILED_MESSAGE);
    const key = hash.toString('base64');
    const now = this.now();
    const last = this.lastTouched.get(key) ?? 0;
    if (now.getTime() - last >= TOUCH_INTERVAL_MS) {
      this.lastTouched.set(key, now.getTime());
      if (this.lastTouched.size > 10_000) this.lastTouched.clear();
      // Best effort: a busy store (an import holding the write lock) must not fail the request.
      await this.store.touchToken(hash, now.toISOString()).catch(() => undefined);
    }
  }
}
