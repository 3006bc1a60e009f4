/**
 * One observation per request: an id (the client's `X-Request-Id` when it is a sane
 * token, else a new UUID) that every answer echoes (the app puts it in the head it writes,
 * so node takes its one-object writeHead path), one structured log line when the answer
 * is done, and the request metrics. Only the path is logged, never the query string or
 * the body, so tokens and e-mail addresses never reach the log.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';
import type { RequestId, RequestLine } from './request-line.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Observation {
  readonly id: RequestId;
  operation: string | undefined;
  binding: string | undefined;
  /** `ok` or the catalogue code of the refusal. */
  outcome: string;
  bytesIn: number;
  /** The declared length of the answer's body, set by whoever writes its head. */
  bytesOut: number;
}

/** What is observed of a request: the parts node's IncomingMessage has that the log line uses. */
export interface ObservedRequest {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly socket: { readonly remoteAddress?: string | undefined };
}

/** What is observed of its answer: a ServerResponse's status, and its one 'close'. */
export interface ObservedResponse {
  readonly statusCode: number;
  readonly writableFinished: boolean;
  on(event: 'close', listener: () => void): unknown;
}

export interface Observer {
  /** `arrivedAt` (performance.now()), when the request arrived before it was started. */
  start(req: ObservedRequest, res: ObservedResponse, path: string, arrivedAt?: number): Observation;
}

/** A refusal the HTTP server wrote itself, for a request node's parser or timers refused. */
export interface TransportRefusal {
  readonly id: RequestId;
  readonly status: number;
  /** The catalogue code. */
  readonly outcome: string;
  readonly bytesOut: number;
  /** Node's reason (an llhttp error code, ERR_HTTP_REQUEST_TIMEOUT), for the log only. */
  readonly reason: string | undefined;
  /** The peer's address. */
  readonly client: string | undefined;
}

/**
 * Requests the app was already handling when the server refused them (a body that took too
 * long, a bad chunk): their log line and metrics say what the client got, not the app's
 * view of a body that broke off.
 */
const refusedInFlight = new WeakMap<ObservedResponse, TransportRefusal>();

/**
 * Ids this process makes, shaped like a UUID: the first four groups of a random UUID per
 * process and a counter as the last, so unique across processes and restarts without
 * drawing random bytes per request. The counter is 12 hex digits counted up in place in
 * this buffer and copied out as one flat string: joining a padded number to the prefix
 * cost 3% of a small cached answer's CPU (docs/performance.md, "The twenty-sixth round").
 * It comes round to zero after 16^12 ids.
 */
const ID_PREFIX = randomUUID().slice(0, 24);
const nextId = Buffer.from(`${ID_PREFIX}000000000000`, 'latin1');

/** Counts the lowercase hex digits of `bytes` from `from` on up by one; all 'f' become all '0'. */
export function countUp(bytes: Uint8Array, from: number): void {
  for (let i = bytes.length - 1; i >= from; i--) {
    const digit = bytes[i]!;
    if (digit === 0x66) {
      // 'f': carry into the digit before.
      bytes[i] = 0x30;
      continue;
    }
    // '9' is followed by 'a', any other digit by the next character.
    bytes[i] = digit === 0x39 ? 0x61 : digit + 1;
    return;
  }
}

function issueId(): RequestId {
  countUp(nextId, ID_PREFIX.length);
  return nextId.toString('latin1') as RequestId;
}

export function requestId(header: string | string[] | undefined): RequestId {
  const value = Array.isArray(header) ? header[0] : header;
  if (value !== undefined && SANE_ID.test(value)) return value as RequestId;
  return issueId();
}

/** The X-Forwarded-For a trusted proxy sent, as it came (at most 200 characters). */
function forwardedFor(req: ObservedRequest): string | undefined {
  const value = req.headers['x-forwarded-for'];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined ? undefined : text.slice(0, 200);
}

export interface ObserverOptions {
  /** The request log also names the address a trusted proxy forwarded for. */
  readonly trustProxy?: boolean;
  /**
   * Writes the request lines (serve's is request-line.ts); by default `logger.info`. Absent
   * with a logger above `info`: no line is built.
   */
  readonly requestLine?: RequestLine | undefined;
}

export function createObserver(
  logger: Logger,
  metrics: Metrics | undefined,
  options: ObserverOptions = {},
): Observer {
  const trustProxy = options.trustProxy ?? false;
  const requestLine: RequestLine | undefined =
    options.requestLine ??
    (logger.isLevelEnabled('info') ? (record) => logger.info(record, 'request') : undefined);
  // Series handles resolved once per label combination (see fast-metrics.ts), found by
  // constant label strings whose hashes V8 keeps: no key is built per request.
  const handles = new Map<string, Map<string, Map<string, ReturnType<typeof seriesFor>>>>();
  const seriesFor = (m: Metrics, operation: string, binding: string, outcome: string) => ({
    requests: m.requests.series(operation, binding, outcome),
    duration: m.duration.series(operation, binding),
    requestBytes: m.requestBytes.series(binding),
    responseBytes: m.responseBytes.series(binding),
  });
  return {
    start(req, res, path, arrivedAt) {
      const started = arrivedAt ?? performance.now();
      const observation: Observation = {
        id: requestId(req.headers['x-request-id']),
        operation: undefined,
        binding: undefined,
        outcome: 'ok',
        bytesIn: 0,
        bytesOut: 0,
      };
      if (metrics) metrics.inFlight++;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const seconds = (performance.now() - started) / 1000;
        const refusal = refusedInFlight.get(res);
        const bytesOut = refusal?.bytesOut ?? observation.bytesOut;
        const operation = observation.operation ?? '-';
        const binding = observation.binding ?? '-';
        const outcome =
          refusal?.outcome ??
          (res.writableFinished || observation.outcome !== 'ok' ? observation.outcome : 'aborted');
        if (metrics) {
          metrics.inFlight--;
          let byBinding = handles.get(operation);
          if (!byBinding) {
            byBinding = new Map();
            handles.set(operation, byBinding);
          }
          let byOutcome = byBinding.get(binding);
          if (!byOutcome) {
            byOutcome = new Map();
            byBinding.set(binding, byOutcome);
          }
          let series = byOutcome.get(outcome);
          if (!series) {
            series = seriesFor(metrics, operation, binding, outcome);
            byOutcome.set(outcome, series);
          }
          series.requests.inc();
          series.duration.observe(seconds);
          series.requestBytes.observe(observation.bytesIn);
          series.responseBytes.observe(bytesOut);
        }
        // The line is built only when it will be written (SCOOP_LOG_LEVEL=warn skips it).
        requestLine?.({
          reqId: observation.id,
          client: req.socket.remoteAddress,
          forwardedFor: trustProxy ? forwardedFor(req) : undefined,
          method: req.method,
          path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
          op: observation.operation,
          binding: observation.binding,
          status: refusal?.status ?? res.statusCode,
          outcome,
          ms: Math.round(seconds * 1e4) / 10,
          bytesIn: observation.bytesIn,
          bytesOut,
        });
      };
      // A response emits 'close' once, whether it finished or the client went away.
      res.on('close', finish);
      return observation;
    },
  };
}

/**
 * Logs and counts a refusal the HTTP server wrote itself. With `inFlight`, the app holds
 * the request and its own observation logs it, with this outcome; without, the request
 * never reached the app, and this is its only log line (no method or path: the parser
 * refused the head).
 */
export function observeTransportRefusal(
  logger: Logger,
  metrics: Metrics | undefined,
  refusal: TransportRefusal,
  inFlight: ObservedResponse | undefined,
): void {
  if (inFlight) {
    refusedInFlight.set(inFlight, refusal);
    return;
  }
  metrics?.requests.series('-', '-', refusal.outcome).inc();
  metrics?.responseBytes.series('-').observe(refusal.bytesOut);
  logger.info(
    {
      reqId: refusal.id,
      client: refusal.client,
      status: refusal.status,
      outcome: refusal.outcome,
      reason: refusal.reason,
      bytesIn: 0,
      bytesOut: refusal.bytesOut,
    },
    'request',
  );
}
