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

/** The fields of one request line, in the order they are written; undefined ones are left out. */
export interface RequestRecord {
  readonly reqId: string;
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
  return (r) => {
    output.write(
      `{"level":"info"${time()}${bindings},"reqId":${quoted(r.reqId)}${optional('client', r.client)}${optional('forwardedFor', r.forwardedFor)}${optional('method', r.method)},"path":${quoted(r.path)}${optional('op', r.op)}${optional('binding', r.binding)},"status":${r.status},"outcome":${quoted(r.outcome)},"ms":${r.ms},"bytesIn":${r.bytesIn},"bytesOut":${r.bytesOut},"msg":"request"}\n`,
    );
  };
}
