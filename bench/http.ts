/**
 * One request at a time from the harness itself (not the load generator): capturing an
 * answer whole, and timing a large one to its last byte without keeping it.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import path from 'node:path';
import type { BenchRequest } from './scenarios.ts';

export interface Captured {
  readonly status: number;
  /** As received: [name, value, name, value, …]. */
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** Bytes of the status line and header block as sent (approximate: rebuilt from rawHeaders). */
  readonly headBytes: number;
}

export interface Timed {
  readonly status: number;
  readonly bytes: number;
  /** From the request's start to the last byte of the answer. */
  readonly ms: number;
}

function send<T>(
  base: string,
  req: BenchRequest,
  onResponse: (
    res: import('node:http').IncomingMessage,
    resolve: (value: T) => void,
    reject: (e: Error) => void,
  ) => void,
  shared?: Agent,
): Promise<T> {
  // A keep-alive connection, as the load generator's: the answer carries the same
  // Connection/Keep-Alive headers as under load, so its size is the size under load.
  const agent = shared ?? new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<T>((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string> = { ...req.headers };
    if (body) headers['Content-Length'] = String(body.length);
    const r = request(`${base}${req.path}`, { method: req.method, headers, agent, timeout: 120_000 }, (res) =>
      onResponse(res, resolve, reject),
    );
    r.on('timeout', () => r.destroy(new Error(`no answer from ${base}${req.path} in 120 s`)));
    r.on('error', reject);
    r.end(body);
  }).finally(() => {
    if (!shared) agent.destroy();
  });
}

/** The whole answer, kept (on `agent`'s connections when given, else a connection of its own). */
export function capture(base: string, req: BenchRequest, agent?: Agent): Promise<Captured> {
  return send(
    base,
    req,
    (res, resolve, reject) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const head =
          `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n` +
          res.rawHeaders.map((v, i) => (i % 2 ? `${v}\r\n` : `${v}: `)).join('') +
          '\r\n';
        resolve({
          status: res.statusCode ?? 0,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
          headBytes: Buffer.byteLength(head, 'latin1'),
        });
      });
    },
    agent,
  );
}

/**
 * Every answer of `requests`, `concurrency` at a time on as many keep-alive connections
 * (thousands of requests would otherwise leave as many sockets in TIME_WAIT), each handed to
 * `use` as it comes and not kept.
 */
export async function captureEach(
  base: string,
  requests: readonly BenchRequest[],
  concurrency: number,
  use: (index: number, answer: Captured) => void,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const index = next++;
      use(index, await capture(base, requests[index]!, agent));
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
}

export function header(captured: Captured, name: string): string | undefined {
  for (let i = 0; i < captured.rawHeaders.length; i += 2)
    if (captured.rawHeaders[i]!.toLowerCase() === name) return captured.rawHeaders[i + 1];
  return undefined;
}

/**
 * One request read by this process (node:http), the harness's own client: time from
 * sending to the last byte of the answer.
 */
export function timeToLastByte(base: string, req: BenchRequest): Promise<Timed> {
  const started = performance.now();
  return send(base, req, (res, resolve, reject) => {
    let bytes = 0;
    res.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    res.on('error', reject);
    res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started }));
  });
}

/** A C client's reading of one answer: curl's own timing, and the CPU ticks curl used. */
export interface ClientTimed extends Timed {
  readonly clientTicks: number;
}

/**
 * One request made by curl (a lean C client, so the client is not what limits a large
 * answer's rate), optionally pinned with `pin` (e.g. taskset). The shell that runs it
 * prints curl's CPU ticks after waiting for it (cutime + cstime of /proc/<shell>/stat).
 */
export function curlTimeToLastByte(
  base: string,
  req: BenchRequest,
  work: string,
  pin: readonly string[],
): Promise<ClientTimed> {
  const bodyFile = path.join(work, 'curl-body');
  writeFileSync(bodyFile, req.body ?? '');
  const args = [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{size_download} %{time_total}\n',
    '-X',
    req.method,
  ];
  for (const [name, value] of Object.entries(req.headers)) args.push('-H', `${name}: ${value}`);
  if (req.body !== undefined) args.push('--data-binary', `@${bodyFile}`);
  args.push(`${base}${req.path}`);
  const quoted = [...pin, 'curl', ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const script = `${quoted}; awk '{print $16 + $17}' /proc/$$/stat`;
  return new Promise((resolve, reject) => {
    execFile('sh', ['-c', script], { timeout: 120_000 }, (error, stdout) => {
      if (error) return reject(error);
      const [line = '', ticks = ''] = stdout.trim().split('\n');
      const [status, bytes, seconds] = line.split(' ').map(Number);
      resolve({ status: status!, bytes: bytes!, ms: seconds! * 1000, clientTicks: Number(ticks) });
    });
  });
}
