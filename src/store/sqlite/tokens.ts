/** The SQLite store's token statements (tokens.ts has the rules they serve). */
import type Database from 'better-sqlite3';
import type { TokenChange, TokenRow, TokenTable } from '../tokens.ts';

export class SqliteTokenTable implements TokenTable {
  private readonly s;

  /** `beforeWrite`: ends the connection's read transaction, if one is open (read-batch.ts). */
  constructor(
    private readonly db: Database.Database,
    private readonly beforeWrite: () => void = () => undefined,
  ) {
    this.s = {
      add: db.prepare('INSERT INTO tokens (hash, label, created_at) VALUES (?, ?, ?)'),
      revoke: db.prepare('UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL'),
      bump: db.prepare<[], { value: string }>(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'tokens_version' RETURNING value",
      ),
      find: db.prepare<[Buffer], { hash: Buffer }>(
        'SELECT hash FROM tokens WHERE hash = ? AND revoked_at IS NULL',
      ),
      touch: db.prepare('UPDATE tokens SET last_used_at = ? WHERE hash = ?'),
      list: db.prepare<[], TokenRow>(
        'SELECT hash, label, created_at, last_used_at, revoked_at FROM tokens ORDER BY created_at, label',
      ),
    };
  }

  async change(change: TokenChange): Promise<{ changed: number; tokensVersion: number }> {
    this.beforeWrite();
    return this.db.transaction(() => {
      const { changes } =
        change.kind === 'add'
          ? this.s.add.run(change.hash, change.label, change.createdAt)
          : this.s.revoke.run(change.revokedAt, change.hash);
      return { changed: changes, tokensVersion: Number(this.s.bump.get()!.value) };
    })();
  }

  async findActive(hash: Buffer): Promise<Buffer | undefined> {
    return this.s.find.get(hash)?.hash;
  }

  async touch(hash: Buffer, usedAt: string): Promise<void> {
    this.beforeWrite();
    this.s.touch.run(usedAt, hash);
  }

  async list(): Promise<TokenRow[]> {
    return this.s.list.all();
  }
}
