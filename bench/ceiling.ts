/**
 * The ceiling (issue 7 item 2): a bare `node:http` server that answers each scenario's
 * request with the exact answer our server gave to it — status, headers and body,
 * captured once before measuring — from memory. It parses nothing and looks nothing up
 * beyond choosing the scenario: one Map lookup by the `x-bench-scenario` header (or by
 * method and URL). A request with a body (SOAP) is answered once the body has been read
 * to its end, as any server must; one without (GET) at once. Node adds Date, Connection
 * and Keep-Alive itself, as it does for our server; X-Request-Id is the captured one (same
 * length). Headers are handed to writeHead as one object, node's cheapest path.
 *
 * Run as its own process: `node --import tsx bench/ceiling.ts <captures.json>`; prints
 * `{"url": …}` when it listens. The captures file lists
 * `{name, method, path, status, headers: [name, value, …], bodyFile}`.
 */
import { readFileSync } from 'node:fs';
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import { SCENARIO_HEADER } from './scenarios.ts';

export interface CaptureEntry {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly headers: readonly string[];
  readonly bodyFile: string;
}

/** Headers node:http writes itself on every answer; the captured values are dropped. */
const NODE_ADDS = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

interface Answer {
  readonly status: number;
  /** An object, as node's fastest writeHead path takes it (no setHeader per field). */
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
}

function load(file: string): { byName: Map<string, Answer>; byKey: Map<string, Answer> } {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as CaptureEntry[];
  const byName = new Map<string, Answer>();
  const byKey = new Map<string, Answer>();
  for (const entry of entries) {
    const headers: OutgoingHttpHeaders = {};
    for (let i = 0; i < entry.headers.length; i += 2) {
      const name = entry.headers[i]!;
      if (!NODE_ADDS.has(name.toLowerCase())) headers[name] = entry.headers[i + 1]!;
    }
    const answer: Answer = { status: entry.status, headers, body: readFileSync(entry.bodyFile) };
    byName.set(entry.name, answer);
    byKey.set(`${entry.method} ${entry.path}`, answer);
  }
  return { byName, byKey };
}

const NOT_FOUND = Buffer.from('no such scenario');
const ignore = () => undefined;

function main(): void {
  const { byName, byKey } = load(process.argv[2]!);
  const server = createServer((req, res) => {
    const name = req.headers[SCENARIO_HEADER];
    const answer =
      (typeof name === 'string' ? byName.get(name) : undefined) ?? byKey.get(`${req.method} ${req.url}`);
    const respond = () => {
      if (!answer) {
        res.writeHead(404, { 'content-length': NOT_FOUND.length }).end(NOT_FOUND);
        return;
      }
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    };
    // A request without a body is answered at once; a body is read to its end first.
    if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)
      respond();
    else {
      req.on('data', ignore);
      req.on('end', respond);
    }
  });
  // Our server's transport settings (settings.ts defaults), so connection handling is alike.
  server.keepAliveTimeout = 5000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.once('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
  });
}

main();
