/**
 * Tokens are GUIDs (service-spec.md part 5). Only a SHA-256 hash of the canonical
 * (lower-case, dashed) form is stored; the token itself is shown once, at creation.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** The canonical form of a GUID, or undefined when the text is not one. */
export function canonicalToken(text: string): string | undefined {
  const trimmed = text.trim();
  return GUID.test(trimmed) ? trimmed.toLowerCase() : undefined;
}

export function newToken(): string {
  return randomUUID();
}

export function hashToken(canonical: string): Buffer {
  return createHash('sha256').update(canonical, 'utf8').digest();
}

export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Hex characters of a token's hash that name it in `scoop token list` and `revoke`. */
export const TOKEN_ID_LENGTH = 8;

/**
 * A token's short id: the start of its SHA-256 hash in hex. It names the token to an
 * operator without revealing it; the hash, not the token, cannot be turned back.
 */
export function tokenId(hash: Buffer): string {
  return hash.toString('hex').slice(0, TOKEN_ID_LENGTH);
}

export interface TokenInfo {
  /** The SHA-256 hash the store keeps (never the token). */
  readonly hash: Buffer;
  readonly label: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

/** What the token commands and the authenticator need from a store. */
export interface TokenStore {
  addToken(hash: Buffer, label: string, createdAt: string): Promise<void>;
  /** The stored hash when an active (not revoked) token has this hash. */
  findActiveToken(hash: Buffer): Promise<Buffer | undefined>;
  revokeToken(hash: Buffer, revokedAt: string): Promise<boolean>;
  listTokens(): Promise<TokenInfo[]>;
  touchToken(hash: Buffer, usedAt: string): Promise<void>;
  /**
   * Increases whenever a token is created or revoked; cheap, and at most a moment behind
   * the store, as the content version is. Verifications are cached per token version.
   */
  knownTokensVersion(): Promise<number>;
  /** knownTokensVersion() when it can be told without waiting; else undefined. */
  peekTokensVersion(): number | undefined;
}
