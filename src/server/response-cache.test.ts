import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import { answerHead, type CachedAnswer, cachedHead, ResponseCache, requestKey } from './response-cache.ts';

const answer = (version: number, bytes: number, expiresAt = Number.POSITIVE_INFINITY): CachedAnswer => ({
  version,
  expiresAt,
  headers: {},
  body: Buffer.alloc(bytes),
  head: cachedHead({}, bytes),
  call: {
    binding: 'httpget',
    operation: OPERATIONS[0]!,
    parameters: new Map(),
    token: undefined,
    authenticate: false,
  },
});

test('an entry is served only for its version and before it expires', () => {
  const cache = new ResponseCache(1 << 20);
  cache.set('k', answer(3, 10, 1000));
  assert.ok(cache.get('k', 3, 999));
  assert.equal(cache.get('k', 4, 0), undefined);
  cache.set('k', answer(3, 10, 1000));
  assert.equal(cache.get('k', 3, 1000), undefined);
});

test('it stays within its byte bound, oldest unused entries out first', () => {
  const cache = new ResponseCache(10_000);
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, answer(1, 1500));
  assert.ok(cache.size < 10);
  assert.equal(cache.get('k0', 1, 0), undefined);
  assert.ok(cache.get('k9', 1, 0));
});

test('an entry read since it was stored gets a second chance before it is evicted', () => {
  const cache = new ResponseCache(10_000);
  for (let i = 0; i < 5; i++) cache.set(`k${i}`, answer(1, 1500));
  assert.ok(cache.get('k0', 1, 0), 'the oldest entry, read');
  cache.set('k5', answer(1, 1500));
  cache.set('k6', answer(1, 1500));
  assert.ok(cache.get('k0', 1, 0), 'the read entry survived');
  assert.equal(cache.get('k1', 1, 0), undefined, 'the oldest unread entry went instead');
  assert.ok(cache.get('k6', 1, 0));
});

test('the key holds every part of the request an answer depends on', () => {
  const body = Buffer.from('<x/>');
  const a = requestKey('POST', '/p', { contentType: 'text/xml', soapAction: '"a"' }, body);
  assert.notEqual(a, requestKey('POST', '/p', { contentType: 'text/xml', soapAction: '"b"' }, body));
  assert.notEqual(a, requestKey('POST', '/p', { contentType: 'application/soap+xml' }, body));
  assert.notEqual(
    a,
    requestKey('POST', '/p', { contentType: 'text/xml', soapAction: '"a"' }, Buffer.from('<y/>')),
  );
  assert.notEqual(
    requestKey('GET', '/q', {}, undefined),
    requestKey('GET', '/q', { authorization: 'Bearer x' }, undefined),
  );
  assert.equal(requestKey('HEAD', '/q', {}, undefined), undefined);
  assert.equal(requestKey('POST', '/p', {}, Buffer.alloc(17 * 1024)), undefined);
});

test("a cached head lists the answer's headers and length, and each answer gets its own request id", () => {
  const cached = { ...answer(1, 3), head: cachedHead({ 'content-type': 'text/xml' }, 3) };
  assert.deepEqual(answerHead(cached, 'a'), [
    'content-type',
    'text/xml',
    'content-length',
    '3',
    'x-request-id',
    'a',
  ]);
  assert.deepEqual(answerHead(cached, 'b').at(-1), 'b');
  assert.equal(cached.head.at(-1), '', 'the cached list itself is not changed');
});

test('an observer hears of every lookup as a hit or a miss, unless told not to', () => {
  const heard: string[] = [];
  const cache = new ResponseCache(1 << 20, { lookup: (result) => heard.push(result) });
  cache.get('k', 1, 0);
  cache.set('k', answer(1, 10, 1000));
  cache.get('k', 1, 0);
  cache.get('k', 2, 0);
  cache.set('k', answer(1, 10, 1000));
  cache.get('k', 1, 1000);
  cache.set('k', answer(1, 10, 1000));
  cache.get('k', 1, 0, false);
  cache.get('other', 1, 0, false);
  assert.deepEqual(heard, ['miss', 'hit', 'miss', 'miss']);
});
