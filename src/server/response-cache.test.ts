import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import { AnswerFile } from './answer-file.ts';
import {
  answerHead,
  type CachedAnswer,
  cachedHead,
  keptKey,
  type RequestKey,
  ResponseCache,
  requestKey,
} from './response-cache.ts';

const key = (name: string): RequestKey => requestKey('GET', `/${name}`, {}, undefined)!;

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
  conditional: true,
});

/** An answer file in a folder of its own, closed and removed after `use`. */
function withFile(options: { maxBytes: number; maxEntries?: number }, use: (file: AnswerFile) => void): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'scoop-rc-file-'));
  // Keeping may take all the time: these tests are about what is kept, not when (answer-file.test.ts).
  const file = AnswerFile.open({ dir, keepShare: 1, ...options });
  try {
    use(file);
  } finally {
    file.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('an entry is served only for its version and before it expires', () => {
  const cache = new ResponseCache(1 << 20);
  cache.set(key('k'), answer(3, 10, 1000));
  assert.ok(cache.get(key('k'), 3, 999));
  assert.equal(cache.get(key('k'), 4, 0), undefined);
  cache.set(key('k'), answer(3, 10, 1000));
  assert.equal(cache.get(key('k'), 3, 1000), undefined);
});

test('it stays within its byte bound, oldest unused entries out first', () => {
  const cache = new ResponseCache(20_000);
  for (let i = 0; i < 10; i++) cache.set(key(`k${i}`), answer(1, 1500));
  assert.ok(cache.size < 10);
  assert.equal(cache.get(key('k0'), 1, 0), undefined);
  assert.ok(cache.get(key('k9'), 1, 0));
});

test('an entry holds only its own bytes, not the larger buffer its body is a view of', () => {
  const cache = new ResponseCache(1 << 20);
  const shared = Buffer.alloc(64 * 1024, 7);
  const body = shared.subarray(100, 400);
  cache.set(key('k'), { ...answer(1, 0), body });
  const kept = cache.get(key('k'), 1, 0)!.body;
  assert.deepEqual(kept, body);
  assert.equal(kept.buffer.byteLength, 300, 'a copy of its own length, not the 64 KiB it came from');
  shared.fill(0);
  assert.equal(kept[0], 7, 'later writes to the shared memory do not reach it');
  // A small Buffer.concat result is a slice of node's shared pool: kept the same way.
  const pooled = Buffer.concat([Buffer.from('<a>'), Buffer.from('</a>')]);
  cache.set(key('p'), { ...answer(1, 0), body: pooled });
  assert.equal(cache.get(key('p'), 1, 0)!.body.buffer.byteLength, pooled.length);
});

/** A miss, as a request makes it: the lookup (counted), then the question whether to keep its answer. */
function miss(cache: ResponseCache, name: string, bytes: number): boolean {
  assert.equal(cache.get(key(name), 1, 0), undefined);
  return cache.admits(key(name), bytes);
}

test('an answer is kept once its request comes again, small or large', () => {
  const cache = new ResponseCache(1 << 20);
  for (const [name, bytes] of [
    ['small', 100],
    ['large', 200_000],
  ] as const) {
    assert.equal(miss(cache, name, bytes), false, 'asked for once');
    assert.equal(miss(cache, name, bytes), true, 'asked for again');
  }
  // Traffic that never repeats keeps almost nothing (only a request whose counters all collide).
  let kept = 0;
  for (let i = 0; i < 1000; i++) if (miss(cache, `other-${i}`, 100)) kept++;
  assert.ok(kept <= 10, `${kept} of 1,000 requests asked for once were kept`);
});

test('a full cache keeps a new answer only when its request is asked for more often than those it would evict', () => {
  const cache = new ResponseCache(64 * 1024);
  const fill = (name: string, times: number) => {
    for (let i = 1; i < times; i++) miss(cache, name, 10_000);
    assert.equal(miss(cache, name, 10_000), true, name);
    cache.set(key(name), answer(1, 10_000));
  };
  for (let i = 0; i < 5; i++) fill(`kept-${i}`, 3);
  assert.equal(cache.size, 5);
  // Asked for twice, less than the three times of the oldest entries: they stay.
  assert.equal(miss(cache, 'twice', 10_000), false);
  assert.equal(miss(cache, 'twice', 10_000), false);
  // Asked for a fourth time, it is worth more than the entry it evicts.
  assert.equal(miss(cache, 'twice', 10_000), false, 'three times: as often, not more');
  assert.equal(miss(cache, 'twice', 10_000), true);
  cache.set(key('twice'), answer(1, 10_000));
  assert.equal(cache.size, 5, 'one in, the oldest out');
  assert.equal(cache.get(key('kept-0'), 1, 0), undefined);
  assert.ok(cache.get(key('twice'), 1, 0));
  // Entries read since they were stored get their second chance first, then are weighed as any.
  for (let i = 1; i < 5; i++) assert.ok(cache.get(key(`kept-${i}`), 1, 0));
  const eager = [1, 2, 3, 4, 5].map(() => miss(cache, 'eager', 10_000));
  assert.deepEqual(
    eager,
    [false, false, false, false, true],
    'kept at its fifth ask: the others were asked four times',
  );
  // An answer of more than a quarter of the budget is never kept, however often it is asked for.
  const huge = [1, 2, 3, 4, 5].map(() => miss(cache, 'huge', 20_000));
  assert.deepEqual(huge, [false, false, false, false, false]);
});

test('an entry read since it was stored gets a second chance before it is evicted', () => {
  const cache = new ResponseCache(20_000);
  for (let i = 0; i < 5; i++) cache.set(key(`k${i}`), answer(1, 1500));
  assert.ok(cache.get(key('k0'), 1, 0), 'the oldest entry, read');
  cache.set(key('k5'), answer(1, 1500));
  cache.set(key('k6'), answer(1, 1500));
  assert.ok(cache.get(key('k0'), 1, 0), 'the read entry survived');
  assert.equal(cache.get(key('k1'), 1, 0), undefined, 'the oldest unread entry went instead');
  assert.ok(cache.get(key('k6'), 1, 0));
});

test('an answer is found only by a request the same in everything its answer depends on', () => {
  const body = Buffer.from('<x/>');
  const soap = { contentType: 'text/xml', soapAction: '"a"' };
  const cache = new ResponseCache(1 << 20);
  cache.set(requestKey('POST', '/p', soap, body)!, answer(1, 10));
  cache.set(requestKey('GET', '/q', {}, undefined)!, answer(1, 10));
  assert.ok(cache.get(requestKey('POST', '/p', soap, Buffer.from('<x/>'))!, 1, 0));
  assert.ok(cache.get(requestKey('GET', '/q', {}, undefined)!, 1, 0));
  const others = [
    requestKey('POST', '/p', { ...soap, soapAction: '"b"' }, body),
    requestKey('POST', '/p', { contentType: 'application/soap+xml' }, body),
    requestKey('POST', '/p', { ...soap, authorization: 'Bearer x' }, body),
    requestKey('POST', '/other', soap, body),
    requestKey('POST', '/p', soap, Buffer.from('<y/>')),
    requestKey('POST', '/p', soap, Buffer.from('<x/> ')),
    requestKey('GET', '/q', { authorization: 'Bearer x' }, undefined),
    requestKey('GET', '/q?', {}, undefined),
  ];
  for (const other of others) assert.equal(cache.get(other!, 1, 0), undefined);
  assert.equal(requestKey('HEAD', '/q', {}, undefined), undefined);
  assert.equal(requestKey('POST', '/p', {}, Buffer.alloc(17 * 1024)), undefined);
});

test('one body posted to two addresses is two requests to the frequency sketch', () => {
  // A form body such as `anhangID=5` goes to getAnhang and to checkAnhangVorhanden alike.
  const form = { contentType: 'application/x-www-form-urlencoded' };
  const post = (url: string) => requestKey('POST', url, form, Buffer.from('anhangID=5'))!;
  assert.equal(post('/a/getAnhang').counted, post('/a/getAnhang').counted);
  assert.notEqual(post('/a/getAnhang').counted, post('/a/checkAnhangVorhanden').counted);
  const cache = new ResponseCache(1 << 20);
  cache.get(post('/a/getAnhang'), 1, 0);
  cache.get(post('/a/getAnhang'), 1, 0);
  cache.get(post('/a/checkAnhangVorhanden'), 1, 0);
  assert.equal(cache.admits(post('/a/checkAnhangVorhanden'), 10), false, 'asked for once');
  assert.equal(cache.admits(post('/a/getAnhang'), 10), true, 'asked for twice');
});

test('a body hashes the same wherever it sits in memory', () => {
  const text = '<soap:Envelope>0123456789</soap:Envelope>';
  const hashes = new Set<number | string>();
  for (let offset = 0; offset < 8; offset++) {
    const body = Buffer.concat([Buffer.alloc(offset), Buffer.from(text)]).subarray(offset);
    hashes.add(requestKey('POST', '/p', {}, body)!.hash);
  }
  assert.equal(hashes.size, 1);
});

test('requests whose hashes collide are told apart, and a bucket holds a bounded number of them', () => {
  const cache = new ResponseCache(1 << 20);
  const colliding = (i: number): RequestKey => ({
    ...requestKey('POST', '/p', {}, Buffer.from(`<x>${i}</x>`))!,
    hash: 7,
  });
  for (let i = 0; i < 3; i++) cache.set(colliding(i), answer(i, 10));
  for (let i = 0; i < 3; i++) assert.equal(cache.get(colliding(i), i, 0)?.version, i);
  for (let i = 3; i < 20; i++) cache.set(colliding(i), answer(i, 10));
  assert.equal(cache.size, 8);
  assert.equal(cache.get(colliding(0), 0, 0), undefined, 'the oldest of the bucket made room');
  assert.equal(cache.get(colliding(19), 19, 0)?.version, 19);
});

test('an entry keeps its own copy of the request body', () => {
  const cache = new ResponseCache(1 << 20);
  const body = Buffer.from('<x/>');
  const stored = requestKey('POST', '/p', {}, body)!;
  cache.set(stored, answer(1, 10));
  body.write('<y/>');
  assert.ok(cache.get(requestKey('POST', '/p', {}, Buffer.from('<x/>'))!, 1, 0));
  assert.equal(cache.get(requestKey('POST', '/p', {}, Buffer.from('<y/>'))!, 1, 0), undefined);
});

test("a key kept in memory holds its own body and not the file tier's head of the request", () => {
  withFile({ maxBytes: 1 << 20 }, (file) => {
    // A new file's first lookup only takes on the version (it empties the file for it).
    file.get(key('first'), 1, 0);
    for (const request of [key('g'), requestKey('POST', '/p', {}, Buffer.from('<x/>'))!]) {
      file.get(request, 1, 0);
      assert.ok(request.filed, "the file tier's lookup leaves its head on the request's own key");
      const kept = keptKey(request);
      assert.equal(kept.filed, undefined);
      assert.deepEqual({ ...kept, filed: request.filed }, request);
      if (request.body) assert.notEqual(kept.body!.buffer, request.body.buffer);
    }
  });
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

test('an observer hears of every lookup as a hit or a miss', () => {
  const heard: string[] = [];
  const cache = new ResponseCache(1 << 20, { lookup: (result) => heard.push(result) });
  cache.get(key('k'), 1, 0);
  cache.set(key('k'), answer(1, 10, 1000));
  cache.get(key('k'), 1, 0);
  cache.get(key('k'), 2, 0);
  cache.set(key('k'), answer(1, 10, 1000));
  cache.get(key('k'), 1, 1000);
  cache.set(key('k'), answer(1, 10, 1000));
  assert.deepEqual(heard, ['miss', 'hit', 'miss', 'miss']);
});

test('with a file tier: an answer asked for before is kept there, and found once memory has none', () => {
  withFile({ maxBytes: 1 << 20 }, (file) => {
    const results: string[] = [];
    // Too small a budget for any entry in memory: every hit is the file's.
    const cache = new ResponseCache(4096, undefined, file, { lookup: (result) => results.push(result) });
    const { head: _head, ...kept } = answer(1, 10);
    const toFile = { ...kept, body: [kept.body] };
    assert.equal(cache.get(key('a'), 1, 0), undefined);
    cache.keepInFile(key('a'), toFile, 0);
    assert.equal(file.size, 0, 'asked for once: not kept');
    assert.equal(cache.get(key('a'), 1, 0), undefined);
    cache.keepInFile(key('a'), toFile, 0);
    assert.equal(file.size, 1);
    assert.equal(cache.get(key('a'), 1, 0)?.body.length, 10);
    assert.equal(cache.get(key('a'), 2, 0), undefined, 'another version');
    assert.deepEqual(results, ['miss', 'miss', 'hit', 'miss']);
    assert.equal(cache.size, 0, 'a file hit memory does not admit is not kept there');
  });
});

test('an answer found in the file is offered to memory, as its own copy, when memory admits it', () => {
  withFile({ maxBytes: 1 << 20 }, (file) => {
    const memory: string[] = [];
    const cache = new ResponseCache(1 << 20, { lookup: (result) => memory.push(result) }, file);
    const { head: _head, ...kept } = answer(1, 10);
    const toFile = { ...kept, body: [Buffer.from('0123456789')] };
    cache.get(key('a'), 1, 0);
    cache.get(key('a'), 1, 0);
    cache.keepInFile(key('a'), toFile, 0);
    // One buffer lent to every lookup, as a request's is until its answer is written.
    const lent = Buffer.alloc(1024);
    assert.equal(
      cache.get(key('a'), 1, 0, (length) => lent.subarray(0, length))?.body.toString(),
      '0123456789',
      "the file's",
    );
    lent.fill(0);
    assert.equal(
      cache.get(key('a'), 1, 0, (length) => lent.subarray(0, length))?.body.toString(),
      '0123456789',
      "memory's, a copy",
    );
    assert.deepEqual(memory, ['miss', 'miss', 'miss', 'hit']);
  });
});

test('a file hit is kept in memory only when memory admits it, and a full file keeps by the sketch', () => {
  withFile({ maxBytes: 1 << 20, maxEntries: 1 }, (file) => {
    // Room for four entries of ten bytes: the sketch's counters and 2 KiB or so an entry.
    const cache = new ResponseCache(8800, undefined, file);
    const { head: _head, ...kept } = answer(1, 10);
    const toFile = { ...kept, body: [Buffer.alloc(10)] };
    const popular = ['p1', 'p2', 'p3', 'p4'];
    for (const name of popular) {
      for (let i = 0; i < 5; i++) cache.get(key(name), 1, 0);
      cache.set(key(name), answer(1, 10));
    }
    assert.equal(cache.size, 4);
    cache.get(key('q'), 1, 0);
    cache.get(key('q'), 1, 0);
    cache.keepInFile(key('q'), toFile, 0);
    assert.ok(cache.get(key('q'), 1, 0), "the file's");
    assert.equal(cache.size, 4);
    for (const name of popular)
      assert.ok(cache.get(key(name), 1, 0), `${name}: not given up for q, asked for less`);
    // The file holds one record: q, asked for more often than r, holds its place once.
    cache.get(key('r'), 1, 0);
    cache.get(key('r'), 1, 0);
    cache.keepInFile(key('r'), toFile, 0);
    assert.equal(cache.get(key('r'), 1, 0), undefined);
    assert.ok(cache.get(key('q'), 1, 0));
    cache.keepInFile(key('r'), toFile, 0);
    assert.ok(cache.get(key('r'), 1, 0), 'then r takes it');
  });
});

test("the file remembers a request asked for before long after memory's sketch has forgotten it", () => {
  withFile({ maxBytes: 1 << 20 }, (file) => {
    // Memory's sketch has rows of 64 counters, halved every 64 lookups; the file's, sized by its
    // 131,072 records, every 2^20.
    const cache = new ResponseCache(4096, undefined, file);
    const { head: _head, ...kept } = answer(1, 10);
    const toFile = { ...kept, body: [kept.body] };
    cache.get(key('a'), 1, 0);
    for (let i = 0; i < 1000; i++) cache.get(key(`other-${i}`), 1, 0);
    assert.equal(cache.admits(key('a'), 10), false, "memory's count is gone");
    assert.equal(cache.get(key('a'), 1, 0), undefined);
    cache.keepInFile(key('a'), toFile, 0);
    assert.ok(cache.get(key('a'), 1, 0), 'asked for before, 1,000 lookups ago: kept in the file');
  });
});

test('requests asked for once do not push a popular answer out of a full file', () => {
  // Room for a few records of these: each one-off kept would need the oldest's place.
  withFile({ maxBytes: 800 }, (file) => {
    const cache = new ResponseCache(4096, undefined, file);
    const { head: _head, ...kept } = answer(1, 10);
    const toFile = { ...kept, body: [kept.body] };
    for (let i = 0; i < 20; i++) cache.get(key('popular'), 1, 0);
    cache.keepInFile(key('popular'), toFile, 0);
    for (let i = 0; i < 100; i++) {
      assert.equal(cache.get(key(`once-${i}`), 1, 0), undefined);
      cache.keepInFile(key(`once-${i}`), toFile, 0);
    }
    assert.equal(file.size, 1, 'none of them kept');
    assert.ok(cache.get(key('popular'), 1, 0), 'the popular answer still there');
  });
});
