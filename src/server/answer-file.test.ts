import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { OPERATIONS } from '../contract/operations.ts';
import type { Call } from '../protocol/binding.ts';
import { AnswerFile } from './answer-file.ts';
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

function open(options: Partial<Parameters<typeof AnswerFile.open>[0]> = {}): AnswerFile {
  return AnswerFile.open({ dir, maxBytes: 1024 * 1024, ...options });
}

test('an answer kept is found for the very request, as the memory tier would send it', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>'));
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

test('an entity tag is kept with its answer, last among the headers as send writes it', () => {
  const file = open();
  const key = requestKey('GET', '/scoop/api/v6/public.asmx/getBereich?bereichID=1', {}, undefined)!;
  const headers = { 'content-type': 'text/xml; charset=utf-8', etag: '"abc"' };
  file.keep(key, answer('<x/>', { headers, conditional: true }));
  file.keep(
    requestKey('GET', '/scoop/api/v6/public.asmx/getBereich?bereichID=2', {}, undefined)!,
    answer('<y/>', { headers: { ...headers, etag: '"def"' }, conditional: true }),
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
  file.keep(key, answer('<answer>eins</answer>'));
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

test('requests sharing a hash are all found, up to a bounded chain', () => {
  const file = open();
  const counted = 12345;
  for (let i = 0; i < 10; i++)
    file.keep(soapKey(`<a>${i}</a>`, { counted }), answer(`<answer>${i}</answer>`));
  assert.equal(file.size, 8, 'no more records under one hash than a lookup reads');
  for (let i = 0; i < 8; i++)
    assert.equal(
      file.get(soapKey(`<a>${i}</a>`, { counted }), 1, 0)?.body.toString(),
      `<answer>${i}</answer>`,
    );
  assert.equal(file.get(soapKey('<a>9</a>', { counted }), 1, 0), undefined);
  file.close();
});

test('one content version: another finds nothing, a newer one empties the file, an older is not kept', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>', { version: 4 }));
  assert.equal(file.get(key, 3, 0), undefined);
  assert.equal(file.get(key, 5, 0), undefined);
  file.keep(soapKey('<a>2</a>'), answer('<answer>zwei</answer>', { version: 3 }));
  assert.equal(file.size, 1);
  file.keep(soapKey('<a>2</a>'), answer('<answer>zwei</answer>', { version: 5 }));
  assert.equal(file.size, 1);
  assert.equal(file.get(key, 4, 0), undefined);
  assert.equal(file.get(soapKey('<a>2</a>'), 5, 0)?.body.toString(), '<answer>zwei</answer>');
  file.close();
});

test('an answer is not sent once it has expired', () => {
  const file = open();
  const key = soapKey('<a>1</a>');
  file.keep(key, answer('<answer>eins</answer>', { expiresAt: 1000 }));
  assert.ok(file.get(key, 1, 999));
  assert.equal(file.get(key, 1, 1000), undefined);
  file.close();
});

test('the file and the index keep within their bounds, until the next version', () => {
  const small = open({ maxBytes: 300 });
  for (let i = 0; i < 20; i++) small.keep(soapKey(`<a>${i}</a>`), answer('x'.repeat(50)));
  assert.ok(small.bytes <= 300 && small.size > 0, `${small.bytes} bytes`);
  assert.ok(!small.hasRoomFor(1, 200));
  small.keep(soapKey('<a>new</a>'), answer('y'.repeat(50), { version: 2 }));
  assert.equal(small.size, 1);
  small.close();
  const few = open({ maxEntries: 3 });
  for (let i = 0; i < 20; i++) few.keep(soapKey(`<a>${i}</a>`), answer('x'));
  assert.equal(few.size, 3);
  assert.equal(few.get(soapKey('<a>3</a>'), 1, 0), undefined);
  few.close();
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
  file.keep(key, answer('<answer>eins</answer>'));
  closeSync(Number(fd));
  assert.equal(file.get(key, 1, 0), undefined);
  assert.equal(errors.length, 1);
  file.keep(key, answer('<answer>eins</answer>'));
  assert.equal(file.size, 0);
  assert.ok(!file.hasRoomFor(1, 1));
  file.close();
});

function safeLink(fd: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return '';
  }
}
