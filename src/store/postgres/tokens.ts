/** The PostgreSQL store's token statements (tokens.ts has the rules they serve). */
import type pg from 'pg';
import type { TokenChange, TokenRow, TokenTable } from '../tokens.ts';
import type { PostgresPool } from './pool.ts';

export class PostgresTokenTable implements TokenTable {
  /** `channel`: where a token change is announced, so every instance's version watch hears of it. */
  constructor(
    private readonly db: PostgresPool,
    private readonly channel: string,
  ) {}

  /** The change, the bump and the NOTIFY in one transaction: listeners hear of it when it commits. */
  change(change: TokenChange): Promise<{ changed: number; tokensVersion: number }> {
    return this.db.inTransaction(async (client) => {
      const { rowCount } =
        change.kind === 'add'
          ? await client.query('INSERT INTO tokens (hash, label, created_at) VALUES ($1, $2, $3)', [
              change.hash,
              change.label,
              change.createdAt,
            ])
          : await client.query('UPDATE tokens SET revoked_at = $1 WHERE hash = $2 AND revoked_at IS NULL', [
              change.revokedAt,
              change.hash,
            ]);
      const { rows } = await client.query<{ value: string }>(
        "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'tokens_version' RETURNING value",
      );
      const tokensVersion = Number(rows[0]!.value);
      await client.query('SELECT pg_notify($1, $2)', [this.channel, String(tokensVersion)]);
      return { changed: rowCount ?? 0, tokensVersion };
    });
  }

  async findActive(hash: Buffer): Promise<Buffer | undefined> {
    const { rows } = await this.db.query<{ hash: Buffer }>(
      'SELECT hash FROM tokens WHERE hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    return rows[0]?.hash;
  }

  async touch(hash: Buffer, usedAt: string): Promise<void> {
    await this.db.query('UPDATE tokens SET last_used_at = $1 WHERE hash = $2', [usedAt, hash]);
  }

  async list(): Promise<TokenRow[]> {
    const { rows } = await this.db.query<TokenRow & pg.QueryResultRow>(
      'SELECT hash, label, created_at, last_used_at, revoked_at FROM tokens ORDER BY created_at, label COLLATE "C"',
    );
    return rows;
  }
}
