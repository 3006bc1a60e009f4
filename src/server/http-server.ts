/** The node:http adapter: a server with bounded timeouts around the app's handler. */
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ScoopError } from '../contract/errors.ts';
import { observeTransportRefusal, requestId } from '../observe/request-log.ts';
import { renderHttpError } from '../protocol/faults.ts';
import { type AppOptions, createApp } from './app.ts';
import { closeInStages } from './lingering-close.ts';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './settings.ts';
import { turns } from './turns.ts';

export interface RunningServer {
  readonly server: Server;
  readonly url: string;
  /**
   * Stops accepting connections, lets requests in flight finish (each answer then closes
   * its connection), and after `timeoutMs` cuts whatever is still open.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * Writes a catalogue refusal straight to a socket the app never sees, and closes it;
 * returns the body's length.
 */
function refuseOnSocket(
  socket: Duplex,
  error: ScoopError,
  namespace: string,
  headers: Readonly<Record<string, string>> = {},
): number {
  const rendered = renderHttpError(error, namespace);
  const fields = {
    'content-type': rendered.contentType,
    'content-length': String(rendered.body.length),
    ...headers,
    connection: 'close',
  };
  const head = Object.entries(fields)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  const status = `${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}`;
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${head}\r\n`, 'latin1'), rendered.body]));
  return rendered.body.length;
}

/** The catalogue's name for what node's parser or its timers refused. */
function transportRefusal(error: NodeJS.ErrnoException): ScoopError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new ScoopError('HEADERS_TOO_LARGE', 'The request head is too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ScoopError('REQUEST_TIMEOUT', 'The request was not received in time.');
    default:
      return new ScoopError('BAD_REQUEST', 'The HTTP request is malformed.');
  }
}

/**
 * How often node looks for requests past headersTimeout or requestTimeout. Its default
 * (30 s) would let a slow client hold a connection up to 30 s beyond either limit; this
 * cuts it within a second of it, or sooner when a limit is shorter.
 */
export function checkingIntervalMs(limits: ServerLimits): number {
  return Math.max(10, Math.min(1000, limits.headersTimeoutMs, limits.requestTimeoutMs));
}

export async function startServer(
  options: AppOptions,
  host: string,
  port: number,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Promise<RunningServer> {
  const handle = createApp({
    ...options,
    maxHeaders: limits.maxHeaders,
    // The kernel is handed node's own requests (onRequest), so its request is an IncomingMessage.
    afterRefusedUpload: (req) => closeInStages((req as IncomingMessage).socket),
  });
  const turn = turns(limits.turnBudgetMs);
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (turn.runsNow()) handle(req, res);
    else {
      const arrived = performance.now();
      turn.later(() => handle(req, res, arrived));
    }
  };
  const server = createServer(
    {
      // Slow clients cannot hold a connection open forever (slowloris).
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(limits),
      maxHeaderSize: limits.maxHeaderBytes,
      // request-headers.ts makes the RFC 9112 §3.2 Host check, answering with the catalogue body.
      requireHostHeader: false,
    },
    onRequest,
  );
  // An Expect other than 100-continue: node would answer a bare 417; the app refuses it
  // (request-headers.ts) with the catalogue's body instead.
  server.on('checkExpectation', onRequest);
  // CONNECT (RFC 9110 §9.3.6) asks for a tunnel, which an origin server does not offer; without
  // a listener node drops the connection without an answer.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const refusal = new ScoopError('METHOD_NOT_ALLOWED', 'The method CONNECT is not allowed here.');
    refuseOnSocket(socket, refusal, options.namespace, { allow: 'GET, HEAD, POST' });
  });
  // One more than allowed, so the app sees (and refuses) a request over the limit.
  server.maxHeadersCount = limits.maxHeaders + 1;
  server.maxConnections = limits.maxConnections;
  // Requests node's HTTP parser refuses (RFC 9112 framing errors, both Content-Length and
  // Transfer-Encoding, oversized headers) get the catalogue's small XML body, not a bare 400;
  // so does a request too slow to arrive (408). A framing error in a body (a bad chunk size,
  // RFC 9112 §7.1; an unknown transfer coding) or a body that takes too long comes while the
  // app already holds the request: as node's own default does, the refusal is still written
  // unless a response has begun. Each refusal written is logged and counted as a request.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const refusal = transportRefusal(error);
    const id = requestId(undefined);
    const bytesOut = refuseOnSocket(socket, refusal, options.namespace, { 'x-request-id': id });
    observeTransportRefusal(
      options.logger,
      options.metrics,
      {
        id,
        status: refusal.spec.status,
        outcome: refusal.code,
        bytesOut,
        reason: error.code,
        client: (socket as Socket).remoteAddress,
      },
      inFlight,
    );
  });
  // Connections beyond SCOOP_MAX_CONNECTIONS are closed by node at once, unanswered.
  server.on('drop', () => {
    options.metrics?.connectionsDropped.series().inc();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: limits.listenBacklog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: (timeoutMs = limits.shutdownTimeoutMs) =>
      new Promise<void>((resolve) => {
        handle.drain();
        const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
