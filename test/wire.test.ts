/**
 * The golden wire corpus: each folder of test/wire holds `request.http` (the exact bytes
 * sent) and `response.http` (the expected status line, the headers that matter, and the
 * body). Bodies are compared after XML canonicalisation. Cases with a SOURCE file expect
 * the original platform's answer (reference/); the rest expect ours, and
 * `npm run wire:update` (this file with WIRE_UPDATE=1) rewrites all of those — review the
 * diff before committing.
 * The corpus runs against every database (test/support/databases.ts): the answers are
 * the same byte for byte whichever store is behind them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ErrorCode } from '../src/contract/errors.ts';
import { OPERATIONS } from '../src/contract/operations.ts';
import { canonicalize } from '../src/xml/c14n.ts';
import { DATABASES, SQLITE, type TestDatabase } from './support/databases.ts';
import { EXTRAS_BUNDLE, type Fixture, REFERENCE_BUNDLE, startFixture } from './support/fixture-server.ts';
import { parseHead, type RawResponse, sendRaw } from './support/raw-http.ts';

const WIRE = path.resolve('test/wire');
const UPDATE = process.env.WIRE_UPDATE === '1';
/** Headers recorded for our own cases when updating. */
const RECORDED = ['content-type', 'cache-control', 'etag', 'www-authenticate', 'allow', 'connection'];

function isXml(contentType: string | undefined): boolean {
  return contentType !== undefined && /xml/.test(contentType);
}

function render(response: RawResponse): Buffer {
  const head = [`HTTP/1.1 ${response.status}`];
  for (const name of RECORDED) {
    const value = response.headers.get(name);
    if (value !== undefined) head.push(`${name}: ${value}`);
  }
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'utf8'), response.body]);
}

const cases = readdirSync(WIRE).filter((name) => existsSync(path.join(WIRE, name, 'request.http')));

const BINDINGS = ['soap11', 'soap12', 'httpget', 'httppost'] as const;
type Binding = (typeof BINDINGS)[number];
const SOAP: readonly Binding[] = ['soap11', 'soap12'];

/**
 * The error a case's expected answer carries: `<code>` or a fault's `errorCode`; a
 * MustUnderstand fault has no detail (as the original's), so its fault code tells.
 */
function expectedCode(name: string): string | undefined {
  const file = path.join(WIRE, name, 'response.http');
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, 'utf8');
  if (/<(?:faultcode|soap:Value)>soap:MustUnderstand</.test(text)) return 'MUST_UNDERSTAND';
  return /<(?:code|errorCode)\b[^>]*>([A-Z_]+)</.exec(text)?.[1];
}

function bindingOf(name: string): Binding | undefined {
  return BINDINGS.find((binding) => name.endsWith(`-${binding}`));
}

test('the corpus has a success case for every operation on every binding', () => {
  const missing: string[] = [];
  for (const operation of OPERATIONS) {
    for (const binding of BINDINGS) {
      const name = `${operation.name}__ok-${binding}`;
      if (!cases.includes(name)) missing.push(name);
      else
        assert.match(readFileSync(path.join(WIRE, name, 'response.http'), 'latin1'), /^HTTP\/1\.1 200[ \r]/);
    }
  }
  assert.deepEqual(missing, []);
  assert.equal(OPERATIONS.length * BINDINGS.length, 32);
});

/** The error cases issue 2 names, each with the code it must produce and the bindings it is sent on. */
const ERROR_CASES: readonly { what: string; name: RegExp; code: ErrorCode; bindings: readonly Binding[] }[] =
  [
    { what: 'unknown id', name: /__unknown-id-/, code: 'UNKNOWN_ID', bindings: BINDINGS },
    {
      what: 'unpublished article',
      name: /^getArtikelDetails__unpublished-/,
      code: 'UNKNOWN_ID',
      bindings: BINDINGS,
    },
    { what: 'bad parameter', name: /__id-not-int-/, code: 'INVALID_PARAMETER', bindings: BINDINGS },
    { what: 'missing parameter', name: /__missing-parameter/, code: 'MISSING_PARAMETER', bindings: BINDINGS },
    {
      what: 'unknown resizeMode',
      name: /^getBild__invalid-resizeMode-/,
      code: 'INVALID_PARAMETER',
      bindings: BINDINGS,
    },
    { what: 'malformed XML', name: /__malformed-xml-/, code: 'MALFORMED_XML', bindings: SOAP },
    { what: 'DOCTYPE', name: /__(dtd|xxe)-/, code: 'DTD_NOT_ALLOWED', bindings: SOAP },
    {
      what: 'body over 4 MB',
      name: /__body-over-4mb-/,
      code: 'BODY_TOO_LARGE',
      bindings: ['soap11', 'soap12', 'httppost'],
    },
    {
      what: 'wrong content type',
      name: /__(unsupported|wrong)-content-type-/,
      code: 'UNSUPPORTED_MEDIA_TYPE',
      bindings: ['soap11', 'httppost'],
    },
    {
      what: 'SOAP 1.1 envelope as application/soap+xml',
      name: /__envelope-mismatch-soap11-envelope-with-soap12-content-type$/,
      code: 'SOAP_VERSION_MISMATCH',
      bindings: [],
    },
    {
      what: 'mustUnderstand',
      name: /__mustUnderstand-unknown-header-/,
      code: 'MUST_UNDERSTAND',
      bindings: SOAP,
    },
    { what: 'revoked token', name: /__revoked-token-/, code: 'AUTH_FAILED', bindings: BINDINGS },
  ];

test('the corpus has a case for every error case of the issue, on each binding it applies to', () => {
  const missing: string[] = [];
  for (const { what, name, code, bindings } of ERROR_CASES) {
    const found = cases.filter((c) => name.test(c) && expectedCode(c) === code);
    if (found.length === 0) missing.push(`${what}: no case answering ${code}`);
    for (const binding of bindings) {
      if (!found.some((c) => bindingOf(c) === binding)) missing.push(`${what}: none on ${binding}`);
    }
  }
  assert.deepEqual(missing, []);
});

for (const db of DATABASES) describe(db.name, () => corpus(db));

function corpus(db: TestDatabase): void {
  let fixture: Fixture;
  before(async () => {
    if (!db.skip) fixture = await startFixture({}, [REFERENCE_BUNDLE, EXTRAS_BUNDLE], db);
  });
  after(async () => {
    await fixture?.stop();
  });

  for (const name of cases.sort()) {
    db.test(name, async () => {
      const folder = path.join(WIRE, name);
      const request = readFileSync(path.join(folder, 'request.http'));
      const actual = await sendRaw(Number(new URL(fixture.server.url).port), request);
      const expectedFile = path.join(folder, 'response.http');
      const fromReference = existsSync(path.join(folder, 'SOURCE'));
      // The expectations are written once, from SQLite; PostgreSQL's answers are compared with them.
      if (UPDATE && !fromReference && db === SQLITE) {
        writeFileSync(expectedFile, render(actual));
        return;
      }
      assert.ok(existsSync(expectedFile), 'response.http is missing (run with WIRE_UPDATE=1 and review)');
      const expected = readFileSync(expectedFile);
      const split = expected.indexOf('\r\n\r\n');
      const { status, headers } = parseHead(expected.subarray(0, split).toString('utf8'));
      const body = expected.subarray(split + 4);
      assert.equal(actual.status, status, `status; body: ${actual.body.toString('utf8').slice(0, 300)}`);
      for (const [header, value] of headers)
        assert.equal(actual.headers.get(header), value, `header ${header}`);
      if (isXml(headers.get('content-type')) && body.length > 0) {
        assert.equal(canonicalize(actual.body.toString('utf8')), canonicalize(body.toString('utf8')));
      } else {
        assert.equal(actual.body.toString('utf8'), body.toString('utf8'));
      }
    });
  }
}
