/**
 * One observation per request: an id (the client's `X-Request-Id` when it is a sane
 * token, else a new UUID) echoed in the answer, one structured log line when the answer
 * is done, and the request metrics. Only the path is logged, never the query string or
 * the body, so tokens and e-mail addresses never reach the log.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface Observation {
  readonly id: string;
  operation: string | undefined;
  binding: string | undefined;
  /** `ok` or the catalogue code of the refusal. */
  outcome: string;
  bytesIn: number;
}

export interface Observer {
  start(req: IncomingMessage, res: ServerResponse, path: string): Observation;
}

export function requestId(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && SANE_ID.test(value) ? value : randomUUID();
}

export function createObserver(logger: Logger, metrics: Metrics | undefined): Observer {
  return {
    start(req, res, path) {
      const started = process.hrtime.bigint();
      const observation: Observation = {
        id: requestId(req.headers['x-request-id']),
        operation: undefined,
        binding: undefined,
        outcome: 'ok',
        bytesIn: 0,
      };
      res.setHeader('x-request-id', observation.id);
      metrics?.inFlight.inc();
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const bytesOut = Number(res.getHeader('content-length') ?? 0);
        const operation = observation.operation ?? '-';
        const binding = observation.binding ?? '-';
        const outcome =
          res.writableFinished || observation.outcome !== 'ok' ? observation.outcome : 'aborted';
        if (metrics) {
          metrics.inFlight.dec();
          metrics.requests.inc({ operation, binding, outcome });
          metrics.duration.observe({ operation, binding }, seconds);
          metrics.requestBytes.observe({ binding }, observation.bytesIn);
          metrics.responseBytes.observe({ binding }, bytesOut);
        }
        logger.info(
          {
            reqId: observation.id,
            method: req.method,
            path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
            op: observation.operation,
            binding: observation.binding,
            status: res.statusCode,
            outcome,
            ms: Math.round(seconds * 1e4) / 10,
            bytesIn: observation.bytesIn,
            bytesOut,
          },
          'request',
        );
      };
      res.once('finish', finish);
      res.once('close', finish);
      return observation;
    },
  };
}
