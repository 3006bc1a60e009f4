/**
 * Tokens as every store keeps them, whatever the database (auth/tokens.ts has what a
 * token is and how it is hashed). Creating and revoking a token are changes: each bumps
 * the tokens version in its own transaction, so every process that cached a verification
 * learns of it, and this process learns of it as soon as it has committed. Recording a
 * token's last use is not a change: a verification stays valid. Each database supplies
 * its SQL and transactions as a TokenTable (sqlite/tokens.ts, postgres/tokens.ts).
 */
import type { TokenInfo, TokenStore } from '../auth/tokens.ts';

export type TokenChange =
  | { readonly kind: 'add'; readonly hash: Buffer; readonly label: string; readonly createdAt: string }
  | { readonly kind: 'revoke'; readonly hash: Buffer; readonly revokedAt: string };

/** A row of the `tokens` table, as both stores select it. */
export interface TokenRow {
  readonly hash: Buffer;
  readonly label: string;
  readonly created_at: string;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
}

/** One database's token statements and transactions. */
export interface TokenTable {
  /**
   * Makes `change` (an insert, or setting `revoked_at` of a token not yet revoked) and bumps
   * the tokens version in one transaction; resolves once committed, to the token rows the
   * change touched and the tokens version it committed.
   */
  change(change: TokenChange): Promise<{ readonly changed: number; readonly tokensVersion: number }>;
  /** The stored hash when a token with this hash is not revoked. */
  findActive(hash: Buffer): Promise<Buffer | undefined>;
  /** Sets `last_used_at`. */
  touch(hash: Buffer, usedAt: string): Promise<void>;
  /** Every token, by creation time, then by label bytewise. */
  list(): Promise<TokenRow[]>;
}

/** What a store answers about tokens from its table; the versions come from its version watch. */
export type TokenCommands = Omit<TokenStore, 'knownTokensVersion' | 'peekTokensVersion'>;

export class StoreTokens implements TokenCommands {
  /** `committed` is told each tokens version this process committed, once it has. */
  constructor(
    private readonly table: TokenTable,
    private readonly committed: (tokensVersion: number) => void,
  ) {}

  private async change(change: TokenChange): Promise<number> {
    const { changed, tokensVersion } = await this.table.change(change);
    this.committed(tokensVersion);
    return changed;
  }

  async addToken(hash: Buffer, label: string, createdAt: string): Promise<void> {
    await this.change({ kind: 'add', hash, label, createdAt });
  }

  /** True when the token was active (revoking a revoked or unknown token touches no row). */
  async revokeToken(hash: Buffer, revokedAt: string): Promise<boolean> {
    return (await this.change({ kind: 'revoke', hash, revokedAt })) > 0;
  }

  findActiveToken(hash: Buffer): Promise<Buffer | undefined> {
    return this.table.findActive(hash);
  }

  touchToken(hash: Buffer, usedAt: string): Promise<void> {
    return this.table.touch(hash, usedAt);
  }

  async listTokens(): Promise<TokenInfo[]> {
    return (await this.table.list()).map((row) => ({
      hash: row.hash,
      label: row.label,
      createdAt: row.created_at,
      lastUsedAt: row.last_used_at,
      revokedAt: row.revoked_at,
    }));
  }
}

/**
 * A store's token commands, all answered by its StoreTokens: both stores extend this
 * rather than repeat the five delegations.
 */
export abstract class TokenCommandsOf implements TokenCommands {
  protected abstract readonly tokens: StoreTokens;

  addToken(hash: Buffer, label: string, createdAt: string): Promise<void> {
    return this.tokens.addToken(hash, label, createdAt);
  }

  findActiveToken(hash: Buffer): Promise<Buffer | undefined> {
    return this.tokens.findActiveToken(hash);
  }

  revokeToken(hash: Buffer, revokedAt: string): Promise<boolean> {
    return this.tokens.revokeToken(hash, revokedAt);
  }

  touchToken(hash: Buffer, usedAt: string): Promise<void> {
    return this.tokens.touchToken(hash, usedAt);
  }

  listTokens(): Promise<TokenInfo[]> {
    return this.tokens.listTokens();
  }
}
