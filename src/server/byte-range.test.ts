import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseRange, partOf } from './byte-range.ts';

const TAG = '"abc"';

test('one byte range of a GET (RFC 9110 §14.1.2): first-last, open-ended, suffix', () => {
  assert.deepEqual(chooseRange('bytes=0-9', undefined, TAG, 100), { kind: 'part', start: 0, end: 9 });
  assert.deepEqual(chooseRange('bytes=90-', undefined, TAG, 100), { kind: 'part', start: 90, end: 99 });
  assert.deepEqual(chooseRange('bytes=90-500', undefined, TAG, 100), { kind: 'part', start: 90, end: 99 });
  assert.deepEqual(chooseRange('bytes=-10', undefined, TAG, 100), { kind: 'part', start: 90, end: 99 });
  assert.deepEqual(chooseRange('bytes=-500', undefined, TAG, 100), { kind: 'part', start: 0, end: 99 });
  assert.deepEqual(chooseRange('BYTES = 5 - 5', undefined, TAG, 100), { kind: 'part', start: 5, end: 5 });
});

test('past the end, or a suffix of nothing, is unsatisfiable; an empty file has no range', () => {
  assert.deepEqual(chooseRange('bytes=100-', undefined, TAG, 100), { kind: 'unsatisfiable' });
  assert.deepEqual(chooseRange('bytes=-0', undefined, TAG, 100), { kind: 'unsatisfiable' });
  assert.deepEqual(chooseRange('bytes=0-', undefined, TAG, 0), { kind: 'unsatisfiable' });
  assert.deepEqual(chooseRange('bytes=99999999999999999999-', undefined, TAG, 100), {
    kind: 'unsatisfiable',
  });
});

test('what is not one valid byte range is ignored: the whole is sent (§14.2)', () => {
  for (const header of ['bytes=0-1,4-5', 'items=0-1', 'bytes=5-1', 'bytes=-', 'bytes=a-b', '']) {
    assert.deepEqual(chooseRange(header, undefined, TAG, 100), { kind: 'whole' }, header);
  }
  assert.deepEqual(chooseRange(undefined, undefined, TAG, 100), { kind: 'whole' });
});

test('If-Range: only the current strong tag keeps the range (§13.1.5)', () => {
  assert.deepEqual(chooseRange('bytes=0-0', TAG, TAG, 100), { kind: 'part', start: 0, end: 0 });
  for (const ifRange of ['"other"', `W/${TAG}`, 'Tue, 15 Nov 1994 08:12:31 GMT']) {
    assert.deepEqual(chooseRange('bytes=0-0', ifRange, TAG, 100), { kind: 'whole' }, ifRange);
  }
});

test('a part of a streamed binary reads across its chunks and stops at the end of the range', async () => {
  let read = 0;
  const bytes = Buffer.from('0123456789abcdefghij');
  const source = {
    size: bytes.length,
    async *chunks() {
      for (let at = 0; at < bytes.length; at += 6) {
        read++;
        yield bytes.subarray(at, at + 6);
      }
    },
  };
  const part = partOf({ bytesOf: source }, 4, 13);
  assert.ok(!Buffer.isBuffer(part) && 'bytesOf' in part);
  assert.equal(part.bytesOf.size, 10);
  const out: Uint8Array[] = [];
  for await (const chunk of part.bytesOf.chunks()) out.push(chunk);
  assert.equal(Buffer.concat(out).toString(), '456789abcd');
  assert.equal(read, 3, 'the chunk after the range is not read');
  assert.equal((partOf(bytes, 2, 4) as Buffer).toString(), '234');
});

test('a part of a source that can seek starts reading at the range, not at the start', async () => {
  const bytes = Buffer.from('0123456789abcdefghij');
  const source = {
    size: bytes.length,
    chunks(): AsyncIterable<Uint8Array> {
      throw new Error('read from the start');
    },
    async *chunksFrom(offset: number) {
      yield bytes.subarray(offset, offset + 3);
      yield bytes.subarray(offset + 3);
    },
  };
  const part = partOf({ bytesOf: source }, 15, 18);
  assert.ok(!Buffer.isBuffer(part) && 'bytesOf' in part);
  const out: Uint8Array[] = [];
  for await (const chunk of part.bytesOf.chunks()) out.push(chunk);
  assert.equal(Buffer.concat(out).toString(), 'fghi');
});
