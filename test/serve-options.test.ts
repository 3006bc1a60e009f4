/**
 * Two settings that change the wire, end to end on a server in this process:
 * `SCOOP_HTTP_AUTH=off` (HTTP GET/POST of `scoop.asmx` operations without a token, SOAP
 * unchanged) and `SCOOP_NAMESPACE` (requests are read and answers written in it). The
 * requests and expected answers are the wire corpus's own success cases, rewritten.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { OPERATIONS } from '../src/contract/operations.ts';
import { canonicalize } from '../src/xml/c14n.ts';
import { type Fixture, startFixture } from './support/fixture-server.ts';
import { parseHead, type RawResponse, sendRaw } from './support/raw-http.ts';

const WIRE = path.resolve('test/wire');
const DEFAULT_NS = 'http://scoop.example.org/api';
const TOKEN_OPERATIONS = OPERATIONS.filter((op) => op.endpoint.requiresToken).map((op) => op.name);
const BINDINGS = ['soap11', 'soap12', 'httpget', 'httppost'] as const;

interface Message {
  readonly head: string[];
  readonly body: string;
}

function split(bytes: Buffer): Message {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  return { head: text.slice(0, end).split('\r\n'), body: text.slice(end + 4) };
}

/** A corpus case's request, with headers dropped, text replaced and Content-Length made right. */
function request(
  name: string,
  change: {
    drop?: RegExp;
    replace?: readonly [string, string];
    path?: (line: string) => string;
    body?: (text: string) => string;
  } = {},
): Buffer {
  const message = split(readFileSync(path.join(WIRE, name, 'request.http')));
  const edit = (text: string) => (change.replace ? text.replaceAll(...change.replace) : text);
  const body = Buffer.from(edit(change.body ? change.body(message.body) : message.body), 'utf8');
  const head = message.head
    .filter((line) => !change.drop?.test(line))
    .map((line, i) => (i === 0 && change.path ? change.path(line) : line))
    .map(edit)
    .map((line) => (/^content-length:/i.test(line) ? `Content-Length: ${body.length}` : line));
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), body]);
}

function expected(name: string, replace?: readonly [string, string]): { status: number; body: string } {
  const message = split(readFileSync(path.join(WIRE, name, 'response.http')));
  const body = replace ? message.body.replaceAll(...replace) : message.body;
  return { status: parseHead(message.head.join('\r\n')).status, body };
}

function send(fixture: Fixture, bytes: Buffer): Promise<RawResponse> {
  return sendRaw(Number(new URL(fixture.server.url).port), bytes);
}

function errorCode(response: RawResponse): string | undefined {
  return /<(?:code|errorCode)\b[^>]*>([A-Z_]+)</.exec(response.body.toString('utf8'))?.[1];
}

function assertAnswer(actual: RawResponse, want: { status: number; body: string }, label: string): void {
  assert.equal(actual.status, want.status, `${label}: ${actual.body.toString('utf8').slice(0, 300)}`);
  assert.equal(canonicalize(actual.body.toString('utf8')), canonicalize(want.body), label);
}

const NO_AUTHORIZATION = /^authorization:/i;
const WITHOUT_SOAP_HEADER: readonly [RegExp, string] = [/<(soap|soap12):Header>[\s\S]*<\/\1:Header>\s*/, ''];

describe('SCOOP_HTTP_AUTH=off', () => {
  let open: Fixture;
  let guarded: Fixture;
  before(async () => {
    open = await startFixture({ httpAuth: false });
    guarded = await startFixture();
  });
  after(async () => {
    await open?.stop();
    await guarded?.stop();
  });

  for (const op of TOKEN_OPERATIONS) {
    for (const binding of ['httpget', 'httppost'] as const) {
      test(`${op} over ${binding} answers without a token, as with one`, async () => {
        const name = `${op}__ok-${binding}`;
        const bytes = request(name, { drop: NO_AUTHORIZATION });
        assertAnswer(await send(open, bytes), expected(name), name);
        // The same request is refused while HTTP authentication is on.
        const refused = await send(guarded, bytes);
        assert.equal(refused.status, 401);
        assert.equal(errorCode(refused), 'AUTH_FAILED');
      });
    }

    for (const binding of ['soap11', 'soap12'] as const) {
      test(`${op} over ${binding} still needs the token`, async () => {
        const name = `${op}__ok-${binding}`;
        assertAnswer(await send(open, request(name)), expected(name), name);
        const unchanged = split(request(name)).body;
        const stripped = request(name, { body: (text) => text.replace(...WITHOUT_SOAP_HEADER) });
        assert.ok(!split(stripped).body.includes('wsAuthHeader') && unchanged.includes('wsAuthHeader'));
        const refused = await send(open, stripped);
        assert.equal(refused.status, 500);
        assert.equal(errorCode(refused), 'AUTH_FAILED');
      });
    }
  }

  test('a token sent anyway over HTTP is not checked', async () => {
    const name = 'getCityAppBereich__ok-httpget';
    const bytes = request(name, { replace: ['11111111-1111-1111-1111-111111111111', 'not-a-token'] });
    assertAnswer(await send(open, bytes), expected(name), name);
  });

  test('a token in the query string is still refused', async () => {
    const bytes = request('getCityAppBereich__ok-httpget', {
      drop: NO_AUTHORIZATION,
      path: (line) => line.replace('?', '?token=11111111-1111-1111-1111-111111111111&'),
    });
    const refused = await send(open, bytes);
    assert.equal(refused.status, 400);
    assert.equal(errorCode(refused), 'TOKEN_IN_URL');
  });
});

describe('a custom SCOOP_NAMESPACE', () => {
  const CUSTOM = 'urn:example:cms:v1';
  const toCustom = [DEFAULT_NS, CUSTOM] as const;
  let fixture: Fixture;
  before(async () => {
    fixture = await startFixture({ namespace: CUSTOM });
  });
  after(async () => {
    await fixture?.stop();
  });

  for (const op of OPERATIONS.map((o) => o.name)) {
    for (const binding of BINDINGS) {
      test(`${op} over ${binding} is read and answered in the custom namespace`, async () => {
        const name = `${op}__ok-${binding}`;
        const actual = await send(fixture, request(name, { replace: toCustom }));
        assertAnswer(actual, expected(name, toCustom), name);
        const body = actual.body.toString('utf8');
        assert.ok(body.includes(`xmlns="${CUSTOM}"`), `${name} answers in ${CUSTOM}`);
        assert.ok(!body.includes(DEFAULT_NS), `${name} never mentions the default namespace`);
      });
    }
  }

  test('a SOAP request in the default namespace is an unknown operation there', async () => {
    for (const binding of ['soap11', 'soap12'] as const) {
      const actual = await send(fixture, request(`getBereich__ok-${binding}`, { drop: /^soapaction:/i }));
      assert.equal(actual.status, 500);
      assert.equal(errorCode(actual), 'UNKNOWN_OPERATION');
      assert.match(actual.body.toString('utf8'), new RegExp(`<errorCode xmlns="${CUSTOM}">`));
    }
  });

  test('HTTP errors and the WSDL use it too', async () => {
    const unknown = await send(
      fixture,
      request('getBereich__ok-httpget', { path: (line) => line.replace('bereichID=1', 'bereichID=999') }),
    );
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.toString('utf8'), new RegExp(`<error xmlns="${CUSTOM}">`));
    const wsdl = await fetch(`${fixture.server.url}/scoop/api/v6/public.asmx?wsdl`);
    const text = await wsdl.text();
    assert.match(text, new RegExp(`targetNamespace="${CUSTOM}"`));
    assert.ok(!text.includes(DEFAULT_NS));
  });
});
