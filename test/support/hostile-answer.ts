/**
 * Judging one answer of the hostile corpus: the documented status and catalogue code
 * (docs/errors.md), no internals leaked, no header injected or naming the software, and a
 * well-formed XML body of the binding that received the request.
 */
import assert from 'node:assert/strict';
import { SaxesParser } from 'saxes';
import { ERRORS } from '../../src/contract/errors.ts';
import type { HostileCase } from './hostile-case.ts';
import { NS, SOAP11_NS, SOAP12_NS, XML11, XML12 } from './hostile-requests.ts';
import type { RawResponse } from './raw-http.ts';

/** Response headers the service may send; anything else was injected or reveals the software. */
const ALLOWED_HEADERS = new Set([
  'content-type',
  'content-length',
  'cache-control',
  'x-content-type-options',
  'content-security-policy',
  'allow',
  'www-authenticate',
  'retry-after',
  'accept-encoding',
  'etag',
  'connection',
  'keep-alive',
  'date',
  'x-request-id',
]);

/** What must never reach a client, unless the client sent it itself. */
const LEAKS: readonly RegExp[] = [
  /\bat [\w$.<>]+ \(/g,
  /\bat (?:file:|node:)\S+|\bat \/\S+:\d+:\d+/g,
  /\/work\/\S*/g,
  /node_modules/g,
  /(?:\/home|\/usr|\/tmp|\/root|\/var)\/\S*/g,
  /\w*Error:/g,
  /\b(?:TypeError|RangeError|SyntaxError|ReferenceError|URIError|ScoopError|SqliteError)\b/g,
  /\b(?:Exception|stack trace|Traceback)\b/gi,
  /\bE(?:CONNRESET|NOENT|ACCES|PIPE|ADDRINUSE)\b/g,
  /\bv?\d+\.\d+\.\d+\b/g,
  /\b(?:Node\.js|node\/v?\d|saxes|better-sqlite3|SQLITE_\w+|tsx|pino)\b/gi,
  /\.ts:\d+/g,
];

function leaksIn(response: string, request: string): string[] {
  const found: string[] = [];
  for (const pattern of LEAKS)
    for (const match of response.matchAll(pattern)) if (!request.includes(match[0])) found.push(match[0]);
  return found;
}

interface XmlFacts {
  readonly errors: readonly string[];
  /** Text of `{ns}code` (HTTP error body) or `{ns}errorCode` (SOAP fault detail). */
  readonly code: string | undefined;
  /** SOAP 1.1 `faultcode`, or the first SOAP 1.2 `Code/Value`. */
  readonly faultCode: string | undefined;
  readonly rootUri: string | undefined;
}

function readXml(xml: string): XmlFacts {
  const parser = new SaxesParser({ xmlns: true });
  const errors: string[] = [];
  let code: string | undefined;
  let rootUri: string | undefined;
  let inCode = false;
  let faultCode: string | undefined;
  let inFaultCode = false;
  parser.on('error', (error) => {
    errors.push(error.message);
  });
  parser.on('opentag', (tag) => {
    rootUri ??= tag.uri;
    inCode = tag.uri === NS && (tag.local === 'code' || tag.local === 'errorCode');
    if (inCode) code = '';
    inFaultCode =
      faultCode === undefined &&
      ((tag.uri === '' && tag.local === 'faultcode') || (tag.uri === SOAP12_NS && tag.local === 'Value'));
  });
  parser.on('text', (text) => {
    if (inCode) code += text;
    if (inFaultCode) faultCode = (faultCode ?? '') + text;
  });
  parser.on('closetag', () => {
    inCode = false;
    inFaultCode = false;
  });
  parser.write(xml).close();
  return { errors, code, rootUri, faultCode };
}

function expectedStatus(c: HostileCase): number {
  if (c.code === 'ok') return 200;
  return c.binding === 'soap11' || c.binding === 'soap12' ? 500 : ERRORS[c.code].status;
}

export function checkAnswer(c: HostileCase, request: Buffer, response: RawResponse): void {
  const bodyText = response.body.toString('utf8');
  const detail = `${c.name}: ${response.status} ${bodyText.slice(0, 400)}`;
  assert.equal(response.status, expectedStatus(c), detail);
  assert.equal(response.headers.get('server'), undefined, 'a Server header names the software');
  assert.equal(response.headers.get('x-powered-by'), undefined, 'an X-Powered-By header');
  for (const [name, value] of response.headers) {
    assert.ok(ALLOWED_HEADERS.has(name), `unexpected response header ${name}: ${value}`);
    assert.doesNotMatch(value, /[\r\n]/, `header ${name} holds a line break`);
  }
  const requestText = request.toString('latin1');
  const responseText = `${[...response.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n${bodyText}`;
  assert.deepEqual(leaksIn(responseText, requestText), [], `the answer leaks internals: ${detail}`);

  const contentType = response.headers.get('content-type') ?? '';
  if (c.code === 'ok') {
    if (/xml/.test(contentType)) assert.deepEqual(readXml(bodyText).errors, [], `not well-formed: ${detail}`);
    return;
  }
  const facts = readXml(bodyText);
  assert.deepEqual(facts.errors, [], `not well-formed: ${detail}`);
  if (c.code === 'MUST_UNDERSTAND') {
    // SOAP 1.1 §4.4: a header fault carries no detail; the fault code says it.
    assert.equal(facts.faultCode, 'soap:MustUnderstand', detail);
  } else {
    assert.equal(facts.code, c.code, detail);
  }
  if (c.binding === 'soap11') {
    assert.equal(contentType, XML11, detail);
    assert.equal(facts.rootUri, SOAP11_NS, detail);
  } else if (c.binding === 'soap12') {
    assert.equal(contentType, XML12, detail);
    assert.equal(facts.rootUri, SOAP12_NS, detail);
  } else {
    assert.equal(contentType, XML11, detail);
    assert.equal(facts.rootUri, NS, detail);
  }
}
