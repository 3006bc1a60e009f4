import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Positions } from './positions.ts';

test('the watermark passes jobs finished out of order once the gaps close', () => {
  const p = new Positions(10);
  p.done(12);
  p.done(11);
  assert.equal(p.watermark, 10);
  p.done(10);
  assert.equal(p.watermark, 13);
});

test('a failed job holds the watermark, and nothing after it is remembered', () => {
  const p = new Positions(0);
  p.done(0);
  p.done(2);
  p.failed(1);
  p.done(3);
  assert.equal(p.watermark, 1);
  p.done(1);
  assert.equal(p.watermark, 2, 'what finished after the failure is asked again on resume');
});
