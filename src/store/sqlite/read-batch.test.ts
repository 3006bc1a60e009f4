import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { ReadBatch } from './read-batch.ts';

let dir: string;
let reader: Database.Database;
let writer: Database.Database;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'scoop-read-batch-'));
  const file = path.join(dir, 'store.db');
  writer = new Database(file);
  writer.pragma('journal_mode = WAL');
  writer.exec('CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1)');
  reader = new Database(file);
});

afterEach(() => {
  reader.close();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('ReadBatch', () => {
  test("the reads of one turn share one transaction, which the turn's end commits", async () => {
    const batch = new ReadBatch(reader);
    const value = reader.prepare<[], { v: number }>('SELECT v FROM t');
    assert.equal(
      batch.read(() => value.get()!.v),
      1,
    );
    assert.ok(reader.inTransaction);
    // Another process's commit, in the midst of the turn: not seen until the next turn.
    writer.exec('UPDATE t SET v = 2');
    assert.equal(
      batch.read(() => value.get()!.v),
      1,
      'one snapshot for the turn',
    );
    await nextTurn();
    assert.ok(!reader.inTransaction, 'committed at the turn’s end');
    assert.equal(
      batch.read(() => value.get()!.v),
      2,
    );
    await nextTurn();
    assert.ok(!reader.inTransaction);
  });

  test('end() before a write on the same connection: the write runs in its own transaction', async () => {
    const batch = new ReadBatch(reader);
    batch.read(() => reader.prepare('SELECT v FROM t').get());
    writer.exec('UPDATE t SET v = 3');
    batch.end();
    assert.ok(!reader.inTransaction);
    // Inside the stale snapshot this would fail with SQLITE_BUSY_SNAPSHOT.
    reader.transaction(() => reader.prepare('UPDATE t SET v = v + 1').run())();
    assert.equal(writer.prepare<[], { v: number }>('SELECT v FROM t').get()!.v, 4);
    batch.end();
    await nextTurn();
    assert.ok(!reader.inTransaction);
  });

  test("reads inside the connection's own transaction are left to it", async () => {
    const batch = new ReadBatch(reader);
    reader.exec('BEGIN IMMEDIATE');
    reader.exec('UPDATE t SET v = 5');
    assert.equal(
      batch.read(() => reader.prepare<[], { v: number }>('SELECT v FROM t').get()!.v),
      5,
    );
    await nextTurn();
    assert.ok(reader.inTransaction, 'not committed by the batch');
    reader.exec('ROLLBACK');
    assert.equal(reader.prepare<[], { v: number }>('SELECT v FROM t').get()!.v, 1);
  });

  test('a connection closed before the turn ends is left alone', async () => {
    const own = new Database(path.join(dir, 'store.db'));
    const batch = new ReadBatch(own);
    batch.read(() => own.prepare('SELECT v FROM t').get());
    own.close();
    await nextTurn();
    assert.ok(!own.open);
  });
});
