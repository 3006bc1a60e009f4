import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import pino from 'pino';
import type { LineOutput } from './log-destination.ts';
import { type RequestRecord, requestLineWriter } from './request-line.ts';
import { requestId } from './request-log.ts';

/** The time both loggers write; the property test moves it between lines (the writer's start is made anew). */
let clock = 0;
const TIME = () => `,"time":"${new Date(Date.UTC(2026, 10, 26, 10, 0, 0, clock)).toISOString()}"`;

/** pino with serve's settings (serve-command.ts), writing into `lines`. */
function pinoLines(base: Record<string, unknown> | undefined) {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base, formatters: { level: (label) => ({ level: label }) }, timestamp: TIME },
    { write: (line: string) => lines.push(line) },
  );
  return { lines, log: (r: RequestRecord) => logger.info(r, 'request') };
}

/** serve's writer, into `lines`; each line must end within the room it asked for. */
function fastLines(base: Record<string, unknown> | undefined) {
  const lines: string[] = [];
  const output: LineOutput = {
    append(most, fill, item) {
      // From offset 3, as a line after others in the held buffer; an end past the room is
      // a line longer than it said.
      const room = Buffer.alloc(most + 3);
      const end = fill(room, 3, item);
      assert.ok(end <= most + 3, `${end - 3} bytes written into room for ${most}`);
      lines.push(room.toString('utf8', 3, end));
    },
  };
  return { lines, log: requestLineWriter(output, base, TIME) };
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
// Any UTF-16 string: controls, quotes, backslashes, non-ASCII, surrogate pairs and lone halves.
const text = fc
  .array(fc.oneof(fc.nat(0x7f), fc.nat(0xffff)), { maxLength: 60 })
  .map((units) => String.fromCharCode(...units));
/** Any text, or one of a few values that come again (remembered by the writer). */
const recurring = fc.oneof(text, fc.constantFrom('getBereich', 'httpget', 'ok', '/a"b', '\u2028', 'ü'));

const records: fc.Arbitrary<RequestRecord> = fc.record({
  // What a request's id can be: the client's X-Request-Id when sane, else one made here.
  reqId: fc.oneof(text, fc.stringMatching(/^[A-Za-z0-9._:-]{1,40}$/)).map((header) => requestId(header)),
  client: maybe(recurring),
  forwardedFor: maybe(text),
  method: maybe(recurring),
  path: recurring,
  op: maybe(recurring),
  binding: maybe(recurring),
  status: fc.integer({ min: 100, max: 599 }),
  outcome: recurring,
  ms: fc.oneof(
    fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 10),
    fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((n) => n / 10),
    // Not what request-log.ts makes, but written as JSON all the same.
    fc.double(),
  ),
  bytesIn: fc.oneof(fc.nat(), fc.maxSafeNat()),
  bytesOut: fc.oneof(fc.nat(), fc.maxSafeNat(), fc.double()),
});

const wellFormed = (r: RequestRecord) =>
  Object.values(r).every((value) => typeof value !== 'string' || !/\p{Surrogate}/u.test(value));

test('a request line is what pino writes with serve’s settings, for any field values', () => {
  for (const base of [undefined, { pid: 4242 }]) {
    // One writer for the whole run, as serve has: its remembered fields are checked too.
    const actual = fastLines(base);
    fc.assert(
      fc.property(records, fc.nat(3), (record, ms) => {
        clock = ms;
        const expected = pinoLines(base);
        expected.log(record);
        actual.log(record);
        const line = actual.lines.at(-1)!;
        assert.deepEqual(JSON.parse(line), JSON.parse(expected.lines[0]!));
        // Byte for byte but where pino writes a lone surrogate half raw (not valid UTF-8
        // once encoded) and this line escapes it, as JSON.stringify does.
        if (wellFormed(record)) assert.equal(line, expected.lines[0]);
      }),
      { numRuns: 2000 },
    );
  }
});

test('a line with every number at its longest JSON still fits the room it asked for', () => {
  const longest = -Number.MAX_VALUE; // -1.7976931348623157e+308
  for (const base of [undefined, { pid: 4242 }]) {
    const actual = fastLines(base);
    const expected = pinoLines(base);
    const record: RequestRecord = {
      reqId: requestId(undefined),
      client: '127.0.0.1',
      method: 'GET',
      path: '/',
      op: undefined,
      binding: undefined,
      status: longest,
      outcome: 'ok',
      ms: longest,
      bytesIn: longest,
      bytesOut: longest,
    };
    actual.log(record);
    expected.log(record);
    assert.equal(actual.lines[0], expected.lines[0]);
  }
});

test('a line is one line of JSON, whatever the path holds', () => {
  const out = fastLines(undefined);
  out.log({
    reqId: requestId('r1'),
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
