/** The node:http adapter: a server with bounded timeouts around the app's handler. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScoopError } from '../contract/errors.ts';
import { renderHttpError } from '../protocol/faults.ts';
import { type AppOptions, createApp } from './app.ts';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './settings.ts';

export interface RunningServer {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(
  options: AppOptions,
  host: string,
  port: number,
  limits: ServerLimits = DEFAULT_SERVER_LIMITS,
): Promise<RunningServer> {
  const handle = createApp({ ...options, maxHeaders: limits.maxHeaders });
  const server = createServer(
    {
      // Slow clients cannot hold a connection open forever (slowloris).
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        options.logger.error({ err: error }, 'unhandled request failure');
        res.destroy();
      });
    },
  );
  // One more than allowed, so the app sees (and refuses) a request over the limit.
  server.maxHeadersCount = limits.maxHeaders + 1;
  server.maxConnections = limits.maxConnections;
  // Requests node's HTTP parser refuses (RFC 9112 framing errors, both Content-Length and
  // Transfer-Encoding, oversized headers) get the catalogue's small XML body, not a bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const refusal = tooLarge
      ? new ScoopError('HEADERS_TOO_LARGE', 'The request head is too large.')
      : new ScoopError('BAD_REQUEST', 'The HTTP request is malformed.');
    const rendered = renderHttpError(refusal, options.namespace);
    const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
    socket.end(
      `HTTP/1.1 ${status}\r\ncontent-type: ${rendered.contentType}\r\ncontent-length: ${rendered.body.length}\r\nconnection: close\r\n\r\n${rendered.body.toString('utf8')}`,
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
