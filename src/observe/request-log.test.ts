import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countUp, requestId } from './request-log.ts';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test('a counter of hex digits counts up in place, carrying through every digit, and comes round to zero', () => {
  const after = (digits: string) => {
    const bytes = Buffer.from(`prefix-${digits}`, 'latin1');
    countUp(bytes, 7);
    return bytes.toString('latin1');
  };
  assert.equal(after('000000000000'), 'prefix-000000000001');
  assert.equal(after('000000000009'), 'prefix-00000000000a');
  assert.equal(after('00000000000f'), 'prefix-000000000010');
  assert.equal(after('0000000009ff'), 'prefix-000000000a00');
  assert.equal(after('0fffffffffff'), 'prefix-100000000000');
  assert.equal(after('ffffffffffff'), 'prefix-000000000000');
  for (const digits of ['3a9f0c7e12b4', '00000000ffff', 'fffffffffff0', 'abcdef012345']) {
    const counted = after(digits).slice(7);
    assert.equal(BigInt(`0x${counted}`), (BigInt(`0x${digits}`) + 1n) % 16n ** 12n, digits);
  }
});

test('the ids a process makes are shaped like a UUID, share its prefix and count up by one', () => {
  let before = requestId(undefined);
  assert.match(before, UUID_SHAPE);
  for (let i = 0; i < 5000; i++) {
    const id = requestId(undefined);
    assert.match(id, UUID_SHAPE);
    assert.equal(id.slice(0, 24), before.slice(0, 24));
    // `before` is read after the next id was made: an id is a copy, not a view of the counter.
    assert.equal(Number.parseInt(id.slice(24), 16), Number.parseInt(before.slice(24), 16) + 1, id);
    before = id;
  }
});

test("a client's sane X-Request-Id is kept; any other is replaced by one of ours", () => {
  assert.equal(requestId('abc-123.x:y_z'), 'abc-123.x:y_z');
  assert.equal(requestId(['first', 'second']), 'first');
  for (const insane of ['', 'with space', 'a'.repeat(129), 'ü'])
    assert.match(requestId(insane), UUID_SHAPE, JSON.stringify(insane));
});
