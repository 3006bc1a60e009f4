import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keptBase64 } from '../xml/kept-base64.ts';
import { HotVariants } from './hot-variants.ts';

// 30 bytes cost 30 + 40 of base64: 70.
const bytes = (fill: number) => Buffer.alloc(30, fill);

test('holds variants with their base64 up to the bound, dropping the least recently used', () => {
  const hot = new HotVariants(210);
  const a = bytes(1);
  hot.put('a', 'png', a);
  hot.put('b', 'png', bytes(2));
  hot.put('c', 'png', bytes(3));
  assert.equal(hot.bytes, 210);
  assert.deepEqual(keptBase64(a), Buffer.from(a.toString('base64'), 'latin1'));
  assert.equal(hot.get('a')?.bytes, a); // now the most recent
  hot.put('d', 'jpeg', bytes(4));
  assert.equal(hot.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual(
    ['a', 'c', 'd'].map((h) => hot.get(h)?.format),
    ['png', 'png', 'jpeg'],
  );
  assert.equal(hot.bytes, 210);
});

test('a variant costing more than the bound is not held; deleting and replacing keep the count', () => {
  const hot = new HotVariants(100);
  hot.put('big', 'png', Buffer.alloc(60));
  assert.equal(hot.get('big'), undefined);
  assert.equal(hot.bytes, 0);
  hot.put('a', 'png', bytes(1));
  hot.put('a', 'png', bytes(2));
  assert.equal(hot.bytes, 70);
  hot.delete('a');
  hot.delete('a');
  assert.equal(hot.bytes, 0);
  assert.equal(new HotVariants(0).bytes, 0);
});
