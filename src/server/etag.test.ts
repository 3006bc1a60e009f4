import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markWholeText } from '../xml/binary-text.ts';
import { keepBase64 } from '../xml/kept-base64.ts';
import { entityTag, noneMatch } from './etag.ts';

const source = (contentId?: string) => ({
  size: 10,
  ...(contentId ? { contentId } : {}),
  async *chunks() {
    yield new Uint8Array(10);
  },
});

test('the tag follows the bytes and the binary content', () => {
  const a = entityTag([Buffer.from('<a>1</a>')]);
  assert.match(a!, /^"[A-Za-z0-9_-]{32}"$/);
  assert.equal(entityTag([Buffer.from('<a>1</a>')]), a);
  assert.notEqual(entityTag([Buffer.from('<a>2</a>')]), a);
  const withBlob = entityTag([Buffer.from('<d>'), { base64Of: source('sha-1') }, Buffer.from('</d>')]);
  assert.notEqual(
    entityTag([Buffer.from('<d>'), { base64Of: source('sha-2') }, Buffer.from('</d>')]),
    withBlob,
  );
});

test('around kept base64 the tag is the same as for the same bytes, and follows the other parts', () => {
  const text = keepBase64(Uint8Array.of(1, 2, 3, 4, 5));
  const copy = Buffer.from(text);
  const tagOf = (before: string, middle: Buffer) =>
    entityTag([Buffer.from(before), middle, Buffer.from('</d>')]);
  const tag = tagOf('<d>', text);
  assert.equal(tag, tagOf('<d>', copy));
  assert.equal(tagOf('<d>', text), tag, 'remembered');
  assert.equal(tagOf('<e>', text), tagOf('<e>', copy));
  assert.notEqual(tagOf('<e>', text), tag);
  assert.equal(tagOf('<d>', text), tag, 'after another answer around the same text');
  assert.equal(entityTag([Buffer.from('<d>'), text]), entityTag([Buffer.from('<d>'), copy]));
});

test("a binary's whole text read at once is tagged as the binary streamed, not by its bytes", () => {
  const text = Buffer.from('AAAAAAAAAAAAAA==');
  const whole = markWholeText(Buffer.from(text), { contentId: 'sha-1', size: 10 });
  const streamed = entityTag([Buffer.from('<d>'), { base64Of: source('sha-1') }, Buffer.from('</d>')]);
  assert.equal(entityTag([Buffer.from('<d>'), whole, Buffer.from('</d>')]), streamed);
  assert.notEqual(
    entityTag([Buffer.from('<d>'), text, Buffer.from('</d>')]),
    streamed,
    'unmarked: its bytes',
  );
});

test('a binary without a content id gives no tag', () => {
  assert.equal(entityTag([{ base64Of: source() }]), undefined);
});

test('If-None-Match: lists, weak tags and * (RFC 9110 §13.1.2)', () => {
  assert.equal(noneMatch(undefined, '"x"'), false);
  assert.equal(noneMatch('"x"', '"x"'), true);
  assert.equal(noneMatch('"a", W/"x"', '"x"'), true);
  assert.equal(noneMatch('"a", "b"', '"x"'), false);
  assert.equal(noneMatch(' * ', '"x"'), true);
});
