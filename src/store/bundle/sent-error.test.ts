/** Errors sent between the import's thread and its workers arrive as they left. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { receivedError, sendError } from './sent-error.ts';
import { BundleError } from './validate.ts';

test('a refusal arrives as the same BundleError, through structured clone', () => {
  const sent = structuredClone(
    sendError(new BundleError('anhaenge[0] (anhangID 1).file', '"a.txt" does not exist')),
  );
  const arrived = receivedError(sent);
  assert.ok(arrived instanceof BundleError);
  assert.equal(arrived.where, 'anhaenge[0] (anhangID 1).file');
  assert.equal(arrived.message, 'anhaenge[0] (anhangID 1).file: "a.txt" does not exist');
});

test('another error arrives with its message and code', () => {
  const io = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
  const arrived = receivedError(structuredClone(sendError(io))) as NodeJS.ErrnoException;
  assert.ok(!(arrived instanceof BundleError));
  assert.equal(arrived.message, io.message);
  assert.equal(arrived.code, 'EMFILE');
  assert.equal((receivedError(sendError('kaputt')) as NodeJS.ErrnoException).code, undefined);
  assert.equal(receivedError(sendError('kaputt')).message, 'kaputt');
});

test('whatever was thrown arrives as an Error with a message', () => {
  for (const thrown of [undefined, null, 42, { code: 7 }]) {
    const arrived = receivedError(structuredClone(sendError(thrown))) as NodeJS.ErrnoException;
    assert.ok(arrived instanceof Error);
    assert.equal(arrived.message, String(thrown));
    assert.equal(arrived.code, undefined);
  }
});
