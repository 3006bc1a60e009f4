/**
 * Tokens against a real store: a created token verifies, a revoked one does not, every
 * refusal looks the same, and only hashes are stored.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { scratch } from '../../test/support/bundles.ts';
import { databaseBytes } from '../../test/support/sqlite.ts';
import { ScoopError } from '../contract/errors.ts';
import { AUTH_FAILED_MESSAGE, Authenticator } from './authenticator.ts';
import { canonicalToken, hashToken, newToken } from './tokens.ts';

const s = scratch();

/** A store with one active token, and an authenticator whose clock the test moves. */
async function setUp() {
  const file = s.dbPath();
  const store = s.store(file);
  const token = newToken();
  await store.addToken(hashToken(token), 'redaktion', '2026-01-01T00:00:00.000Z');
  let now = Date.parse('2026-02-01T10:00:00Z');
  const auth = new Authenticator(store, () => new Date(now));
  const advance = (ms: number) => {
    now += ms;
  };
  return { file, store, token, auth, advance };
}

/** What a refused verify threw: its code and message. */
async function refusal(auth: Authenticator, presented: string | undefined) {
  try {
    await auth.verify(presented);
  } catch (error) {
    assert.ok(error instanceof ScoopError, String(error));
    return { code: error.code, message: error.message };
  }
  assert.fail(`${String(presented)} was accepted`);
}

describe('tokens', () => {
  test('a new token is a GUID and its canonical form is lower-case', () => {
    const token = newToken();
    assert.match(token, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(canonicalToken(` ${token.toUpperCase()} `), token);
    assert.equal(canonicalToken('not-a-guid'), undefined);
    assert.equal(canonicalToken(`{${token}}`), undefined);
  });

  test('a created token verifies, in any case and with surrounding blanks', async () => {
    const { auth, token } = await setUp();
    await auth.verify(token);
    await auth.verify(token.toUpperCase());
    await auth.verify(`  ${token}\n`);
  });

  test('verifying records when a token was last used', async () => {
    const { auth, token, store, advance } = await setUp();
    assert.equal((await store.listTokens())[0]!.lastUsedAt, null);
    await auth.verify(token);
    assert.equal((await store.listTokens())[0]!.lastUsedAt, '2026-02-01T10:00:00.000Z');
    advance(120_000);
    await auth.verify(token);
    assert.equal((await store.listTokens())[0]!.lastUsedAt, '2026-02-01T10:02:00.000Z');
  });

  test('a revoked token no longer verifies', async () => {
    const { auth, token, store } = await setUp();
    await auth.verify(token);
    assert.equal(await store.revokeToken(hashToken(token), '2026-02-02T00:00:00.000Z'), true);
    await assert.rejects(auth.verify(token), ScoopError);
    // Revoking again finds nothing active.
    assert.equal(await store.revokeToken(hashToken(token), '2026-02-03T00:00:00.000Z'), false);
    const [info] = await store.listTokens();
    assert.equal(info!.revokedAt, '2026-02-02T00:00:00.000Z');
  });

  test('verifiedNow knows a token only once verify() has checked it, and only for the current token version', async () => {
    const { auth, token, store, advance } = await setUp();
    assert.equal(auth.verifiedNow(token), false, 'never checked');
    assert.equal(auth.verifiedNow(undefined), false);
    await auth.verify(token);
    assert.equal(auth.verifiedNow(token), true);
    assert.equal(auth.verifiedNow(token.toUpperCase()), false, 'another spelling is checked on its own');
    advance(61_000);
    assert.equal(auth.verifiedNow(token), false, 'a last-used write is due: verify() makes it');
    await auth.verify(token);
    assert.equal(auth.verifiedNow(token), true);
    await store.addToken(hashToken(newToken()), 'andere', '2026-01-03T00:00:00.000Z');
    assert.equal(auth.verifiedNow(token), false, 'the token version moved');
  });

  test('missing, malformed, unknown and revoked tokens all give the same code and message', async () => {
    const { auth, token, store } = await setUp();
    const revoked = newToken();
    await store.addToken(hashToken(revoked), 'alt', '2026-01-01T00:00:00.000Z');
    await store.revokeToken(hashToken(revoked), '2026-01-02T00:00:00.000Z');
    const expected = { code: 'AUTH_FAILED', message: AUTH_FAILED_MESSAGE };
    const cases = {
      missing: undefined,
      empty: '',
      malformed: 'geheim',
      'almost a GUID': `${token}0`,
      unknown: newToken(),
      revoked,
    };
    for (const [name, presented] of Object.entries(cases)) {
      assert.deepEqual(await refusal(auth, presented), expected, name);
    }
  });

  test('only hashes are stored: the token text appears nowhere in the database files', async () => {
    const { file, store, token, auth } = await setUp();
    await auth.verify(token);
    const second = newToken();
    await store.addToken(hashToken(second), 'zweiter', '2026-01-05T00:00:00.000Z');
    await store.revokeToken(hashToken(second), '2026-01-06T00:00:00.000Z');
    const bytes = databaseBytes(file);
    for (const t of [token, second]) {
      for (const form of [t, t.toUpperCase(), t.replaceAll('-', '')]) {
        assert.equal(bytes.includes(Buffer.from(form, 'latin1')), false, `${form} is in the database`);
      }
      // The hash is there, which shows the search reads the right bytes.
      assert.equal(bytes.includes(hashToken(t)), true);
    }
    await store.close();
    assert.equal(databaseBytes(file).includes(Buffer.from(token, 'latin1')), false);
  });
});
