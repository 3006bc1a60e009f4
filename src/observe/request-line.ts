/**
 * The request log's line, written without pino's generic serializer. A request line has
 * fixed fields, so it is put together as one template string; pino walks the object, asks
 * each value's type and runs its hooks, which cost about two thirds of a line's time
 * (docs/performance.md "The request log"). The bytes are those pino writes for the same
 * fields with serve's settings (level by name, ISO time, the base bindings), but that a
 * lone surrogate half is escaped (`\ud800`), as JSON.stringify does, where pino writes it
 * raw: a test holds both side by side.
 */
import { isoTime } from './log-destination.ts';

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

function optional(name: string, value: string | undefined): string {
  return value === undefined ? '' : `,"${name}":${quoted(value)}`;
}

/** Most values a field remembers; past this its memory is emptied and starts again. */
const MEMO_VALUES = 256;

/**
 * `format(value)` remembered for the values a field takes: the operation, binding, outcome,
 * method and peer's address are few, and so are the paths (the query string is not logged),
 * and a map lookup costs less than the escape test and the concatenation
 * (docs/performance.md "The request log"). Emptied when full, so a client sending many
 * paths costs the escape test, not memory.
 */
function remembered(format: (value: string) => string): (value: string) => string {
  const memo = new Map<string, string>();
  return (value) => {
    let field = memo.get(value);
    if (field === undefined) {
      field = format(value);
      if (memo.size >= MEMO_VALUES) memo.clear();
      memo.set(value, field);
    }
    return field;
  };
}

/** `optional(name, value)`, remembered. */
function rememberedField(name: string): (value: string | undefined) => string {
  const field = remembered((value) => optional(name, value));
  return (value) => (value === undefined ? '' : field(value));
}

/**
 * Writes request lines to `output` as `{"level":"info","time":…,<base>,<fields>,"msg":"request"}`.
 * `base` is pino's `base` option (serve's pid in a cluster worker); `time` its `timestamp`.
 */
export function requestLineWriter(
  output: { write(line: string): void },
  base: Readonly<Record<string, unknown>> | undefined,
  time: () => string = isoTime,
): RequestLine {
  let bindings = '';
  for (const [name, value] of Object.entries(base ?? {})) {
    if (value !== undefined) bindings += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  const client = rememberedField('client');
  const method = rememberedField('method');
  const op = rememberedField('op');
  const binding = rememberedField('binding');
  const outcome = rememberedField('outcome');
  const path = remembered(quoted);
  return (r) => {
    output.write(
      `{"level":"info"${time()}${bindings},"reqId":"${r.reqId}"${client(r.client)}${optional('forwardedFor', r.forwardedFor)}${method(r.method)},"path":${path(r.path)}${op(r.op)}${binding(r.binding)},"status":${r.status}${outcome(r.outcome)},"ms":${r.ms},"bytesIn":${r.bytesIn},"bytesOut":${r.bytesOut},"msg":"request"}\n`,
    );
  };
}
