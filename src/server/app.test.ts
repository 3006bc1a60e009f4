/**
 * The kernel without a socket: requests and responses are fakes (test/support/fake-http.ts),
 * so what the pipeline does — its stages, its one cache lookup, its synchronous cached
 * answers, the binding that renders a refusal — is seen directly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fake, request } from '../../test/support/fake-http.ts';
import { fixtureAppOptions, openFixtureStore, REFERENCE_TOKEN } from '../../test/support/fixture-server.ts';
import { createMetrics } from '../observe/metrics.ts';
import type { ContentStore } from '../store/content-store.ts';
import { type AppOptions, createApp } from './app.ts';

const PUBLIC = '/scoop/api/v6/public.asmx';
const V7 = '/scoop/api/v7/scoop.asmx';
const NS = 'http://scoop.example.org/api';
const soap12Bereich = (id: number) =>
  `<soap12:Envelope xmlns:soap12="http://www.w3.org/2003/05/soap-envelope"><soap12:Body><getBereich xmlns="${NS}"><bereichID>${id}</bereichID></getBereich></soap12:Body></soap12:Envelope>`;

describe('the kernel, driven by fakes', () => {
  let store: ContentStore;
  let close: () => Promise<void>;
  const app = (overrides: Partial<AppOptions> = {}) => createApp(fixtureAppOptions(store, overrides));

  before(async () => {
    ({ store, close } = await openFixtureStore());
  });
  after(() => close());

  test('the lifecycle is a named list of stages; settings leave stages out rather than skip them', () => {
    assert.deepEqual(app().stages, [
      'route',
      'check head',
      'unclaimed',
      'read body',
      'cached answer',
      'decode',
      'authenticate',
      'invoke',
      'send',
    ]);
    const limited = app({ rateLimit: { perSecond: 10, burst: 10 }, responseCacheBytes: 0 }).stages;
    assert.equal(limited[1], 'admit');
    assert.ok(!limited.includes('cached answer'));
  });

  test('an HTTP GET call is answered by the httpget binding', async () => {
    const answer = await request(app(), { url: `${PUBLIC}/getBereich?bereichID=1` });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'text/xml; charset=utf-8');
    assert.match(answer.headers['cache-control']!, /^public, max-age=/);
    assert.ok(answer.headers.etag);
    assert.match(answer.text, /<bereichID>1<\/bereichID>/);
  });

  test('a cached GET is answered before handle returns, with no promise in between', async () => {
    const handle = app();
    // Kept once asked for again (ResponseCache.admits).
    for (let i = 0; i < 2; i++) await request(handle, { url: `${PUBLIC}/getBereich?bereichID=1` });
    const second = fake({ url: `${PUBLIC}/getBereich?bereichID=1` });
    handle(second.req, second.res);
    assert.equal(second.closed(), true, 'answered synchronously');
    assert.match((await second.answer).text, /<bereichID>1<\/bereichID>/);
  });

  test('each request looks the answer cache up once: two misses (kept at the second), then a hit', async () => {
    const metrics = createMetrics();
    const handle = app({ metrics });
    const url = `${PUBLIC}/getBereich?bereichID=2`;
    for (let i = 0; i < 3; i++) await request(handle, { url });
    assert.equal(metrics.cacheLookups.series('answers', 'miss').value, 2);
    assert.equal(metrics.cacheLookups.series('answers', 'hit').value, 1);
  });

  test('a cached answer still checks its token: a token answer is found again only with a token verified', async () => {
    const handle = app();
    const auth = [['Authorization', `Bearer ${REFERENCE_TOKEN}`]] as const;
    const first = await request(handle, { url: `${V7}/getNewsletter`, headers: auth });
    assert.equal(first.status, 200);
    const again = await request(handle, { url: `${V7}/getNewsletter`, headers: auth });
    assert.deepEqual(again.body, first.body);
    const without = await request(handle, { url: `${V7}/getNewsletter` });
    assert.equal(without.status, 401);
  });

  test('a SOAP 1.2 POST is read, decoded and answered by the soap12 binding', async () => {
    const answer = await request(app(), {
      method: 'POST',
      url: PUBLIC,
      headers: [['Content-Type', 'application/soap+xml; charset=utf-8']],
      body: soap12Bereich(1),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/soap+xml; charset=utf-8');
    assert.match(answer.text, /<getBereichResult><bereich><name>/);
  });

  test('refusals are rendered by the binding that took the request', async () => {
    const handle = app();
    const soap12 = await request(handle, {
      method: 'POST',
      url: PUBLIC,
      headers: [['Content-Type', 'application/soap+xml']],
      body: soap12Bereich(999_999),
    });
    assert.equal(soap12.status, 500);
    assert.match(soap12.text, /<soap:Value>soap:Sender<\/soap:Value>/);
    assert.match(soap12.text, /UNKNOWN_ID/);
    const http = await request(handle, { url: `${PUBLIC}/getBereich?bereichID=999999` });
    assert.equal(http.status, 404);
    assert.match(http.text, /<code>UNKNOWN_ID<\/code>/);
    const nothing = await request(handle, { url: '/nothing-here' });
    assert.equal(nothing.status, 404);
    assert.match(nothing.text, /<code>NOT_FOUND<\/code>/);
    const put = await request(handle, { method: 'PUT', url: `${PUBLIC}/getBereich` });
    assert.equal(put.status, 405);
    assert.equal(put.headers.allow, 'GET, HEAD, POST');
  });

  test('a Content-Type sent twice is ambiguous: refused as a SOAP 1.1 fault, never claimed by SOAP 1.2', async () => {
    const answer = await request(app(), {
      method: 'POST',
      url: PUBLIC,
      headers: [
        ['Content-Type', 'application/soap+xml'],
        ['Content-Type', 'text/xml'],
      ],
      body: soap12Bereich(1),
    });
    assert.equal(answer.status, 500);
    assert.equal(answer.headers['content-type'], 'text/xml; charset=utf-8');
    assert.match(answer.text, /DUPLICATE_HEADER/);
  });

  test('a refusal of what no binding takes is HTTP, even at a SOAP endpoint', async () => {
    const answer = await request(app(), {
      url: `${PUBLIC}?wsdl`,
      headers: [
        ['Authorization', 'Bearer a'],
        ['Authorization', 'Bearer b'],
      ],
    });
    assert.equal(answer.status, 400);
    assert.match(answer.text, /<code>DUPLICATE_HEADER<\/code>/);
  });

  test('a token in the query string is TOKEN_IN_URL on SOAP and on a GET of an endpoint, as on HTTP GET/POST', async () => {
    const handle = app();
    const soap = await request(handle, {
      method: 'POST',
      url: `${PUBLIC}?token=${REFERENCE_TOKEN}`,
      headers: [['Content-Type', 'application/soap+xml']],
      body: soap12Bereich(1),
    });
    assert.equal(soap.status, 500);
    assert.match(soap.text, /<soap:Value>soap:Sender<\/soap:Value>/);
    assert.match(soap.text, /TOKEN_IN_URL/);
    for (const query of [`wsdl&token=${REFERENCE_TOKEN}`, 'Token&disco', 'op=getBereich&token=x', 'token']) {
      const get = await request(handle, { url: `${PUBLIC}?${query}` });
      assert.equal(get.status, 400, query);
      assert.match(get.text, /<code>TOKEN_IN_URL<\/code>/, query);
    }
  });

  test('a browser asking for an unknown operation or path gets an HTML page with the status and the catalogue code', async () => {
    const handle = app();
    const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    for (const [url, code] of [
      [`${PUBLIC}?op=unknown`, 'UNKNOWN_OPERATION'],
      ['/nothing-here', 'NOT_FOUND'],
    ] as const) {
      const page = await request(handle, { url, headers: [['Accept', BROWSER]] });
      assert.equal(page.status, 404, url);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', url);
      assert.equal(page.headers['cache-control'], 'private', url);
      assert.ok(page.headers['content-security-policy'], url);
      assert.match(page.text, /^<!DOCTYPE html>/, url);
      assert.ok(page.text.includes(`<code>${code}</code>`), url);
      for (const accept of [undefined, '*/*', 'text/xml', 'text/html;q=0.5, application/xml']) {
        const headers: [string, string][] = accept === undefined ? [] : [['Accept', accept]];
        const xml = await request(handle, { url, headers });
        assert.equal(xml.status, 404, `${url} ${accept}`);
        assert.equal(xml.headers['content-type'], 'text/xml; charset=utf-8', `${url} ${accept}`);
        assert.ok(xml.text.includes(`<code>${code}</code>`), `${url} ${accept}`);
      }
    }
    const head = await request(handle, {
      method: 'HEAD',
      url: `${PUBLIC}?op=unknown`,
      headers: [['Accept', BROWSER]],
    });
    assert.equal(head.status, 404);
    assert.equal(head.text, '');
  });

  test('a Content-Encoding other than identity is 415 as HTTP, even at a SOAP endpoint (RFC 9110 §15.5.16)', async () => {
    const handle = app();
    for (const coding of ['gzip', 'identity, gzip']) {
      const answer = await request(handle, {
        method: 'POST',
        url: PUBLIC,
        headers: [
          ['Content-Type', 'application/soap+xml'],
          ['Content-Encoding', coding],
        ],
        body: soap12Bereich(1),
      });
      assert.equal(answer.status, 415, coding);
      assert.equal(answer.headers['accept-encoding'], 'identity');
      assert.match(answer.text, /<code>UNSUPPORTED_MEDIA_TYPE<\/code>/);
    }
    const identity = await request(handle, {
      method: 'POST',
      url: PUBLIC,
      headers: [
        ['Content-Type', 'application/soap+xml'],
        ['Content-Encoding', 'identity'],
      ],
      body: soap12Bereich(1),
    });
    assert.equal(identity.status, 200);
  });

  test('what no binding takes: the WSDL of an endpoint, and the index page', async () => {
    const handle = app();
    const wsdl = await request(handle, { url: `${PUBLIC}?wsdl` });
    assert.equal(wsdl.status, 200);
    assert.match(wsdl.text, /<wsdl:binding name="publicSoap12"/);
    assert.match(wsdl.text, /soap:address location="http:\/\/localhost\/scoop\/api\/v6\/public.asmx"/);
    const index = await request(handle, { url: '/' });
    assert.equal(index.status, 200);
    assert.match(index.headers['content-type']!, /^text\/html/);
  });

  test('a body over the limit is refused, and the transport is told to close the upload', async () => {
    const refused: string[] = [];
    const handle = app({ maxBodyBytes: 10, afterRefusedUpload: (req) => refused.push(req.url ?? '') });
    const answer = await request(handle, {
      method: 'POST',
      url: `${PUBLIC}/getBereich`,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: 'bereichID=1&padding=xxxxxxxx',
    });
    assert.equal(answer.status, 413);
    assert.equal(answer.headers.connection, 'close');
    assert.deepEqual(refused, [`${PUBLIC}/getBereich`]);
  });

  test('a SOAP 1.2 request refused for its head is answered as SOAP 1.2, as its Content-Type says', async () => {
    const answer = await request(app(), {
      method: 'POST',
      url: PUBLIC,
      headers: [
        ['Content-Type', 'application/soap+xml'],
        ['SOAPAction', '"a"'],
        ['SOAPAction', '"b"'],
      ],
      body: soap12Bereich(1),
    });
    assert.equal(answer.status, 500);
    assert.equal(answer.headers['content-type'], 'application/soap+xml; charset=utf-8');
    assert.match(answer.text, /DUPLICATE_HEADER/);
  });

  test('an HTTP POST body is read first: an oversized one is BODY_TOO_LARGE whatever else is wrong', async () => {
    const answer = await request(app({ maxBodyBytes: 10 }), {
      method: 'POST',
      url: `${PUBLIC}/noSuchOperation?bereichID=1`,
      headers: [['Content-Type', 'text/plain']],
      body: 'x'.repeat(100),
    });
    assert.equal(answer.status, 413);
    assert.match(answer.text, /<code>BODY_TOO_LARGE<\/code>/);
  });

  test('a request whose body arrives after the drain began closes its connection too', async () => {
    const handle = app();
    const { req, res, answer } = fake({
      method: 'POST',
      url: `${PUBLIC}/getBereich`,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: 'bereichID=3',
    });
    handle(req, res);
    handle.drain();
    const answered = await answer;
    assert.equal(answered.status, 200);
    assert.equal(answered.headers.connection, 'close');
  });

  test('while draining, every answer closes its connection, cached ones too', async () => {
    const handle = app();
    const url = `${PUBLIC}/getBereich?bereichID=1`;
    await request(handle, { url });
    handle.drain();
    const answer = await request(handle, { url });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.connection, 'close');
  });

  test('a JSON API call is answered by the json binding; its records link to their bytes', async () => {
    const answer = await request(app(), { url: '/api/v1/anhaenge/500' });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'application/json');
    assert.match(answer.headers['cache-control']!, /^public, max-age=/);
    assert.equal(JSON.parse(answer.text).contentUrl, '/api/v1/anhaenge/500/content');
    const behind = await request(app({ publicUrl: 'https://cms.example.org/scoop' }), {
      url: '/api/v1/bilder/200?height=1&resizeModes=crop&resizeModes=fit',
    });
    assert.equal(
      JSON.parse(behind.text).contentUrl,
      'https://cms.example.org/scoop/api/v1/bilder/200/content?height=1&resizeModes=crop&resizeModes=fit',
    );
  });

  test('a refusal under /api/v1 is a problem, even one made before decoding (the head checks)', async () => {
    const answer = await request(app(), {
      url: '/api/v1/bereiche/1',
      headers: [
        ['Authorization', 'Bearer a'],
        ['Authorization', 'Bearer b'],
      ],
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['content-type'], 'application/problem+json');
    assert.equal(JSON.parse(answer.text).code, 'DUPLICATE_HEADER');
  });

  test('a request for a byte range is not answered from the answer cache', async () => {
    const handle = app();
    const url = '/api/v1/anhaenge/500/content';
    const whole = await request(handle, { url });
    const part = await request(handle, { url, headers: [['Range', 'bytes=0-3']] });
    assert.equal(part.status, 206);
    assert.deepEqual(part.body, whole.body.subarray(0, 4));
  });

  describe('CORS for the JSON API (SCOOP_CORS_ORIGINS)', () => {
    const ORIGIN = 'https://app.example.org';
    const corsApp = () => app({ corsOrigins: [ORIGIN] });

    test('the stage is in the lifecycle only when origins are named', () => {
      assert.ok(!app().stages.includes('cors'));
      const stages = corsApp().stages;
      assert.equal(stages[stages.indexOf('check head') + 1], 'cors');
    });

    test("a preflight from a named origin, for a method of the route, is 204 with the route's methods", async () => {
      const answer = await request(corsApp(), {
        method: 'OPTIONS',
        url: '/api/v1/abonnements/suche',
        headers: [
          ['Origin', ORIGIN],
          ['Access-Control-Request-Method', 'POST'],
          ['Access-Control-Request-Headers', 'authorization, content-type'],
        ],
      });
      assert.equal(answer.status, 204);
      assert.equal(answer.headers['access-control-allow-origin'], ORIGIN);
      assert.equal(answer.headers['access-control-allow-methods'], 'POST');
      assert.match(answer.headers['access-control-allow-headers']!, /authorization.*content-type/);
      assert.match(answer.headers.vary!, /^Origin, Access-Control-Request-Method/);
      assert.equal(answer.body.length, 0);
    });

    test('a preflight from another origin, for another method or path, gets no CORS fields', async () => {
      const handle = corsApp();
      const cases: Array<readonly [string, string, string]> = [
        ['https://evil.example', '/api/v1/bereiche/1', 'GET'],
        [ORIGIN, '/api/v1/bereiche/1', 'DELETE'],
        [ORIGIN, '/api/v1/nichts', 'GET'],
      ];
      for (const [origin, url, method] of cases) {
        const answer = await request(handle, {
          method: 'OPTIONS',
          url,
          headers: [
            ['Origin', origin],
            ['Access-Control-Request-Method', method],
          ],
        });
        assert.ok(answer.status >= 400, `${origin} ${url} ${method}: ${answer.status}`);
        assert.equal(answer.headers['access-control-allow-origin'], undefined);
      }
    });

    test('answers and refusals under /api/v1 name an allowed origin and vary by Origin; nothing else gets CORS', async () => {
      const handle = corsApp();
      const from = (origin: string) => [['Origin', origin]] as const;
      for (const url of ['/api/v1/bereiche/1', '/api/v1/bereiche/1', '/api/v1/bereiche/999']) {
        const answer = await request(handle, { url, headers: from(ORIGIN) });
        assert.equal(answer.headers['access-control-allow-origin'], ORIGIN, url);
        assert.match(answer.headers['access-control-expose-headers']!, /etag/);
        assert.equal(answer.headers.vary, 'Origin');
      }
      const other = await request(handle, {
        url: '/api/v1/bereiche/1',
        headers: from('https://evil.example'),
      });
      assert.equal(other.status, 200);
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      assert.equal(other.headers.vary, 'Origin');
      const soap = await request(handle, { url: `${PUBLIC}/getBereich?bereichID=1`, headers: from(ORIGIN) });
      assert.equal(soap.headers['access-control-allow-origin'], undefined);
      assert.equal(soap.headers.vary, undefined);
    });
  });
});
