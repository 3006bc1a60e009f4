/**
 * The request log's line, written without pino's generic serializer. A request line has
 * fixed fields, so it is put together from pieces kept as UTF-8 bytes, straight into the
 * log's output buffer; pino walks the object, asks each value's type and runs its hooks,
 * which cost about two thirds of a line's time, and a line made as a string is flattened
 * and encoded again (docs/performance.md "The request log"). The bytes are those pino
 * writes for the same fields with serve's settings (level by name, ISO time, the base
 * bindings), but that a lone surrogate half is escaped (`\ud800`), as JSON.stringify does,
 * where pino writes it raw: a test holds both side by side.
 */
import { isoTime, type LineOutput } from './log-destination.ts';

declare const plainToken: unique symbol;

/**
 * A request id (request-log.ts `requestId`): a client's `X-Request-Id` of `[A-Za-z0-9._:-]`
 * or one this process made, so written without the escape test.
 */
export type RequestId = string & { readonly [plainToken]: true };

/** The fields of one request line, in the order they are written; undefined ones are left out. */
export interface RequestRecord {
  readonly reqId: RequestId;
  readonly client: string | undefined;
  readonly forwardedFor?: string | undefined;
  readonly method: string | undefined;
  readonly path: string;
  readonly op: string | undefined;
  readonly binding: string | undefined;
  readonly status: number;
  readonly outcome: string;
  readonly ms: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export type RequestLine = (record: RequestRecord) => void;

/**
 * A character JSON.stringify may escape (RFC 8259 §7): controls, `"`, `\`, and surrogate
 * halves (escaped when alone; a string with a pair also takes the slow path).
 */
const NEEDS_ESCAPE = /[^\u0020-\u0021\u0023-\u005b\u005d-\ud7ff\ue000-\uffff]/;

/** JSON.stringify of a string, without the call for the common plain case. */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

const NOTHING: Buffer = Buffer.alloc(0);

function optional(name: string, value: string | undefined): Buffer {
  return value === undefined ? NOTHING : Buffer.from(`,"${name}":${quoted(value)}`);
}

/** Most values a field remembers; past this its memory is emptied and starts again. */
const MEMO_VALUES = 256;

/**
 * `format(value)` remembered for the values a field takes: the operation, binding, outcome,
 * method and peer's address are few, and so are the paths (the query string is not logged),
 * and a map lookup costs less than the escape test and the encoding
 * (docs/performance.md "The request log"). Emptied when full, so a client sending many
 * paths costs the escape test, not memory.
 */
function remembered(format: (value: string) => Buffer): (value: string) => Buffer {
  const memo = new Map<string, Buffer>();
  // The last value first: comparing it costs less than the hash a new string (a path cut
  // from each request's URL) needs for the map, and consecutive lines often share it.
  let lastValue: string | undefined;
  let lastField = NOTHING;
  return (value) => {
    if (value === lastValue) return lastField;
    let field = memo.get(value);
    if (field === undefined) {
      field = format(value);
      if (memo.size >= MEMO_VALUES) memo.clear();
      memo.set(value, field);
    }
    lastValue = value;
    lastField = field;
    return field;
  };
}

/**
 * `optional(name, value)` followed by `after` (the constant piece the line has next, so that
 * both are one copy), remembered.
 */
function rememberedField(name: string, after: Buffer = NOTHING): (value: string | undefined) => Buffer {
  const field = remembered((value) => Buffer.concat([optional(name, value), after]));
  return (value) => (value === undefined ? after : field(value));
}

/** The longest JSON a number takes (`-1.2345678901234567e-300`). */
const NUMBER_BYTES = 24;
/** Below this, a count of tenths is exact in a double and `k / 10` prints as its digits. */
const PLAIN_TENTHS = 1e15;

/** `n`, a whole number from 0 to 2^53, as decimal digits at `at`; returns where they end. */
function putDigits(to: Buffer, at: number, n: number): number {
  let end = at + 1;
  for (let rest = n; rest >= 10; rest = Math.floor(rest / 10)) end++;
  for (let i = end - 1, rest = n; i >= at; i--, rest = Math.floor(rest / 10)) to[i] = 48 + (rest % 10);
  return end;
}

/** `value` as JSON.stringify writes it (as pino does: NaN and infinities are `null`). */
function putNumber(to: Buffer, at: number, value: number): number {
  if (Number.isSafeInteger(value) && value >= 0) return putDigits(to, at, value);
  return at + to.write(JSON.stringify(value), at, 'latin1');
}

/** Milliseconds rounded to a tenth (request-log.ts): `12`, `0.4`, `1234.5`. */
function putTenths(to: Buffer, at: number, ms: number): number {
  const tenths = Math.round(ms * 10);
  if (!(tenths >= 0 && tenths < PLAIN_TENTHS && tenths / 10 === ms)) return putNumber(to, at, ms);
  let end = putDigits(to, at, Math.floor(tenths / 10));
  if (tenths % 10 !== 0) {
    to[end++] = 0x2e;
    to[end++] = 48 + (tenths % 10);
  }
  return end;
}

/** `piece` at `at`; returns where it ends. */
function put(to: Buffer, at: number, piece: Buffer): number {
  to.set(piece, at);
  return at + piece.length;
}

/**
 * Writes request lines to `output` as `{"level":"info","time":…,<base>,<fields>,"msg":"request"}`.
 * `base` is pino's `base` option (serve's pid in a cluster worker); `time` its `timestamp`.
 */
export function requestLineWriter(
  output: LineOutput,
  base: Readonly<Record<string, unknown>> | undefined,
  time: () => string = isoTime,
): RequestLine {
  let bindings = '';
  for (const [name, value] of Object.entries(base ?? {})) {
    if (value !== undefined) bindings += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  const OPEN = Buffer.from('{"level":"info"');
  const REQ_ID = Buffer.from(`${bindings},"reqId":"`);
  const PATH = Buffer.from(',"path":');
  const STATUS = Buffer.from(',"status":');
  const MS = Buffer.from(',"ms":');
  const BYTES_IN = Buffer.from(',"bytesIn":');
  const BYTES_OUT = Buffer.from(',"bytesOut":');
  const CLOSE = Buffer.from(',"msg":"request"}\n');
  // The constant pieces not held with a field, the quote after the id, and room for the four
  // numbers. Each other constant piece is one copy with what comes before it: the line's
  // start with the time, `,"path":` with the method, `,"status":` with the binding and
  // `,"ms":` with the outcome (about 20 ns a copy saved).
  const fixed = [BYTES_IN, BYTES_OUT, CLOSE].reduce((n, b) => n + b.length, 0) + 1 + 4 * NUMBER_BYTES;
  const clientField = rememberedField('client');
  const methodField = rememberedField('method', PATH);
  const opField = rememberedField('op');
  const bindingField = rememberedField('binding', STATUS);
  const outcomeField = rememberedField('outcome', MS);
  const pathField = remembered((value) => Buffer.from(quoted(value)));
  let timeText = '';
  /** OPEN, the time and REQ_ID: made again when the time's text changes (once a millisecond). */
  let start = Buffer.concat([OPEN, REQ_ID]);
  // The pieces of the line being written, set before output.append calls fill: no object
  // is made per line.
  let client = NOTHING;
  let forwardedFor = NOTHING;
  let method = NOTHING;
  let path = NOTHING;
  let op = NOTHING;
  let binding = NOTHING;
  let outcome = NOTHING;
  const fill = (to: Buffer, from: number, r: RequestRecord): number => {
    let at = put(to, from, start);
    // A RequestId is ASCII (request-log.ts requestId).
    const id = r.reqId;
    for (let i = 0; i < id.length; i++) to[at++] = id.charCodeAt(i);
    to[at++] = 0x22;
    at = put(to, at, client);
    if (forwardedFor.length > 0) at = put(to, at, forwardedFor);
    at = put(to, at, method);
    at = put(to, at, path);
    at = put(to, at, op);
    at = put(to, at, binding);
    at = putNumber(to, at, r.status);
    at = put(to, at, outcome);
    at = putTenths(to, at, r.ms);
    at = put(to, at, BYTES_IN);
    at = putNumber(to, at, r.bytesIn);
    at = put(to, at, BYTES_OUT);
    at = putNumber(to, at, r.bytesOut);
    return put(to, at, CLOSE);
  };
  return (r) => {
    const now = time();
    if (now !== timeText) {
      timeText = now;
      start = Buffer.concat([OPEN, Buffer.from(now), REQ_ID]);
    }
    client = clientField(r.client);
    forwardedFor = optional('forwardedFor', r.forwardedFor);
    method = methodField(r.method);
    path = pathField(r.path);
    op = opField(r.op);
    binding = bindingField(r.binding);
    outcome = outcomeField(r.outcome);
    const most =
      fixed +
      start.length +
      r.reqId.length +
      client.length +
      forwardedFor.length +
      method.length +
      path.length +
      op.length +
      binding.length +
      outcome.length;
    output.append(most, fill, r);
  };
}
