/**
 * The SQLite version watch on its own, over a second connection to the same file: how
 * stale a version may be, what forget() changes, and what an unreadable file does.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { scratch } from '../../../test/support/bundles.ts';
import { StoreUnavailableError } from '../content-store.ts';
import { SqliteStore } from './sqlite-store.ts';
import { SqliteVersionWatch } from './version-watch.ts';

const s = scratch();

/** A migrated file, the watch on one connection and another connection that writes. */
async function harness() {
  const file = path.join(s.dir(), 'watch.db');
  await new SqliteStore(file).close();
  const db = new Database(file);
  const other = new Database(file);
  const bump = (key: string) =>
    other.prepare('UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = ?').run(key);
  return { db, other, bump, watch: new SqliteVersionWatch(db) };
}

test('both versions are read from the file, and read again only after 20 ms', async (t) => {
  const { db, other, bump, watch } = await harness();
  let now = 1000;
  t.mock.method(performance, 'now', () => now);
  try {
    assert.deepEqual(watch.current(), { version: 0, tokens: 0 });
    bump('content_version');
    bump('tokens_version');
    now += 19;
    assert.deepEqual(watch.current(), { version: 0, tokens: 0 }, 'within 20 ms: the last reading');
    now += 1;
    assert.deepEqual(watch.current(), { version: 1, tokens: 1 });
  } finally {
    db.close();
    other.close();
  }
});

test('forget() makes the next call read the file at once', async () => {
  const { db, other, bump, watch } = await harness();
  try {
    watch.current();
    bump('content_version');
    watch.forget();
    assert.deepEqual(watch.peek(), { version: 1, tokens: 0 });
  } finally {
    db.close();
    other.close();
  }
});

test('a file that cannot be read is UNAVAILABLE for current() and unknown for peek()', () => {
  const ioError = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_READ' });
  const unreadable = {
    prepare: () => ({
      all: () => {
        throw ioError;
      },
    }),
  } as unknown as Database.Database;
  const watch = new SqliteVersionWatch(unreadable);
  assert.throws(
    () => watch.current(),
    (error: unknown) => error instanceof StoreUnavailableError && error.cause === ioError,
  );
  assert.equal(watch.peek(), undefined);
});
