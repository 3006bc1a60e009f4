/**
 * A TCP proxy on 127.0.0.1 in front of a server on this machine, to take a database
 * "away" and bring it back: `stop()` cuts every connection and refuses new ones,
 * `start()` listens again on the same port.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function tcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const start = async () => {
    const listening = createServer((client) => {
      const upstream = createConnection({ host: targetHost, port: targetPort });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    const address = listening.address();
    if (address && typeof address === 'object') port = address.port;
    server = listening;
  };
  await start();
  return {
    get port() {
      return port;
    },
    start,
    async stop() {
      const closing = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
  };
}
