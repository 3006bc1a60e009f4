import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import type { Call } from '../protocol/binding.ts';
import { AnswerFile, KEEP_BURST_MS, keyHash, requestHead } from './answer-file.ts';
import { cachedHead, type FileableAnswer, type RequestKey, requestKey } from './response-cache.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'scoop-answer-file-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const call: Call = {
  binding: 'soap11',
  operation: OPERATIONS[0]!,
  parameters: new Map([['bereichID', ['1']]]),
  token: '11111111-1111-1111-1111-111111111111',
  authenticate: true,
};

function soapKey(body: string, overrides: Partial<RequestKey> = {}): RequestKey {
  const key = requestKey(
    'POST',
    '/scoop/api/v6/scoop.asmx',
    { contentType: 'text/xml; charset=utf-8', soapAction: '"x"' },
    Buffer.from(body),
  )!;
  return { ...key, ...overrides };
}

function answer(text: string, more: Partial<FileableAnswer> = {}): FileableAnswer {
  return {
    version: 1,
    expiresAt: Number.POSITIVE_INFINITY,
    headers: { 'content-type': 'text/xml; charset=utf-8', 'cache-control': 'private, max-age=60' },
    body: [Buffer.from(text.slice(0, 3)), Buffer.from(text.slice(3))],
    call,
    conditional: false,
    ...more,
  };
}

/** A file whose version is 1, as a request's lookup makes it before its answer is kept. */
function open(options: Partial<Parameters<typeof AnswerFile.open>[0]> = {}): AnswerFile {
  // Keeping may take all the time (keepShare 1) unless a test bounds it.
  const file = AnswerFile.open({ dir, maxBytes: 1024 * 1024, keepShare: 1, ...options });
  assert.equal(file.get(soapKey('<nothing/>'), 1, 0), undefined);
  return file;
}

test("a request's head and hash are made once, at its first lookup, and kept with its key", () => {
  const file = open();
  const key = soapKey('<a>once</a>');
  assert.equal(key.filed, undefined);
  assert.equal(file.get(key, 1, 0), undefined);
  const made = key.filed;
  assert.deepEqual(made, { head: requestHead(key), hash: keyHash(requestHead(key), key.body, key.counted) });
  file.keep(key, answer('<answer>once</answer>'), 0);
  assert.equal(key.filed, made, 'keeping uses the same');
  assert.ok(file.get(soapKey('<a>once</a>'), 1, 0), 'and a fresh key of the same request finds it');
  file.close();
});

test('an answer kept is found for the very request, as the memory tier would send it', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>'), 0);
  let lent = 0;
  const found = file.get(soapKey('<a>1</a>'), 1, 0, (length) => {
    lent = length;
    return Buffer.alloc(length);
  });
  assert.ok(found);
  assert.equal(found.body.toString(), '<answer>eins</answer>');
  assert.ok(lent > found.body.length, 'the request and the answer are read with one buffer');
  assert.deepEqual(found.headers, answer('').headers);
  assert.deepEqual(found.head, cachedHead(found.headers, found.body.length));
  assert.equal(found.call.operation, call.operation);
  assert.equal(found.call.binding, 'soap11');
  assert.equal(found.call.token, call.token);
  assert.equal(found.call.authenticate, true);
  assert.equal(found.call.parameters.size, 0, 'a kept answer is never invoked again');
  assert.equal(file.size, 1);
  file.close();
});

test('a key missed and then kept, as a request does, is found by the same request made anew', () => {
  const file = open();
  const key = soapKey('<a>7</a>');
  // The lookup makes the key's head and hash; keep uses them, so they must be this request's.
  assert.equal(file.get(key, 1, 0), undefined);
  file.keep(key, answer('<answer>sieben</answer>'), 0);
  assert.equal(file.get(soapKey('<a>7</a>'), 1, 0)?.body.toString(), '<answer>sieben</answer>');
  assert.equal(file.get(soapKey('<a>8</a>'), 1, 0), undefined);
  const other = soapKey('<a>8</a>');
  assert.equal(file.get(other, 1, 0), undefined);
  file.keep(other, answer('<answer>acht</answer>'), 0);
  assert.equal(file.get(key, 1, 0)?.body.toString(), '<answer>sieben</answer>');
  assert.equal(file.get(soapKey('<a>8</a>'), 1, 0)?.body.toString(), '<answer>acht</answer>');
  file.close();
});

test('an entity tag is kept with its answer, last among the headers as send writes it', () => {
  const file = open();
  const key = requestKey('GET', '/scoop/api/v6/public.asmx/getBereich?bereichID=1', {}, undefined)!;
  const headers = { 'content-type': 'text/xml; charset=utf-8', etag: '"abc"' };
  file.keep(key, answer('<x/>', { headers, conditional: true }), 0);
  file.keep(
    requestKey('GET', '/scoop/api/v6/public.asmx/getBereich?bereichID=2', {}, undefined)!,
    answer('<y/>', { headers: { ...headers, etag: '"def"' }, conditional: true }),
    0,
  );
  const found = file.get(key, 1, 0)!;
  assert.deepEqual(found.headers, headers);
  assert.deepEqual(found.head, cachedHead(headers, 4));
  assert.equal(found.conditional, true);
  file.close();
});

test('a request that differs in anything keyed finds nothing, even under the same hash', () => {
  const file = open();
  const key = soapKey('<a>1</a>', { authorization: 'Bearer a' });
  file.keep(key, answer('<answer>eins</answer>'), 0);
  const same = { counted: key.counted, hash: key.hash };
  for (const other of [
    soapKey('<a>2</a>', { ...same, authorization: 'Bearer a' }),
    soapKey('<a>1</a>', { ...same, authorization: 'Bearer b' }),
    soapKey('<a>1</a>', { ...same, authorization: 'Bearer a', url: '/scoop/api/v7/scoop.asmx' }),
    soapKey('<a>1</a>', { ...same, authorization: 'Bearer a', contentType: 'application/soap+xml' }),
    soapKey('<a>1</a>', { ...same, authorization: 'Bearer a', soapAction: '"y"' }),
    { ...requestKey('GET', '/scoop/api/v6/scoop.asmx', { authorization: 'Bearer a' }, undefined)!, ...same },
  ]) {
    assert.equal(
      file.get(other, 1, 0),
      undefined,
      JSON.stringify({ ...other, body: other.body?.toString() }),
    );
  }
  assert.ok(file.get(soapKey('<a>1</a>', { authorization: 'Bearer a' }), 1, 0));
  file.close();
});

/** Two requests of equal lengths whose whole-request hashes collide (a birthday search). */
function collidingPair(counted: number): [RequestKey, RequestKey] {
  const seen = new Map<number, RequestKey>();
  for (let i = 100_000; i < 1_000_000; i++) {
    const key = soapKey(`<a>${i}</a>`, { counted });
    const hash = keyHash(requestHead(key), key.body, counted);
    const other = seen.get(hash);
    if (other) return [other, key];
    seen.set(hash, key);
  }
  throw new Error('no collision');
}

test('requests whose whole hash collides are told apart by the request read back', () => {
  const file = open();
  const [first, second] = collidingPair(12345);
  file.keep(first, answer('<answer>erste</answer>'), 0);
  const lent: number[] = [];
  const allocate = (length: number) => {
    lent.push(length);
    return Buffer.alloc(length);
  };
  assert.equal(file.get(second, 1, 0, allocate), undefined, 'the same hash and lengths, another request');
  assert.equal(lent.length, 1, 'read, and told apart');
  // Taken for the first's own: not kept, and never given the first's answer.
  file.keep(second, answer('<answer>zweite</answer>'), 0);
  assert.equal(file.size, 1);
  assert.equal(file.get(second, 1, 0), undefined);
  assert.equal(file.get(first, 1, 0)?.body.toString(), '<answer>erste</answer>');
  file.close();
});

test('a request is kept once, however many times its answer is offered', () => {
  const file = open();
  for (let i = 0; i < 20; i++) file.keep(soapKey('<a>1</a>'), answer('<answer>eins</answer>'), 0);
  assert.equal(file.size, 1);
  file.close();
});

test('requests that differ only in their Authorization do not crowd each other out', () => {
  const file = open();
  const url = '/scoop/api/v6/public.asmx/getBereich?bereichID=1';
  for (let i = 0; i < 20; i++)
    file.keep(requestKey('GET', url, { authorization: `Bearer junk-${i}` }, undefined)!, answer('<x/>'), 0);
  const real = requestKey('GET', url, {}, undefined)!;
  file.keep(real, answer('<answer>eins</answer>'), 0);
  assert.equal(file.get(real, 1, 0)?.body.toString(), '<answer>eins</answer>');
  file.close();
});

test('one request kept again as each of its answers expires: a bounded walk', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  for (let i = 0; i < 40; i++) file.keep(key, answer(`<answer>${i}</answer>`, { expiresAt: i + 1 }), i);
  assert.equal(file.size, 32, 'no more records under one hash than a lookup walks');
  assert.equal(file.get(key, 1, 31)?.body.toString(), '<answer>31</answer>');
  assert.equal(file.get(key, 1, 32), undefined);
  file.close();
});

test('one content version: a lookup of another empties the file, an answer of another is not kept', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>'), 0);
  file.keep(soapKey('<a>2</a>'), answer('<answer>zwei</answer>', { version: 2 }), 0);
  assert.equal(file.size, 1, 'an answer of another version is not kept');
  assert.ok(file.get(key, 1, 0));
  assert.equal(file.get(key, 2, 0), undefined);
  assert.equal(file.size, 0, 'emptied for version 2');
  // A store restored from a backup: version 1 again, with other content.
  file.keep(key, answer('<answer>neu</answer>', { version: 2 }), 0);
  assert.equal(file.get(key, 1, 0), undefined);
  assert.equal(file.get(key, 2, 0), undefined, 'version 2 again is not what was kept for it before');
  file.keep(key, answer('<answer>zwei</answer>', { version: 2 }), 0);
  assert.equal(file.get(key, 2, 0)?.body.toString(), '<answer>zwei</answer>');
  file.close();
});

test('an answer is not sent once it has expired', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>', { expiresAt: 1000 }), 0);
  assert.ok(file.get(key, 1, 999));
  assert.equal(file.get(key, 1, 1000), undefined);
  file.close();
});

test('a full file gives up its oldest records for the newest, within its bounds', () => {
  const small = open({ maxBytes: 1000 });
  for (let i = 0; i < 40; i++)
    small.keep(soapKey(`<a>${i}</a>`), answer(`<answer>${'x'.repeat(i % 7)}${i}</answer>`), 0);
  assert.ok(small.bytes <= 1000 && small.size > 1, `${small.size} records, ${small.bytes} bytes`);
  const kept = (i: number) => small.get(soapKey(`<a>${i}</a>`), 1, 0)?.body.toString();
  for (let i = 0; i < 40; i++) {
    const newest = i >= 40 - small.size;
    assert.equal(kept(i), newest ? `<answer>${'x'.repeat(i % 7)}${i}</answer>` : undefined, `record ${i}`);
  }
  assert.equal(small.get(soapKey('<a>new</a>'), 2, 0), undefined);
  assert.equal(small.size, 0, 'emptied for the next version');
  small.close();
  const few = open({ maxEntries: 3 });
  for (let i = 0; i < 20; i++) few.keep(soapKey(`<a>${i}</a>`), answer(`${i}`), 0);
  assert.equal(few.size, 3);
  assert.equal(few.get(soapKey('<a>16</a>'), 1, 0), undefined);
  for (const i of [17, 18, 19]) assert.equal(few.get(soapKey(`<a>${i}</a>`), 1, 0)?.body.toString(), `${i}`);
  few.close();
});

test('records of any size, kept round the file many times, are found whole or not at all', () => {
  // A small file, so that records wrap past its end again and again, each placed where the
  // oldest were; the index starts small and grows while records are given up (its slots move).
  const file = open({ maxBytes: 400 * 1024, maxEntries: 5000 });
  let seed = 1;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  const bodies = new Map<number, string>();
  for (let i = 0; i < 4000; i++) {
    const size = i < 600 ? random(8000) : random(40);
    const body = `<b${i}>${String.fromCharCode(97 + (i % 26)).repeat(size)}</b${i}>`;
    bodies.set(i, body);
    file.keep(soapKey(`<a>${i}</a>`), answer(body), 0);
    assert.ok(file.bytes <= 400 * 1024);
    if (i % 97 === 0 || i > 3990) {
      // The newest `size` records are the ones kept, each with its own bytes.
      for (let j = 0; j <= i; j++) {
        const found = file.get(soapKey(`<a>${j}</a>`), 1, 0)?.body.toString();
        assert.equal(found, j > i - file.size ? bodies.get(j) : undefined, `record ${j} after ${i}`);
      }
    }
  }
  assert.ok(file.size > 1024, `${file.size} records: the index grew past its first capacity`);
  assert.equal(file.get(soapKey('<a>3999</a>'), 2, 0), undefined);
  assert.equal(file.size, 0, 'emptied for the next version');
  for (let i = 0; i < 3; i++) file.keep(soapKey(`<a>${i}</a>`), answer(`<v2>${i}</v2>`, { version: 2 }), 0);
  for (let i = 0; i < 3; i++)
    assert.equal(file.get(soapKey(`<a>${i}</a>`), 2, 0)?.body.toString(), `<v2>${i}</v2>`);
  file.close();
});

test('a full file keeps an answer in place of one asked for at least as often only after that one held its place once', () => {
  const file = open({ maxEntries: 2 });
  const asked = new Map<number, number>();
  const estimate = (counted: number) => asked.get(counted) ?? 0;
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map((name) => soapKey(`<a>${name}</a>`)) as [
    RequestKey,
    RequestKey,
    RequestKey,
    RequestKey,
    RequestKey,
  ];
  for (const [key, count] of [
    [a, 15],
    [b, 1],
    [c, 3],
    [d, 2],
    [e, 3],
  ] as const)
    asked.set(key.counted, count);
  const keep = (key: RequestKey, now = 0) => file.keep(key, answer('<answer/>'), now, estimate);
  const kept = (key: RequestKey, now = 0) => file.get(key, 1, now) !== undefined;
  keep(a);
  keep(b);
  // a, asked for more often than c, holds its place once, however often it is found meanwhile.
  keep(c);
  assert.equal(kept(c), false, 'refused by a');
  for (let i = 0; i < 5; i++) assert.ok(kept(a));
  keep(c);
  assert.deepEqual([kept(a), kept(b), kept(c)], [false, true, true]);
  // b is asked for less than d: it goes at once.
  keep(d);
  assert.deepEqual([kept(b), kept(c), kept(d)], [false, true, true]);
  // A tie: c, asked for as often as e, holds its place once too.
  keep(e);
  assert.equal(kept(e), false);
  keep(e);
  assert.deepEqual([kept(c), kept(d), kept(e)], [false, true, true]);
  // An expired record goes at once.
  const expiring = open({ maxEntries: 1 });
  expiring.keep(a, answer('<answer>a</answer>', { expiresAt: 100 }), 0, estimate);
  expiring.keep(d, answer('<answer>d</answer>'), 100, estimate);
  assert.ok(expiring.get(d, 1, 100), 'a had expired');
  expiring.close();
  file.close();
});

test('a popular record found between every two keeps does not keep the file from taking answers', () => {
  const file = open({ maxEntries: 4 });
  const popular = soapKey('<a>popular</a>');
  const estimate = (counted: number) => (counted === popular.counted ? 15 : 2);
  file.keep(popular, answer('<answer>popular</answer>'), 0, estimate);
  let taken = 0;
  for (let i = 0; i < 100; i++) {
    file.get(popular, 1, 0);
    file.keep(soapKey(`<a>${i}</a>`), answer(`<answer>${i}</answer>`), 0, estimate);
    if (file.get(soapKey(`<a>${i}</a>`), 1, 0)) taken++;
  }
  // Each answer kept holds its place once against the next, asked for as often: every other one is taken.
  assert.ok(taken >= 45, `${taken} of 100 taken`);
  file.close();
});

test('an answer that needs several records given up is refused when any of them holds its place', () => {
  const file = open({ maxBytes: 2000 });
  const big = soapKey('<a>big</a>');
  const counts = new Map([
    [soapKey('<a>1</a>').counted, 15],
    [big.counted, 2],
  ]);
  const estimate = (counted: number) => counts.get(counted) ?? 1;
  for (let i = 0; i < 6; i++)
    file.keep(soapKey(`<a>${i}</a>`), answer(`<answer>${'x'.repeat(100)}</answer>`), 0, estimate);
  const before = file.size;
  // Needs the room of the oldest two or more: the first is asked for less, the second more often.
  file.keep(big, answer(`<answer>${'y'.repeat(500)}</answer>`), 0, estimate);
  assert.equal(file.get(big, 1, 0), undefined);
  assert.equal(file.size, before, 'nothing given up');
  file.keep(big, answer(`<answer>${'y'.repeat(500)}</answer>`), 0, estimate);
  assert.ok(file.get(big, 1, 0), 'it held its place once');
  file.close();
});

test('a record keeps its one refusal through the growth of the index', () => {
  const file = open({ maxEntries: 1025 });
  const estimate = () => 2;
  for (let i = 0; i < 1025; i++) file.keep(soapKey(`<a>${i}</a>`), answer(`${i}`), 0, estimate);
  assert.equal(file.size, 1025, 'grown past 1024 slots');
  file.keep(soapKey('<a>next</a>'), answer('next'), 0, estimate);
  assert.equal(file.get(soapKey('<a>next</a>'), 1, 0), undefined, 'the oldest held its place');
  file.keep(soapKey('<a>next</a>'), answer('next'), 0, estimate);
  assert.ok(file.get(soapKey('<a>next</a>'), 1, 0));
  assert.equal(file.get(soapKey('<a>0</a>'), 1, 0), undefined);
  file.close();
});

test('a record longer than the file, once its headers are counted, is not kept and gives up nothing', () => {
  const file = open({ maxBytes: 400 });
  file.keep(soapKey('<a>1</a>'), answer('<answer>eins</answer>'), 0);
  const head = requestHead(soapKey('<a>2</a>')).length + Buffer.from('<a>2</a>').length;
  // Within the bound by its bodies alone; the answer's head (its headers as JSON) passes it.
  file.keep(soapKey('<a>2</a>'), answer('x'.repeat(400 - head)), 0);
  assert.equal(file.size, 1);
  assert.ok(file.get(soapKey('<a>1</a>'), 1, 0));
  assert.ok(file.bytes <= 400);
  file.close();
});

test('each answer keeps its own token and headers, however many there are', () => {
  const file = open({ maxBytes: 16 * 1024 * 1024 });
  const many = 5000;
  for (let i = 0; i < many; i++) {
    const headers = {
      'content-type': 'text/plain',
      'content-disposition': `attachment; filename="f${i}.txt"`,
    };
    file.keep(soapKey(`<a>${i}</a>`), answer(`${i}`, { headers, call: { ...call, token: `token-${i}` } }), 0);
  }
  assert.equal(file.size, many);
  for (const i of [0, 4095, 4096, many - 1]) {
    const found = file.get(soapKey(`<a>${i}</a>`), 1, 0)!;
    assert.equal(found.call.token, `token-${i}`);
    assert.equal(found.headers['content-disposition'], `attachment; filename="f${i}.txt"`);
    assert.equal(found.body.toString(), `${i}`);
  }
  file.close();
});

test('only a record of the very request is read: one buffer a hit, none for another request under its hash', () => {
  const file = open();
  file.keep(soapKey('<a>1</a>'), answer('<answer>eins</answer>'), 0);
  const lengths: number[] = [];
  const allocate = (length: number) => {
    lengths.push(length);
    return Buffer.alloc(length);
  };
  const counted = soapKey('<a>1</a>').counted;
  assert.equal(file.get(soapKey('<b>1</b>', { counted }), 1, 0, allocate), undefined);
  assert.deepEqual(lengths, []);
  assert.ok(file.get(soapKey('<a>1</a>'), 1, 0, allocate));
  assert.equal(lengths.length, 1);
  file.close();
});

test('an expired record leaves room for the answer that follows it', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>alt</answer>', { expiresAt: 10 }), 0);
  file.keep(key, answer('<answer>alt</answer>', { expiresAt: 10 }), 5);
  assert.equal(file.size, 1, 'still live at 5');
  file.keep(key, answer('<answer>neu</answer>'), 20);
  assert.equal(file.get(key, 1, 20)?.body.toString(), '<answer>neu</answer>');
  file.close();
});

test('the file is gone from its folder at once, and one that fails closes the tier', () => {
  const errors: unknown[] = [];
  const file = open({ onError: (error) => errors.push(error) });
  assert.deepEqual(readdirSync(dir), []);
  const fd = readdirSync('/proc/self/fd').find((name) => {
    const link = safeLink(name);
    return link.startsWith(dir) && link.endsWith('(deleted)');
  });
  assert.ok(fd, 'the file is open, and unlinked');
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>'), 0);
  closeSync(Number(fd));
  assert.equal(file.get(key, 1, 0), undefined);
  assert.equal(errors.length, 1);
  file.keep(key, answer('<answer>eins</answer>'), 0);
  assert.equal(file.size, 0);
  file.close();
});

test('a write that fails closes the tier, and the request goes on', () => {
  const errors: unknown[] = [];
  const file = open({ onError: (error) => errors.push(error) });
  const fd = readdirSync('/proc/self/fd').find((name) => {
    const link = safeLink(name);
    return link.startsWith(dir) && link.endsWith('(deleted)');
  });
  closeSync(Number(fd));
  file.keep(soapKey('<a>1</a>'), answer('<answer>eins</answer>'), 0);
  assert.equal(errors.length, 1);
  assert.equal(file.size, 0);
  assert.equal(file.get(soapKey('<a>1</a>'), 1, 0), undefined);
  file.close();
});

function safeLink(fd: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}

/** A clock each read of which moves it on `step` ms (a keep reads it twice), and can be moved on by hand. */
function steppingClock(step: number) {
  let t = 0;
  return {
    read: () => {
      const at = t;
      t += step;
      return at;
    },
    get now() {
      return t;
    },
    wait(ms: number) {
      t += ms;
    },
  };
}

test('keeping takes at most its share of the time: spent, it keeps nothing until time gives the budget back', () => {
  // A keep (two reads) takes 4 ms, as does the wait before the next.
  const time = steppingClock(4);
  const file = open({ keepShare: 0.1, clock: time.read });
  const offered = 200;
  for (let i = 0; i < offered; i++) file.keep(soapKey(`<k>${i}</k>`), answer(`<answer>${i}</answer>`), 0);
  const kept = file.size;
  // The whole burst first: a keep is refused only once the credit is spent.
  for (let i = 0; i < KEEP_BURST_MS / 4; i++)
    assert.ok(file.get(soapKey(`<k>${i}</k>`), 1, 0), `<k>${i}</k>`);
  // Then about one keep in ten of the time: never more than the budget allows (KEEP_BURST_MS
  // at first, a tenth of the time since, one keep's overrun), far fewer than offered.
  const t = time.now;
  assert.ok(kept * 4 <= KEEP_BURST_MS + 0.1 * t + 4, `kept ${kept} in ${t} ms`);
  // A refused keep costs nothing: the budget given back goes to the keeps that follow.
  assert.ok(kept * 4 >= 0.1 * t - 8, `kept ${kept} in ${t} ms`);
  assert.ok(kept < offered / 4, `kept ${kept} of ${offered}`);
  const before = file.size;
  time.wait(10_000);
  file.keep(soapKey('<k>later</k>'), answer('<answer>later</answer>'), 0);
  assert.equal(file.size, before + 1, 'a budget given back by time keeps again');
});

test('a share of none is refused; one of 1 or more bounds nothing', () => {
  for (const keepShare of [0, -1, Number.NaN]) assert.throws(() => open({ keepShare }), RangeError);
  const clock = () => {
    throw new Error('a file without a bound reads no clock');
  };
  const file = open({ keepShare: Number.POSITIVE_INFINITY, clock });
  for (let i = 0; i < 100; i++) file.keep(soapKey(`<u>${i}</u>`), answer(`<answer>${i}</answer>`), 0);
  assert.equal(file.size, 100);
});

test('a clock read earlier than the last takes no time away', () => {
  let t = 1000;
  const file = open({ keepShare: 0.5, clock: () => t });
  file.keep(soapKey('<c>0</c>'), answer('<answer>0</answer>'), 0);
  t = 0;
  file.keep(soapKey('<c>1</c>'), answer('<answer>1</answer>'), 0);
  assert.equal(file.size, 2);
});

test('a budget given back is never more than one burst, however long keeping waited', () => {
  /** Records kept of 100 offered one after another, after a first keep and a wait of `wait` ms. */
  const keptAfter = (wait: number): number => {
    // A keep takes 10 ms, a fifth of it given back.
    const time = steppingClock(10);
    const file = open({ keepShare: 0.2, clock: time.read });
    file.keep(soapKey('<b>first</b>'), answer('<answer>first</answer>'), 0);
    time.wait(wait);
    for (let i = 0; i < 100; i++) file.keep(soapKey(`<b>${i}</b>`), answer(`<answer>${i}</answer>`), 0);
    return file.size - 1;
  };
  // A wait of a second gives the whole burst back (a fifth of it is more than KEEP_BURST_MS).
  const afterSecond = keptAfter(1000);
  assert.ok(afterSecond > 0 && afterSecond < 50, `kept ${afterSecond}`);
  // Saved up, a fifth of a long wait would keep every one of them.
  assert.equal(keptAfter(1_000_000), afterSecond);
});
