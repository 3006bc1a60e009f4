/**
 * The golden wire corpus: each folder of test/wire holds `request.http` (the exact bytes
 * sent) and `response.http` (the expected status line, the headers that matter, and the
 * body). Bodies are compared after XML canonicalisation. Cases with a SOURCE file expect
 * the original platform's answer (reference/); the rest expect ours, and
 * `WIRE_UPDATE=1 npm run test:wire` rewrites those — review the diff before committing.
 * The corpus runs against every database (test/support/databases.ts): the answers are
 * the same byte for byte whichever store is behind them.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { canonicalize } from './support/c14n.ts';
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

test('the corpus covers every operation on every binding', () => {
  assert.ok(cases.length >= 150, `only ${cases.length} cases`);
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
