/** The node:http adapter: a server with bounded timeouts around the app's handler. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScoopError } from '../contract/errors.ts';
import { renderHttpError } from '../protocol/faults.ts';
import { type AppOptions, createApp } from './app.ts';

export interface RunningServer {
  readonly server: Server;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(options: AppOptions, host: string, port: number): Promise<RunningServer> {
  const handle = createApp(options);
  const server = createServer(
    {
      // Slow clients cannot hold a connection open forever (slowloris).
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      maxHeaderSize: 16 * 1024,
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        options.logger.error({ err: error }, 'unhandled request failure');
        res.destroy();
      });
    },
  );
  server.maxHeadersCount = 64;
  // Requests node's HTTP parser refuses (RFC 9112 framing errors, both Content-Length and
  // Transfer-Encoding, oversized headers) get the catalogue's small XML body, not a bare 400.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const rendered = renderHttpError(
      new ScoopError(
        'BAD_REQUEST',
        tooLarge ? 'The request headers are too large.' : 'The HTTP request is malformed.',
      ),
      options.namespace,
    );
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
