import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import { type RequestRecord, requestLineWriter } from './request-line.ts';

const TIME = () => ',"time":"2026-11-26T10:00:00.000Z"';

/** pino with serve's settings (serve-command.ts), writing into `lines`. */
function pinoLines(base: Record<string, unknown> | undefined) {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base, formatters: { level: (label) => ({ level: label }) }, timestamp: TIME },
    { write: (line: string) => lines.push(line) },
  );
  return { lines, log: (r: RequestRecord) => logger.info(r, 'request') };
}

function fastLines(base: Record<string, unknown> | undefined) {
  const lines: string[] = [];
  return { lines, log: requestLineWriter({ write: (line) => lines.push(line) }, base, TIME) };
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
// Any UTF-16 string: controls, quotes, backslashes, non-ASCII, surrogate pairs and lone halves.
const text = fc
  .array(fc.oneof(fc.nat(0x7f), fc.nat(0xffff)), { maxLength: 60 })
  .map((units) => String.fromCharCode(...units));

const records: fc.Arbitrary<RequestRecord> = fc.record({
  reqId: text,
  client: maybe(text),
  forwardedFor: maybe(text),
  method: maybe(text),
  path: text,
  op: maybe(text),
  binding: maybe(text),
  status: fc.integer({ min: 100, max: 599 }),
  outcome: text,
  ms: fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 10),
  bytesIn: fc.nat(),
  bytesOut: fc.nat(),
});

const wellFormed = (r: RequestRecord) =>
  Object.values(r).every((value) => typeof value !== 'string' || !/\p{Surrogate}/u.test(value));

test('a request line is what pino writes with serve’s settings, for any field values', () => {
  for (const base of [undefined, { pid: 4242 }]) {
    fc.assert(
      fc.property(records, (record) => {
        const expected = pinoLines(base);
        const actual = fastLines(base);
        expected.log(record);
        actual.log(record);
        assert.deepEqual(JSON.parse(actual.lines[0]!), JSON.parse(expected.lines[0]!));
        // Byte for byte but where pino writes a lone surrogate half raw (not valid UTF-8
        // once encoded) and this line escapes it, as JSON.stringify does.
        if (wellFormed(record)) assert.equal(actual.lines[0], expected.lines[0]);
      }),
      { numRuns: 2000 },
    );
  }
});

test('a line is one line of JSON, whatever the path holds', () => {
  const out = fastLines(undefined);
  out.log({
    reqId: 'r1',
    client: '127.0.0.1',
    method: 'GET',
    path: '/a"b\\c\n{"injected":1}\u2028\ud800',
    op: undefined,
    binding: undefined,
    status: 404,
    outcome: 'not-found',
    ms: 0.2,
    bytesIn: 0,
    bytesOut: 12,
  });
  const line = out.lines[0]!;
  assert.equal(line.indexOf('\n'), line.length - 1);
  const parsed = JSON.parse(line) as Record<string, unknown>;
  assert.equal(parsed.path, '/a"b\\c\n{"injected":1}\u2028\ud800');
  assert.equal('injected' in parsed, false);
  assert.equal('op' in parsed, false);
});
