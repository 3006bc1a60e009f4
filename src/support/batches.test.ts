import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batches } from './batches.ts';

const sizes = (list: number[][]) => list.map((b) => b.length);

test('batches hold at most so many items, and about so many bytes', () => {
  const items = Array.from({ length: 7 }, (_, i) => i);
  assert.deepEqual(sizes([...batches(items, 3, 1000, () => 1)]), [3, 3, 1]);
  assert.deepEqual([...batches(items, 100, 10, () => 4)].flat(), items, 'in order, none lost');
  assert.deepEqual(sizes([...batches(items, 100, 10, () => 4)]), [2, 2, 2, 1]);
});

test('an item larger than the bytes is a batch of its own; nothing makes no batch', () => {
  assert.deepEqual([...batches([1, 50, 2], 10, 10, (n) => n)], [[1], [50], [2]]);
  assert.deepEqual([...batches([], 10, 10, () => 1)], []);
});

test('without a byte bound, batches are cut by count alone', () => {
  const items = Array.from({ length: 2500 }, (_, i) => i);
  assert.deepEqual(sizes([...batches(items, 1000)]), [1000, 1000, 500]);
});
