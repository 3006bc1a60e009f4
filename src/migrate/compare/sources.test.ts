/** The request sources: a HAR file, the requests file format, the ids a bundle adds. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unknownIds } from './from-bundle.ts';
import { HarError, parseHar } from './har.ts';
import { parseRequestsFile, RequestsFileError } from './requests-file.ts';

const ALL = ['soap11', 'soap12', 'httpget', 'httppost'] as const;

test('unknown ids are outside the bundle and within xs:int', () => {
  assert.deepEqual(unknownIds([1, 2, 5]), [6, 0]);
  assert.deepEqual(unknownIds([0, 2147483647]), [-1]);
  assert.deepEqual(unknownIds([]), [1, 0]);
});

test('a requests file: operations, values percent-decoded, lists repeated, comments skipped', () => {
  const requests = parseRequestsFile(
    '\uFEFF# c\r\ngetBild bildID=200 width=0 height=0 resizeModes=crop resizeModes=fit\r\n\r\ngetAbonnierteNewsletter email=a%20b%40c.org\ngetBild bildID=1 resizeModes=\n',
    ['httpget'],
    'urn:ns',
  );
  assert.deepEqual(
    requests.map((r) => r.prepare(undefined).path),
    [
      '/scoop/api/v6/public.asmx/getBild?bildID=200&width=0&height=0&resizeModes=crop&resizeModes=fit',
      '/scoop/api/v6/scoop.asmx/getAbonnierteNewsletter?email=a+b%40c.org',
      '/scoop/api/v6/public.asmx/getBild?bildID=1',
    ],
  );
  assert.equal(parseRequestsFile('getNewsletter\n', ALL, 'urn:ns').length, 4);
});

test('a requests file with a mistake is refused naming the line', () => {
  const cases: Array<[string, RegExp]> = [
    ['getBereich bereichID=1\ngetbereich bereichID=1', /^line 2: "getbereich" is not an operation/],
    ['getBereich 1', /^line 1: "1" is not name=value/],
    ['getBereich bereichID=1 bereichID=2', /^line 1: bereichID is given twice/],
    ['getBereich bereichID=%zz', /^line 1: the value of bereichID is not percent-encoded properly/],
    ['getNewsletter x=1', /^line 1: getNewsletter has no parameter "x" \(it has none\)/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseRequestsFile(text, ALL, 'urn:ns'),
      (e: unknown) => e instanceof RequestsFileError && message.test(e.message),
    );
  }
});

test('a HAR file that is not one is refused with the reason', () => {
  assert.throws(
    () => parseHar('{', ALL),
    (e: unknown) => e instanceof HarError && /^is not JSON/.test(e.message),
  );
  assert.throws(() => parseHar('{"log":{}}', ALL), /no log.entries list/);
  assert.throws(
    () => parseHar('{"log":{"entries":[{"request":{"method":"GET","url":"nope","headers":[]}}]}}', ALL),
    /entries\[0\]\.request\.url is not a URL/,
  );
});

test('a HAR form recorded as params, a base64 body, a prefix before the endpoint', () => {
  const har = {
    log: {
      entries: [
        {
          request: {
            method: 'POST',
            url: 'https://cms.example.org/a/b/scoop/api/v6/public.asmx/getBereich',
            headers: [],
            postData: {
              mimeType: 'application/x-www-form-urlencoded',
              params: [{ name: 'bereichID', value: '7' }],
            },
          },
        },
        {
          request: {
            method: 'POST',
            url: 'https://cms.example.org/scoop/api/v6/public.asmx',
            headers: [{ name: 'Content-Type', value: 'text/xml' }],
            postData: {
              mimeType: 'text/xml',
              text: Buffer.from('<x>\u00e4</x>').toString('base64'),
              encoding: 'base64',
            },
          },
        },
      ],
    },
  };
  const { requests, skipped } = parseHar(JSON.stringify(har), ALL);
  assert.equal(skipped, 0);
  const form = requests[0]!.prepare(undefined);
  assert.deepEqual(
    [form.path, form.headers['content-type'], form.body.toString()],
    ['/scoop/api/v6/public.asmx/getBereich', 'application/x-www-form-urlencoded', 'bereichID=7'],
  );
  assert.equal(requests[1]!.prepare(undefined).body.toString(), '<x>\u00e4</x>');
});
