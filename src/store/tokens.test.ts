/**
 * The token rules on their own, over a stand-in table: which calls are changes that bump
 * the tokens version, when this process is told, and what a revocation answers. (The
 * behaviour suite, content-store.test.ts and auth/, shows the same over both databases.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StoreTokens, type TokenChange, type TokenRow, type TokenTable } from './tokens.ts';

/** An in-memory token table that commits each change at once, or refuses it when told to. */
class FakeTable implements TokenTable {
  readonly rows = new Map<string, TokenRow>();
  tokensVersion = 0;
  changes: TokenChange['kind'][] = [];
  refuse = false;

  async change(change: TokenChange) {
    this.changes.push(change.kind);
    if (this.refuse) throw new Error('the database refused');
    let changed = 0;
    const key = change.hash.toString('hex');
    const row = this.rows.get(key);
    if (change.kind === 'add') {
      const added = { hash: change.hash, label: change.label, created_at: change.createdAt };
      this.rows.set(key, { ...added, last_used_at: null, revoked_at: null });
      changed = 1;
    } else if (row && row.revoked_at === null) {
      this.rows.set(key, { ...row, revoked_at: change.revokedAt });
      changed = 1;
    }
    this.tokensVersion++;
    return { changed, tokensVersion: this.tokensVersion };
  }

  async findActive(hash: Buffer) {
    const row = this.rows.get(hash.toString('hex'));
    return row && row.revoked_at === null ? row.hash : undefined;
  }

  async touch(hash: Buffer, usedAt: string) {
    const row = this.rows.get(hash.toString('hex'));
    if (row) this.rows.set(hash.toString('hex'), { ...row, last_used_at: usedAt });
  }

  async list() {
    return [...this.rows.values()];
  }
}

function harness() {
  const table = new FakeTable();
  const committed: number[] = [];
  return { table, committed, tokens: new StoreTokens(table, (version) => committed.push(version)) };
}

const A = Buffer.alloc(32, 1);
const B = Buffer.alloc(32, 2);

test('creating and revoking a token are changes: each tells this process the version it committed', async () => {
  const { tokens, committed, table } = harness();
  await tokens.addToken(A, 'a', '2026-01-01T00:00:00.000Z');
  assert.deepEqual(committed, [1]);
  assert.equal(await tokens.revokeToken(A, '2026-01-02T00:00:00.000Z'), true);
  assert.deepEqual(committed, [1, 2]);
  assert.deepEqual(table.changes, ['add', 'revoke']);
});

test('a revocation answers whether a token was active; the version moves either way', async () => {
  const { tokens, committed } = harness();
  await tokens.addToken(A, 'a', '2026-01-01T00:00:00.000Z');
  assert.equal(await tokens.revokeToken(A, '2026-01-02T00:00:00.000Z'), true);
  assert.equal(await tokens.revokeToken(A, '2026-01-03T00:00:00.000Z'), false, 'already revoked');
  assert.equal(await tokens.revokeToken(B, '2026-01-03T00:00:00.000Z'), false, 'unknown');
  assert.deepEqual(committed, [1, 2, 3, 4]);
  assert.equal(await tokens.findActiveToken(A), undefined);
});

test('a change that fails tells this process nothing and fails the call', async () => {
  const { tokens, committed, table } = harness();
  table.refuse = true;
  await assert.rejects(tokens.addToken(A, 'a', '2026-01-01T00:00:00.000Z'), /refused/);
  await assert.rejects(tokens.revokeToken(A, '2026-01-01T00:00:00.000Z'), /refused/);
  assert.deepEqual(committed, []);
});

test('looking a token up, recording its use and listing are not changes', async () => {
  const { tokens, committed, table } = harness();
  await tokens.addToken(A, 'a', '2026-01-01T00:00:00.000Z');
  assert.ok((await tokens.findActiveToken(A))?.equals(A));
  await tokens.touchToken(A, '2026-01-05T00:00:00.000Z');
  await tokens.listTokens();
  assert.deepEqual(committed, [1]);
  assert.deepEqual(table.changes, ['add']);
});

test('tokens are listed as TokenInfo, in the table order', async () => {
  const { tokens } = harness();
  await tokens.addToken(A, 'a', '2026-01-01T00:00:00.000Z');
  await tokens.addToken(B, 'b', '2026-01-02T00:00:00.000Z');
  await tokens.touchToken(A, '2026-01-05T00:00:00.000Z');
  await tokens.revokeToken(B, '2026-01-06T00:00:00.000Z');
  assert.deepEqual(await tokens.listTokens(), [
    {
      hash: A,
      label: 'a',
      createdAt: '2026-01-01T00:00:00.000Z',
      lastUsedAt: '2026-01-05T00:00:00.000Z',
      revokedAt: null,
    },
    {
      hash: B,
      label: 'b',
      createdAt: '2026-01-02T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: '2026-01-06T00:00:00.000Z',
    },
  ]);
});
