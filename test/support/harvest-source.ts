/**
 * A source for harvest tests: an HTTP server in front of a scoop fixture that passes
 * requests on, unless the test's `behave` says otherwise for a request — answer something
 * else, rewrite the answer, reset the connection, or wait first. It records every request
 * with its operation and id (read from the SOAP body) and the most requests it had in flight.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SourceRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** The SOAP body's operation element and its first parameter's value. */
  readonly operation: string | undefined;
  readonly id: string | undefined;
  readonly at: number;
}

export type Behaviour =
  | 'pass'
  | 'reset'
  | { readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body: string }
  | { readonly rewrite: (body: string) => string }
  | { readonly delayMs: number };

export interface Source {
  readonly url: string;
  readonly requests: SourceRequest[];
  /** The most requests in flight at once so far. */
  readonly maxInFlight: () => number;
  /** Requests whose operation and id are these. */
  count(operation: string, id?: string): number;
  close(): Promise<void>;
}

export async function startSource(
  target: string,
  behave: (request: SourceRequest, nth: number) => Behaviour = () => 'pass',
): Promise<Source> {
  const requests: SourceRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const targetUrl = new URL(target);
  const server = http.createServer(async (req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks).toString('utf8');
    const call = /<soap:Body><(\w+) [^>]*>(?:<\w+>([^<]*)<)?/.exec(body);
    const request: SourceRequest = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      body,
      operation: call?.[1],
      id: call?.[2],
      at: performance.now(),
    };
    requests.push(request);
    const nth = requests.filter((r) => r.operation === request.operation && r.id === request.id).length;
    let behaviour = behave(request, nth);
    if (typeof behaviour === 'object' && 'delayMs' in behaviour) {
      const { delayMs } = behaviour;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      behaviour = 'pass';
    }
    if (behaviour === 'reset') {
      req.socket.destroy();
      return;
    }
    if (typeof behaviour === 'object' && 'status' in behaviour) {
      res.writeHead(behaviour.status, { 'content-type': 'text/xml; charset=utf-8', ...behaviour.headers });
      res.end(behaviour.body);
      return;
    }
    const rewrite = typeof behaviour === 'object' && 'rewrite' in behaviour ? behaviour.rewrite : undefined;
    const upstream = http.request(
      {
        hostname: targetUrl.hostname,
        port: targetUrl.port,
        method: request.method,
        path: request.path,
        headers: { ...req.headers, host: targetUrl.host, 'content-length': String(Buffer.byteLength(body)) },
      },
      async (answer) => {
        if (!rewrite) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        const parts: Buffer[] = [];
        for await (const chunk of answer) parts.push(chunk);
        const text = rewrite(Buffer.concat(parts).toString('utf8'));
        const headers = { ...answer.headers, 'content-length': String(Buffer.byteLength(text)) };
        res.writeHead(answer.statusCode ?? 502, headers);
        res.end(text);
      },
    );
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    maxInFlight: () => maxInFlight,
    count: (operation, id) =>
      requests.filter((r) => r.operation === operation && (id === undefined || r.id === id)).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The SOAP 1.1 fault body an original sends, with the given code and string. */
export function soapFault(faultcode: string, faultstring: string): string {
  return (
    '<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">' +
    `<soap:Body><soap:Fault><faultcode>${faultcode}</faultcode><faultstring>${faultstring}</faultstring><detail /></soap:Fault></soap:Body></soap:Envelope>`
  );
}
