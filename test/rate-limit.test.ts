/**
 * The rate limit end to end: off by default; on, every request counts against its
 * address first — made-up tokens, malformed SOAP, unknown paths and WSDL requests
 * included — and only a token that verified gets a budget of its own. Each client here
 * sends from an address of its own on the loopback network (127.0.0.0/8), so one server
 * holds every scenario.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../src/auth/tokens.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';

const NS = 'http://scoop.example.org/api';
const PUBLIC = '/scoop/api/v6/public.asmx';
const V7 = '/scoop/api/v7/scoop.asmx';
const SECOND_TOKEN = '22222222-2222-4222-8222-222222222222';

interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

interface Call {
  readonly from: string;
  readonly path: string;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** One request on a connection of its own, sent from the loopback address `from`. */
function send(base: string, call: Call): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}${call.path}`,
      {
        method: call.method ?? (call.body === undefined ? 'GET' : 'POST'),
        headers: call.headers,
        localAddress: call.from,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(call.body);
  });
}

function envelope(version: '1.1' | '1.2', body: string, header = ''): string {
  const ns =
    version === '1.1'
      ? 'http://schemas.xmlsoap.org/soap/envelope/'
      : 'http://www.w3.org/2003/05/soap-envelope';
  return `<soap:Envelope xmlns:soap="${ns}"><soap:Header>${header}</soap:Header><soap:Body>${body}</soap:Body></soap:Envelope>`;
}

const soap11 = (from: string, xml: string, path = PUBLIC): Call => ({
  from,
  path,
  headers: { 'content-type': 'text/xml; charset=utf-8' },
  body: xml,
});
const soap12 = (from: string, xml: string, path = PUBLIC): Call => ({
  from,
  path,
  headers: { 'content-type': 'application/soap+xml; charset=utf-8' },
  body: xml,
});
const MALFORMED = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>';
const withBearer = (from: string, path: string, token: string): Call => ({
  from,
  path,
  headers: { authorization: `Bearer ${token}` },
});
const tokenHeader = (token: string) => `<wsAuthHeader xmlns="${NS}"><token>${token}</token></wsAuthHeader>`;

function assertHttpLimited(answer: Answer, what: string): void {
  assert.equal(answer.status, 429, `${what}: ${answer.status} ${answer.body}`);
  assert.match(String(answer.headers['retry-after']), /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.match(answer.body, /<code>RATE_LIMITED<\/code>/, what);
}

function assertSoapLimited(answer: Answer, version: '1.1' | '1.2', what: string): void {
  assert.equal(answer.status, 500, `${what}: ${answer.status} ${answer.body}`);
  assert.match(String(answer.headers['retry-after']), /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.match(answer.body, /<errorCode xmlns="[^"]+">RATE_LIMITED<\/errorCode>/, what);
  if (version === '1.1') {
    assert.match(String(answer.headers['content-type']), /^text\/xml/, what);
    assert.match(answer.body, /<faultcode>soap:Server<\/faultcode>/, what);
  } else {
    assert.match(String(answer.headers['content-type']), /^application\/soap\+xml/, what);
    assert.match(answer.body, /<soap:Value>soap:Receiver<\/soap:Value>/, what);
  }
}

describe('without SCOOP_RATE_LIMIT', () => {
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture();
  });
  after(async () => {
    await fixture.stop();
  });

  test('nothing is ever refused as RATE_LIMITED', async () => {
    const base = fixture.server.url;
    for (let i = 0; i < 30; i++) {
      const guess = await send(base, withBearer('127.0.0.1', `${V7}/getNewsletter`, randomUUID()));
      assert.equal(guess.status, 401);
      const garbage = await send(base, soap11('127.0.0.1', MALFORMED));
      assert.equal(garbage.status, 500);
      assert.match(garbage.body, /MALFORMED_XML/);
      assert.equal((await send(base, { from: '127.0.0.1', path: '/nothing' })).status, 404);
    }
  });
});

describe('with SCOOP_RATE_LIMIT=1, SCOOP_RATE_BURST=4', () => {
  const BURST = 4;
  let fixture: Fixture;
  let base: string;
  before(async () => {
    fixture = await startFixture({ rateLimit: { perSecond: 1, burst: BURST } });
    await fixture.store.addToken(hashToken(SECOND_TOKEN), 'second', new Date().toISOString());
    base = fixture.server.url;
  });
  after(async () => {
    await fixture.stop();
  });

  test('made-up Bearer tokens count against the address: guessing is throttled', async () => {
    const from = '127.0.0.2';
    for (let i = 0; i < BURST; i++) {
      const guess = await send(base, withBearer(from, `${V7}/getNewsletter`, randomUUID()));
      assert.equal(guess.status, 401, `guess ${i}`);
    }
    assertHttpLimited(await send(base, withBearer(from, `${V7}/getNewsletter`, randomUUID())), 'a new guess');
    assertHttpLimited(
      await send(base, { from, path: `${PUBLIC}/getBereich?bereichID=1` }),
      'a request without a token',
    );
  });

  test('made-up tokens in wsAuthHeader count against the address, answered as Server faults', async () => {
    const from = '127.0.0.3';
    const call = () =>
      soap11(from, envelope('1.1', `<getNewsletter xmlns="${NS}"/>`, tokenHeader(randomUUID())), V7);
    for (let i = 0; i < BURST; i++) assert.match((await send(base, call())).body, /AUTH_FAILED/);
    assertSoapLimited(await send(base, call()), '1.1', 'a SOAP 1.1 guess');
  });

  test('malformed SOAP counts, and is refused with a Server fault and Retry-After (SOAP 1.1)', async () => {
    const from = '127.0.0.4';
    for (let i = 0; i < BURST; i++)
      assert.match((await send(base, soap11(from, MALFORMED))).body, /MALFORMED_XML/);
    assertSoapLimited(await send(base, soap11(from, MALFORMED)), '1.1', 'malformed SOAP 1.1');
    const valid = envelope('1.1', `<getBereich xmlns="${NS}"><bereichID>1</bereichID></getBereich>`);
    assertSoapLimited(await send(base, soap11(from, valid)), '1.1', 'a valid SOAP 1.1 request');
  });

  test('SOAP 1.2 is refused with a Receiver fault and Retry-After', async () => {
    const from = '127.0.0.5';
    const bad = MALFORMED.replace(
      'http://schemas.xmlsoap.org/soap/envelope/',
      'http://www.w3.org/2003/05/soap-envelope',
    );
    for (let i = 0; i < BURST; i++) assert.match((await send(base, soap12(from, bad))).body, /MALFORMED_XML/);
    assertSoapLimited(await send(base, soap12(from, bad)), '1.2', 'malformed SOAP 1.2');
    const valid = envelope('1.2', `<getBereich xmlns="${NS}"><bereichID>1</bereichID></getBereich>`);
    assertSoapLimited(await send(base, soap12(from, valid)), '1.2', 'a valid SOAP 1.2 request');
  });

  test('unknown paths, WSDL and help pages count, and are answered 429 with Retry-After', async () => {
    const from = '127.0.0.6';
    assert.equal((await send(base, { from, path: '/etc/passwd' })).status, 404);
    assert.equal((await send(base, { from, path: `${PUBLIC}?wsdl` })).status, 200);
    assert.equal((await send(base, { from, path: PUBLIC })).status, 200);
    assert.equal((await send(base, { from, path: `${PUBLIC}/noSuchOperation` })).status, 404);
    assertHttpLimited(await send(base, { from, path: '/etc/passwd' }), 'an unknown path');
    assertHttpLimited(await send(base, { from, path: `${PUBLIC}?wsdl` }), 'a WSDL request');
    assertHttpLimited(await send(base, { from, path: '/' }), 'the index');
  });

  test('malformed HTTP GET/POST requests count', async () => {
    const from = '127.0.0.7';
    const form = (body: string): Call => ({
      from,
      path: `${PUBLIC}/getBereich`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    assert.equal((await send(base, { from, path: `${PUBLIC}/getBereich?bereichID=%ZZ` })).status, 400);
    assert.equal((await send(base, form('bereichID=x'))).status, 400);
    assert.equal(
      (await send(base, { ...form('bereichID=1'), headers: { 'content-type': 'text/plain' } })).status,
      415,
    );
    assert.equal((await send(base, { from, path: `${PUBLIC}/getBereich`, method: 'PUT' })).status, 405);
    assertHttpLimited(await send(base, form('bereichID=1')), 'a valid POST');
  });

  test('a verified token has a budget of its own, apart from its address', async () => {
    const from = '127.0.0.8';
    const path = `${V7}/getNewsletter`;
    assert.equal((await send(base, withBearer(from, path, REFERENCE_TOKEN))).status, 200);
    // The rest of the address's budget goes on unknown paths.
    for (let i = 0; i < BURST; i++) assert.equal((await send(base, { from, path: '/x' })).status, 404);
    assertHttpLimited(await send(base, { from, path: '/x' }), 'the address is spent');
    assertHttpLimited(await send(base, withBearer(from, path, randomUUID())), 'an unknown token');
    // The token verified before, so its requests are charged to it, not to the spent address.
    for (let i = 1; i < BURST; i++)
      assert.equal(
        (await send(base, withBearer(from, path, REFERENCE_TOKEN))).status,
        200,
        `token request ${i}`,
      );
    assertHttpLimited(await send(base, withBearer(from, path, REFERENCE_TOKEN)), 'the token is spent');
  });

  test('requests with a verified token do not use up their address', async () => {
    const from = '127.0.0.9';
    const call = () =>
      soap12(from, envelope('1.2', `<getNewsletter xmlns="${NS}"/>`, tokenHeader(SECOND_TOKEN)), V7);
    for (let i = 0; i < BURST; i++) {
      const answer = await send(base, call());
      assert.equal(answer.status, 200, `token request ${i}: ${answer.body}`);
    }
    assertSoapLimited(await send(base, call()), '1.2', 'the token is spent');
    for (let i = 0; i < BURST; i++) {
      const answer = await send(base, { from, path: `${PUBLIC}/getBereich?bereichID=1` });
      assert.equal(answer.status, 200, `anonymous request ${i}`);
    }
    assertHttpLimited(
      await send(base, { from, path: `${PUBLIC}/getBereich?bereichID=1` }),
      'the address is spent',
    );
  });

  test('another address is not affected', async () => {
    const answer = await send(base, { from: '127.0.0.10', path: `${PUBLIC}/getBereich?bereichID=1` });
    assert.equal(answer.status, 200);
  });
});
