import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BufferPool, Loans } from './buffer-pool.ts';

const KiB = 1024;

test('a buffer given back is lent again, for any length of its size class', () => {
  const pool = new BufferPool(1024 * KiB, 256 * KiB);
  const first = pool.borrow(40 * KiB);
  assert.equal(first.length, 40 * KiB);
  pool.giveBack(first);
  assert.equal(pool.kept, 64 * KiB);
  const second = pool.borrow(33 * KiB);
  assert.equal(second.length, 33 * KiB);
  assert.equal(second.buffer, first.buffer, 'the same memory');
  assert.equal(pool.kept, 0);
  const other = pool.borrow(20 * KiB);
  assert.notEqual(other.buffer, first.buffer, 'another class, another buffer');
});

test('small and oversized lengths are allocated, never kept', () => {
  const pool = new BufferPool(1024 * KiB, 256 * KiB);
  for (const length of [0, 100, 4 * KiB, 256 * KiB + 1]) {
    assert.equal(pool.lends(length), false, String(length));
    const buffer = pool.borrow(length);
    assert.equal(buffer.length, length);
    pool.giveBack(buffer);
    assert.equal(pool.kept, 0, String(length));
  }
  assert.equal(pool.lends(4 * KiB + 1), true);
  assert.equal(pool.lends(256 * KiB), true);
});

test('only its own buffers are taken back, each view once', () => {
  const pool = new BufferPool(1024 * KiB, 256 * KiB);
  pool.giveBack(Buffer.alloc(64 * KiB));
  assert.equal(pool.kept, 0, 'a buffer it did not lend');
  const lent = pool.borrow(64 * KiB);
  pool.giveBack(lent);
  pool.giveBack(lent);
  assert.equal(pool.kept, 64 * KiB, 'given back twice, kept once');
  const again = pool.borrow(50 * KiB);
  assert.equal(again.buffer, lent.buffer);
  pool.giveBack(lent);
  assert.equal(pool.kept, 0, 'a stale view of memory lent again is not taken back');
  const other = pool.borrow(64 * KiB);
  assert.notEqual(other.buffer, again.buffer, 'two loans at once never share memory');
  pool.giveBack(again);
  assert.equal(pool.kept, 64 * KiB);
});

test('no more than its bound is kept, nor more than half of it of one size', () => {
  const pool = new BufferPool(1024 * KiB, 256 * KiB);
  const lent = (size: number, count: number) => Array.from({ length: count }, () => pool.borrow(size));
  for (const buffer of lent(64 * KiB, 9)) pool.giveBack(buffer);
  assert.equal(pool.kept, 512 * KiB, 'eight of one size, the ninth left to the collector');
  for (const buffer of [...lent(256 * KiB, 1), ...lent(128 * KiB, 1), ...lent(32 * KiB, 4)])
    pool.giveBack(buffer);
  assert.equal(pool.kept, 1024 * KiB);
  pool.giveBack(pool.borrow(16 * KiB));
  assert.equal(pool.kept, 1024 * KiB, 'the bound reached');
});

test("a settled answer's buffers go back; a forfeited one's do not", () => {
  const pool = new BufferPool(1024 * KiB, 256 * KiB);
  const written = new Loans(pool);
  written.borrow(10 * KiB);
  written.borrow(100);
  written.borrow(50 * KiB);
  written.settle();
  assert.equal(pool.kept, 16 * KiB + 64 * KiB);
  written.settle();
  assert.equal(pool.kept, 16 * KiB + 64 * KiB, 'settled once');
  const cut = new Loans(pool);
  cut.borrow(10 * KiB);
  cut.forfeit();
  cut.settle();
  assert.equal(pool.kept, 64 * KiB, 'its buffer stays out: a socket may still write it');
});
