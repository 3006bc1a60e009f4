import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestId } from './request-log.ts';

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test("the ids a process makes are shaped like a UUID and count up in the last group's hex digits", () => {
  let before = requestId(undefined);
  assert.match(before, UUID_SHAPE);
  // Past several carries ('9' to 'a', 'f' to '0' with the digit before counted up).
  for (let i = 0; i < 5000; i++) {
    const id = requestId(undefined);
    assert.match(id, UUID_SHAPE);
    assert.equal(id.slice(0, 24), before.slice(0, 24));
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
