import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refill } from './token-bucket.ts';

test('a bucket refills at its rate for the time since its last refill, up to its capacity', () => {
  const bucket = { tokens: 1, updated: 100 };
  refill(bucket, 110, 0.5, 20);
  assert.deepEqual(bucket, { tokens: 6, updated: 110 });
  refill(bucket, 1_000, 0.5, 20);
  assert.deepEqual(bucket, { tokens: 20, updated: 1_000 });
});

test('a clock read earlier than the last gives nothing and takes nothing away', () => {
  const bucket = { tokens: -3, updated: 500 };
  refill(bucket, 200, 1, 20);
  assert.deepEqual(bucket, { tokens: -3, updated: 200 });
  refill(bucket, 205, 1, 20);
  assert.equal(bucket.tokens, 2);
});

test('a bucket never refilled yet is filled by its first refill', () => {
  const bucket = { tokens: 0, updated: Number.NEGATIVE_INFINITY };
  refill(bucket, 0, 0.03, 20);
  assert.deepEqual(bucket, { tokens: 20, updated: 0 });
});
