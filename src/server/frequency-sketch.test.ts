import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrequencySketch, stringHash } from './frequency-sketch.ts';

test('a key is estimated at least as often as it was added, up to 15', () => {
  const sketch = new FrequencySketch(1 << 10, 1_000_000);
  for (let key = 0; key < 300; key++) for (let i = 0; i < key % 20; i++) sketch.add(key * 7919);
  for (let key = 0; key < 300; key++) {
    const estimate = sketch.estimate(key * 7919);
    assert.ok(estimate >= Math.min(key % 20, 15), `key ${key}: ${estimate}`);
    assert.ok(estimate <= 15);
  }
  assert.equal(sketch.estimate(123_456_789), 0, 'a key never added, in a sketch far from full');
});

test('every `period` additions the counts are halved, so old popularity fades', () => {
  const sketch = new FrequencySketch(1 << 10, 100);
  for (let i = 0; i < 12; i++) sketch.add(42);
  assert.equal(sketch.estimate(42), 12);
  for (let i = 0; i < 88; i++) sketch.add(1000 + i);
  assert.equal(sketch.estimate(42), 6);
  for (let i = 0; i < 100; i++) sketch.add(5000 + i);
  assert.equal(sketch.estimate(42), 3);
});

test('a width that is not a power of two is refused', () => {
  assert.throws(() => new FrequencySketch(1000), RangeError);
});

test('stringHash tells apart strings that differ in one character', () => {
  assert.notEqual(stringHash('/getBereich?bereichID=1'), stringHash('/getBereich?bereichID=2'));
  assert.equal(stringHash('same'), stringHash('same'));
});
