/**
 * Property-based fuzzing of the whole pipeline: random requests (methods, paths, query
 * strings, Content-Types, SOAPActions, tokens, mutated envelopes, form bodies, JSON API
 * routes with random segments and bodies) sent as
 * raw bytes to the in-process fixture server. Every one gets an answer with a catalogued
 * status; every error answer carries a catalogue code (never INTERNAL; under /api/v1 in a
 * problem); every XML body is
 * well-formed; no answer names the software. Bounded: fixed seed and run count
 * (test/support/fuzz.ts; FUZZ_RUNS and FUZZ_SEED scale it up locally).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { SaxesParser } from 'saxes';
import { ERRORS } from '../src/contract/errors.ts';
import { JSON_ROUTES } from '../src/protocol/json/routes.ts';
import { type Fixture, REFERENCE_TOKEN, startFixture } from './support/fixture-server.ts';
import {
  anyUnicode,
  contentType,
  ENDPOINTS,
  formText,
  fuzzRuns,
  mutatedEnvelope,
  NS,
  OPERATIONS,
  soapAction,
} from './support/fuzz.ts';
import { type RawResponse, sendRaw } from './support/raw-http.ts';

/** Statuses the service answers with: success, not-modified, each catalogue status, SOAP faults. */
const STATUSES = new Set([200, 304, 500, ...Object.values(ERRORS).map((e) => e.status)]);

let fixture: Fixture;
let port: number;
before(async () => {
  fixture = await startFixture();
  port = Number(new URL(fixture.server.url).port);
});
after(async () => {
  await fixture.stop();
});

/** Bytes outside visible ASCII are percent-encoded, so the request line stays one line. */
function asTarget(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out += code > 0x20 && code < 0x7f ? ch : Buffer.from(ch, 'utf8').toString('hex').replace(/../g, '%$&');
  }
  return out;
}

/** Header values keep visible latin1 only: what could split the head is dropped. */
function asHeaderValue(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  return text.replace(/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/g, '');
}

const path = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ENDPOINTS.map((e) => e.path)) },
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...ENDPOINTS),
        fc.constantFrom(...OPERATIONS.map((op) => op.name), 'getFoo', '__proto__', ''),
      )
      .map(([endpoint, name]) => `${endpoint.path}/${name}`),
  },
  { weight: 1, arbitrary: fc.webPath() },
  { weight: 1, arbitrary: anyUnicode(20).map((s) => `/${s}`) },
);

const body = fc.oneof(
  mutatedEnvelope.map((m) => m.body),
  formText.map((text) => Buffer.from(text, 'utf8')),
  fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
  fc.constant(Buffer.alloc(0)),
);

const authorization = fc.option(
  fc.oneof(
    fc.constant(`Bearer ${REFERENCE_TOKEN}`),
    fc.constantFrom('Bearer', 'Basic dXNlcjpwYXNz', `bearer  ${REFERENCE_TOKEN.toUpperCase()}`),
    fc.string({ maxLength: 50 }),
  ),
  { nil: undefined },
);

interface RandomRequest {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly contentType: string | undefined;
  readonly soapAction: string | undefined;
  readonly authorization: string | undefined;
  readonly body: Buffer;
}

/** Anything at all: methods, paths and headers thrown together. */
const anyRequest: fc.Arbitrary<RandomRequest> = fc.record({
  method: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('POST', 'GET') },
    { weight: 1, arbitrary: fc.constantFrom('HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'FOO') },
  ),
  path,
  query: fc.option(fc.oneof(formText, fc.constantFrom('wsdl', 'WSDL', 'disco', 'op=getBereich')), {
    nil: undefined,
  }),
  contentType: fc.option(contentType, { nil: undefined }),
  soapAction,
  authorization,
  body,
});

/** Mostly undefined (the well-formed default), one time in five a random value. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** A SOAP call: a mutated envelope posted to its endpoint, mostly with its own media type. */
const soapRequest: fc.Arbitrary<RandomRequest> = fc
  .tuple(mutatedEnvelope, sometimes(contentType), soapAction, authorization)
  .map(([mutant, type, action, auth]) => ({
    method: 'POST',
    path: mutant.operation.endpoint.path,
    query: undefined,
    contentType: type ?? (mutant.version === '1.1' ? 'text/xml; charset=utf-8' : 'application/soap+xml'),
    soapAction: action,
    authorization: auth,
    body: mutant.body,
  }));

/** An HTTP GET or POST call of an operation, with random parameters and token. */
const httpRequest: fc.Arbitrary<RandomRequest> = fc
  .tuple(
    fc.constantFrom(...OPERATIONS),
    fc.boolean(),
    formText,
    sometimes(fc.constantFrom('wsdl', `token=${REFERENCE_TOKEN}`)),
    sometimes(contentType),
    authorization,
  )
  .map(([operation, isGet, params, extraQuery, type, auth]) => ({
    method: isGet ? 'GET' : 'POST',
    path: `${operation.endpoint.path}/${operation.name}`,
    query: isGet ? [params, extraQuery].filter((q) => q !== undefined).join('&') : extraQuery,
    contentType: isGet ? undefined : (type ?? 'application/x-www-form-urlencoded'),
    soapAction: undefined,
    authorization: auth,
    body: isGet ? Buffer.alloc(0) : Buffer.from(params, 'utf8'),
  }));

/** A JSON API call: a route's path with random segments, query and body, any method. */
const jsonRequest: fc.Arbitrary<RandomRequest> = fc
  .tuple(
    fc.constantFrom(...JSON_ROUTES),
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: -3, max: 1000 }).map(String) },
      { weight: 1, arbitrary: fc.constantFrom('', '..', '%2F', '%zz', '2147483648', '1e3', ' 1') },
      { weight: 1, arbitrary: anyUnicode(10) },
    ),
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(undefined, 'width=10', 'width=1&height=1&resizeModes=crop') },
      { weight: 1, arbitrary: formText },
    ),
    fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom('{"email":"anna@example.org"}', '{"email":1}', '{}', '[]') },
      { weight: 2, arbitrary: fc.json({ maxDepth: 3 }) },
      { weight: 1, arbitrary: anyUnicode(40) },
    ),
    sometimes(fc.constantFrom('GET', 'HEAD', 'POST', 'DELETE', 'OPTIONS')),
    sometimes(contentType),
    authorization,
  )
  .map(([route, id, query, json, method, type, auth]) => {
    const verb = method ?? route.method;
    return {
      method: verb,
      path: `/api/v1${route.path.replace(/\{\w+\}/g, id)}`,
      query,
      contentType: verb === 'POST' ? (type ?? 'application/json') : undefined,
      soapAction: undefined,
      authorization: auth,
      body: verb === 'POST' ? Buffer.from(json, 'utf8') : Buffer.alloc(0),
    };
  });

const request: fc.Arbitrary<RandomRequest> = fc.oneof(
  { weight: 3, arbitrary: soapRequest },
  { weight: 3, arbitrary: httpRequest },
  { weight: 2, arbitrary: jsonRequest },
  { weight: 2, arbitrary: anyRequest },
);

function toBytes(r: RandomRequest): Buffer {
  const target = asTarget(r.query === undefined ? r.path : `${r.path}?${r.query}`);
  const headers = ['Host: localhost', 'Connection: close'];
  if (r.contentType !== undefined) headers.push(`Content-Type: ${asHeaderValue(r.contentType)}`);
  if (r.soapAction !== undefined) headers.push(`SOAPAction: ${asHeaderValue(r.soapAction)}`);
  if (r.authorization !== undefined) headers.push(`Authorization: ${asHeaderValue(r.authorization)}`);
  // The exact length of what follows: a request never leaves the server waiting for more.
  if (r.body.length > 0 || r.method === 'POST') headers.push(`Content-Length: ${r.body.length}`);
  const head = `${r.method} ${target} HTTP/1.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), r.body]);
}

interface ErrorFacts {
  readonly wellFormed: boolean;
  readonly code: string | undefined;
  readonly faultCode: string | undefined;
}

function readErrorBody(xml: string): ErrorFacts {
  const parser = new SaxesParser({ xmlns: true });
  let wellFormed = true;
  let code: string | undefined;
  let faultCode: string | undefined;
  let reading: 'code' | 'fault' | undefined;
  parser.on('error', () => {
    wellFormed = false;
  });
  parser.on('opentag', (tag) => {
    if (tag.uri === NS && (tag.local === 'code' || tag.local === 'errorCode')) reading = 'code';
    else if (faultCode === undefined && (tag.local === 'faultcode' || tag.local === 'Value'))
      reading = 'fault';
    else reading = undefined;
  });
  parser.on('text', (text) => {
    if (reading === 'code') code = (code ?? '') + text;
    if (reading === 'fault') faultCode = (faultCode ?? '') + text;
  });
  parser.on('closetag', () => {
    reading = undefined;
  });
  parser.write(xml).close();
  return { wellFormed, code, faultCode };
}

function checkAnswer(r: RandomRequest, response: RawResponse): void {
  const text = response.body.toString('utf8');
  const shown = `${r.method} ${r.path} → ${response.status} ${text.slice(0, 300)}`;
  assert.ok(STATUSES.has(response.status), `uncatalogued status: ${shown}`);
  assert.equal(response.headers.get('server'), undefined);
  assert.equal(response.headers.get('x-powered-by'), undefined);
  const type = response.headers.get('content-type') ?? '';
  if (r.method === 'HEAD' || response.status === 304) return;
  // The JSON API (and everything under its prefix) refuses with a problem, not XML.
  if (/^\/api\/v1(?:\/|$)/.test(r.path) && response.status >= 400) {
    assert.equal(type, 'application/problem+json', `an error answer without a problem: ${shown}`);
    const { code } = JSON.parse(text) as { code: string };
    assert.ok(Object.hasOwn(ERRORS, code), `uncatalogued code ${code}: ${shown}`);
    assert.notEqual(code, 'INTERNAL', `random input caused an internal error: ${shown}`);
    return;
  }
  if (response.status >= 400) assert.match(type, /xml/, `an error answer without the XML body: ${shown}`);
  if (!/xml/.test(type)) return;
  const facts = readErrorBody(text);
  assert.ok(facts.wellFormed, `not well-formed: ${shown}`);
  if (response.status < 400) return;
  if (facts.code === undefined) {
    assert.match(facts.faultCode ?? '', /MustUnderstand$/, `an error answer without a code: ${shown}`);
    return;
  }
  assert.ok(Object.hasOwn(ERRORS, facts.code), `uncatalogued code ${facts.code}: ${shown}`);
  assert.notEqual(facts.code, 'INTERNAL', `random input caused an internal error: ${shown}`);
}

test('random requests always get a catalogued answer', { timeout: 60_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(request, async (r) => {
      checkAnswer(r, await sendRaw(port, toBytes(r), 5_000));
    }),
    fuzzRuns(500),
  );
});

test('the server still answers a normal request afterwards', async () => {
  const response = await sendRaw(
    port,
    Buffer.from(
      'GET /scoop/api/v6/public.asmx/getBereich?bereichID=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n',
    ),
  );
  assert.equal(response.status, 200);
  assert.match(response.body.toString('utf8'), /<bereichID>1<\/bereichID>/);
});
