/**
 * The JSON API's refusals, on every database: each one an RFC 9457 problem with the
 * catalogue's code and the status HTTP GET uses, plus what the shared pipeline gives every
 * binding — ETag and 304, Cache-Control by token, ranges, the rate limit, the request
 * log and the metrics under `binding="json"`.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ERRORS, type ErrorCode } from '../src/contract/errors.ts';
import { createMetrics } from '../src/observe/metrics.ts';
import { DATABASES } from './support/databases.ts';
import { type Fixture, REFERENCE_TOKEN, REVOKED_TOKEN, startFixture } from './support/fixture-server.ts';

const API = '/api/v1';
const TOKEN = { authorization: `Bearer ${REFERENCE_TOKEN}` };
const JSON_BODY = { 'content-type': 'application/json' };

interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
}

interface Refusal {
  readonly what: string;
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Uint8Array;
  readonly code: ErrorCode;
}

const REFUSALS: readonly Refusal[] = [
  { what: 'a path no route has', path: `${API}/nichts`, code: 'NOT_FOUND' },
  { what: 'the API root (no reference page yet)', path: `${API}/bereiche`, code: 'NOT_FOUND' },
  { what: 'a trailing slash', path: `${API}/bereiche/1/`, code: 'NOT_FOUND' },
  { what: 'an unknown id', path: `${API}/bereiche/999`, code: 'UNKNOWN_ID' },
  { what: 'an id that is no xs:int', path: `${API}/bereiche/eins`, code: 'INVALID_PARAMETER' },
  { what: 'an id beyond xs:int', path: `${API}/bereiche/2147483648`, code: 'INVALID_PARAMETER' },
  { what: 'bad percent-encoding', path: `${API}/bereiche/%E0%A4%A`, code: 'INVALID_ENCODING' },
  { what: 'a width beyond the limit', path: `${API}/bilder/200?width=5000`, code: 'INVALID_PARAMETER' },
  { what: 'a width given twice', path: `${API}/bilder/200?width=1&width=2`, code: 'DUPLICATE_PARAMETER' },
  {
    what: 'an unknown resize mode',
    path: `${API}/bilder/200?width=1&resizeModes=zoom`,
    code: 'INVALID_PARAMETER',
  },
  { what: 'no token', path: `${API}/newsletter`, code: 'AUTH_FAILED' },
  {
    what: 'a revoked token',
    path: `${API}/newsletter`,
    headers: { authorization: `Bearer ${REVOKED_TOKEN}` },
    code: 'AUTH_FAILED',
  },
  {
    what: 'a token in the URL',
    path: `${API}/newsletter?token=${REFERENCE_TOKEN}`,
    headers: TOKEN,
    code: 'TOKEN_IN_URL',
  },
  { what: 'an unpublished article', path: `${API}/artikel/102`, headers: TOKEN, code: 'UNKNOWN_ID' },
  { what: 'DELETE of a record', method: 'DELETE', path: `${API}/bereiche/1`, code: 'METHOD_NOT_ALLOWED' },
  { what: 'GET of the search', path: `${API}/abonnements/suche`, headers: TOKEN, code: 'METHOD_NOT_ALLOWED' },
  {
    what: 'POST of a record',
    method: 'POST',
    path: `${API}/bereiche/1`,
    headers: JSON_BODY,
    body: '{}',
    code: 'METHOD_NOT_ALLOWED',
  },
  ...search([
    [
      'a form body',
      { 'content-type': 'application/x-www-form-urlencoded' },
      'email=a@b',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['no content type', {}, '{"email":"anna@example.org"}', 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'JSON in latin1',
      { 'content-type': 'application/json; charset=iso-8859-1' },
      '{"email":"a"}',
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['an empty body', JSON_BODY, '', 'EMPTY_BODY'],
    ['a body that is not JSON', JSON_BODY, '{"email":', 'MALFORMED_JSON'],
    ['a JSON array', JSON_BODY, '["anna@example.org"]', 'MALFORMED_JSON'],
    ['JSON null', JSON_BODY, 'null', 'MALFORMED_JSON'],
    ['invalid UTF-8', JSON_BODY, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), 'INVALID_ENCODING'],
    [
      'the email twice',
      JSON_BODY,
      '{"email":"x@example.org","\\u0065mail":"anna@example.org"}',
      'DUPLICATE_PARAMETER',
    ],
    ['an unknown field', JSON_BODY, '{"email":"anna@example.org","token":"x"}', 'UNKNOWN_FIELD'],
    ['a prototype key', JSON_BODY, '{"__proto__":{"email":"anna@example.org"}}', 'UNKNOWN_FIELD'],
    ['an email that is a number', JSON_BODY, '{"email":1}', 'INVALID_PARAMETER'],
    ['no email', JSON_BODY, '{}', 'MISSING_PARAMETER'],
    ['an empty email', JSON_BODY, '{"email":" "}', 'MISSING_PARAMETER'],
    [
      'a body over SCOOP_MAX_BODY_BYTES',
      JSON_BODY,
      `{"email":"${'a'.repeat(5 * 1024 * 1024)}"}`,
      'BODY_TOO_LARGE',
    ],
  ]),
  {
    what: 'the email in the URL',
    method: 'POST',
    path: `${API}/abonnements/suche?email=anna@example.org`,
    headers: { ...TOKEN, ...JSON_BODY },
    body: '{"email":"anna@example.org"}',
    code: 'PARAMETER_IN_URL',
  },
  {
    what: 'a range past the end',
    path: `${API}/anhaenge/500/content`,
    headers: { range: 'bytes=56-' },
    code: 'RANGE_NOT_SATISFIABLE',
  },
];

function search(
  cases: ReadonlyArray<readonly [string, Record<string, string>, string | Uint8Array, ErrorCode]>,
): Refusal[] {
  return cases.map(([what, headers, body, code]) => ({
    what: `search: ${what}`,
    method: 'POST',
    path: `${API}/abonnements/suche`,
    headers: { ...TOKEN, ...headers },
    body,
    code,
  }));
}

/** Collects the request log's lines. */
function logLines(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

for (const db of DATABASES) {
  describe(`JSON API refusals and the shared pipeline (${db.name})`, { skip: db.skip ?? false }, () => {
    let fixture: Fixture;
    const metrics = createMetrics();
    const log = logLines();
    before(async () => {
      fixture = await startFixture({ metrics, logger: log.logger }, undefined, db);
    });
    after(() => fixture?.stop());
    const get = (path: string, init: RequestInit = {}) => fetch(`${fixture.server.url}${path}`, init);

    for (const refusal of REFUSALS) {
      test(`${refusal.what}: ${refusal.code}`, async () => {
        const answer = await get(refusal.path, {
          method: refusal.method ?? 'GET',
          headers: refusal.headers ?? {},
          ...(refusal.body === undefined ? {} : { body: refusal.body }),
        });
        const status = ERRORS[refusal.code].status;
        assert.equal(answer.status, status);
        assert.equal(answer.headers.get('content-type'), 'application/problem+json');
        assert.equal(answer.headers.get('cache-control'), 'private');
        assert.deepEqual(Object.keys((await answer.clone().json()) as Problem), [
          'type',
          'title',
          'status',
          'detail',
          'code',
        ]);
        const problem = (await answer.json()) as Problem;
        assert.equal(problem.type, `urn:scoop:error:${refusal.code}`);
        assert.equal(problem.title, ERRORS[refusal.code].summary);
        assert.equal(problem.status, status);
        assert.equal(problem.code, refusal.code);
        assert.equal(typeof problem.detail, 'string');
        if (refusal.code === 'AUTH_FAILED') assert.match(answer.headers.get('www-authenticate')!, /^Bearer /);
        if (refusal.code === 'METHOD_NOT_ALLOWED') {
          const allow = refusal.path.endsWith('/suche') ? 'POST' : 'GET, HEAD';
          assert.equal(answer.headers.get('allow'), allow);
        }
        if (refusal.code === 'RANGE_NOT_SATISFIABLE')
          assert.equal(answer.headers.get('content-range'), 'bytes */56');
      });
    }

    test('every GET route answers with an ETag and 304 to If-None-Match; Cache-Control follows the token', async () => {
      const routes: ReadonlyArray<readonly [string, boolean]> = [
        [`${API}/artikel/100`, true],
        [`${API}/bereiche/1`, false],
        [`${API}/city-app-bereiche/10`, true],
        [`${API}/anhaenge/500`, false],
        [`${API}/bilder/200`, false],
        [`${API}/bilder/200?width=2&height=1`, false],
        [`${API}/newsletter`, true],
        [`${API}/anhaenge/500/content`, false],
        [`${API}/bilder/200/content?width=2`, false],
      ];
      for (const [path, token] of routes) {
        const headers = token ? TOKEN : {};
        const first = await get(path, { headers });
        assert.equal(first.status, 200, path);
        assert.equal(
          first.headers.get('cache-control'),
          token ? 'private, max-age=0' : 'public, max-age=60',
          path,
        );
        const etag = first.headers.get('etag');
        assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/, path);
        const again = await get(path, { headers: { ...headers, 'if-none-match': etag! } });
        assert.equal(again.status, 304, path);
        assert.equal(again.headers.get('etag'), etag, path);
        // HEAD of an attachment's record is checkAnhangVorhanden (below); elsewhere it is GET without the body.
        if (path === `${API}/anhaenge/500`) continue;
        const head = await get(path, { method: 'HEAD', headers });
        assert.equal(head.status, 200, path);
        assert.equal(head.headers.get('content-length'), first.headers.get('content-length'), path);
        assert.equal(head.headers.get('etag'), etag, path);
      }
    });

    test('the search (a POST) has no ETag and ignores If-None-Match', async () => {
      const search = () =>
        get(`${API}/abonnements/suche`, {
          method: 'POST',
          headers: { ...TOKEN, ...JSON_BODY, 'if-none-match': '*' },
          body: '{"email":"anna@example.org"}',
        });
      for (const answer of [await search(), await search()]) {
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('etag'), null);
        assert.deepEqual(await answer.json(), [1, 2]);
      }
    });

    test('a byte range of a content route is 206 with Content-Range, honoured only under a matching If-Range', async () => {
      const whole = Buffer.from(await (await get(`${API}/anhaenge/500/content`)).arrayBuffer());
      const part = await get(`${API}/anhaenge/500/content`, { headers: { range: 'bytes=4-9' } });
      assert.equal(part.status, 206);
      assert.equal(part.headers.get('content-range'), `bytes 4-9/${whole.length}`);
      assert.deepEqual(Buffer.from(await part.arrayBuffer()), whole.subarray(4, 10));
      const suffix = await get(`${API}/anhaenge/500/content`, { headers: { range: 'bytes=-5' } });
      assert.deepEqual(Buffer.from(await suffix.arrayBuffer()), whole.subarray(-5));
      const stale = await get(`${API}/anhaenge/500/content`, {
        headers: { range: 'bytes=4-9', 'if-range': '"other"' },
      });
      assert.equal(stale.status, 200);
      assert.equal(Buffer.from(await stale.arrayBuffer()).length, whole.length);
      const several = await get(`${API}/anhaenge/500/content`, { headers: { range: 'bytes=0-1,4-5' } });
      assert.equal(several.status, 200);
      await several.arrayBuffer();
    });

    test('requests are logged and counted under binding="json"', async () => {
      await get(`${API}/bereiche/2`);
      await get(`${API}/bereiche/998`);
      const text = await metrics.registry.metrics();
      assert.match(text, /scoop_requests_total\{operation="getBereich",binding="json",outcome="ok"\} \d+/);
      assert.match(
        text,
        /scoop_requests_total\{operation="getBereich",binding="json",outcome="UNKNOWN_ID"\} \d+/,
      );
      const line = log.lines.find(
        (l) => l.msg === 'request' && l.op === 'getBereich' && l.binding === 'json',
      );
      assert.ok(line, 'a request line with binding json');
    });
  });
}

describe('the rate limit covers the JSON API', () => {
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture({ rateLimit: { perSecond: 0.001, burst: 1 } });
  });
  after(() => fixture?.stop());

  test('past the burst a JSON request is a 429 problem with Retry-After', async () => {
    assert.equal((await fetch(`${fixture.server.url}${API}/bereiche/1`)).status, 200);
    const refused = await fetch(`${fixture.server.url}${API}/bereiche/1`);
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('content-type'), 'application/problem+json');
    assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
    assert.equal(((await refused.json()) as Problem).code, 'RATE_LIMITED');
  });
});
