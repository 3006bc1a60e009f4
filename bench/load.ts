/**
 * The load generator: Debian's `wrk` (C, event loop per thread), installed through
 * scripts/ensure-debian-packages.sh. On this 2-core machine a Node-based generator would
 * compete with the server for CPU far more than wrk's one thread does.
 *
 * Each run gets a generated Lua script: one fixed request (method, headers, body set once,
 * so wrk sends a prebuilt request with no Lua per request), or a round-robin list of
 * requests for a mix. `done()` prints one machine-readable line with wrk's exact counters;
 * the latency percentiles are parsed from wrk's `--latency` output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { type CpuShare, CpuWatch, pinned } from './processes.ts';
import type { BenchRequest } from './scenarios.ts';

export interface WrkErrors {
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly timeout: number;
  /** Answers with a status outside 2xx/3xx. */
  readonly status: number;
  /** Answers other than 200 (counted in Lua; only when `countStatuses`). */
  readonly non200: number;
  /** Bytes read do not fit `expectedBytes` per answer (an answer of another size came back). */
  readonly size: number;
}

export interface WrkResult {
  readonly requests: number;
  readonly seconds: number;
  readonly rps: number;
  readonly bytes: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly errors: WrkErrors;
  /** Sum of all error counts; a run with any is failed. */
  readonly errorCount: number;
  /** Cores used on average by the server, wrk and anything else during the run. */
  readonly cpu: CpuShare;
  readonly raw: string;
}

export interface WrkOptions {
  /** http://127.0.0.1:port */
  readonly url: string;
  /** One request, or a mix sent round-robin. */
  readonly requests: readonly BenchRequest[];
  /** A script of the caller's own instead (bench/mix: requests read from files); `requests` then unused. */
  readonly script?: string;
  readonly connections: number;
  readonly seconds: number;
  readonly threads?: number;
  readonly timeoutSeconds?: number;
  /** Count non-200 answers in Lua (slower: wrk then parses every answer for the script). */
  readonly countStatuses?: boolean;
  /** Size of each answer on the wire (head + body), when all are the same; checked against bytes read. */
  readonly expectedBytes?: number;
  /** Raise the soft fd limit of wrk's shell (many connections). */
  readonly fdLimit?: number;
  /** Where to write the Lua script. */
  readonly scriptFile: string;
  /** The measured server's pid, for the CPU shares. */
  readonly serverPid?: number;
  /** Each connection waits this long before each request (0: as fast as answers come). */
  readonly delayMs?: number;
}

/** Installs wrk when missing (Debian package, root only) and returns its version line. */
export function ensureWrk(): string {
  const run = spawnSync('bash', ['scripts/ensure-debian-packages.sh', 'wrk'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`wrk is not available and could not be installed: ${run.stderr}`);
  const version = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  const line = `${version.stdout}${version.stderr}`.split('\n')[0]!.trim();
  // "wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer" → "wrk debian/4.1.0-3+b2 [epoll]"
  return line.replace(/\s*Copyright.*$/, '');
}

/** A Lua string literal of any bytes: printable ASCII as is, the rest as decimal escapes. */
export function luaString(text: string): string {
  let out = '"';
  for (const byte of Buffer.from(text, 'utf8')) {
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c) out += String.fromCharCode(byte);
    else out += `\\${byte.toString().padStart(3, '0')}`;
  }
  return `${out}"`;
}

function luaHeaders(headers: Readonly<Record<string, string>>): string {
  return `{${Object.entries(headers)
    .map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`)
    .join(', ')}}`;
}

export const DONE = `
local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_number", #threads)
end
function done(summary, latency, requests)
  local non200 = 0
  for _, t in ipairs(threads) do non200 = non200 + (t:get("non200") or 0) end
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"bytes":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"non200":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\\n',
    summary.requests, summary.bytes, summary.duration, e.connect, e.read, e.write, e.status, e.timeout, non200,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`;

export function luaScript(
  requests: readonly BenchRequest[],
  countStatuses: boolean,
  delayMs = 0,
  threads = 1,
): string {
  // wrk waits delay() ms before each request on a connection: clients with think time, not a closed loop.
  const pacing = delayMs > 0 ? `function delay() return ${Math.round(delayMs)} end\n` : '';
  const counting = countStatuses
    ? `non200 = 0
function response(status, headers, body) if status ~= 200 then non200 = non200 + 1 end end
`
    : '';
  if (requests.length === 1) {
    const r = requests[0]!;
    return `wrk.method = ${luaString(r.method)}
wrk.path = ${luaString(r.path)}
wrk.headers = ${luaHeaders(r.headers)}
${r.body === undefined ? '' : `wrk.body = ${luaString(r.body)}\n`}${pacing}${counting}${DONE}`;
  }
  const formats = requests
    .map(
      (r, i) =>
        `  prepared[${i + 1}] = wrk.format(${luaString(r.method)}, ${luaString(r.path)}, ${luaHeaders(r.headers)}, ${
          r.body === undefined ? 'nil' : luaString(r.body)
        })`,
    )
    .join('\n');
  // Each thread starts at its own place in the list (thread_number, set by setup in DONE), the
  // same on every run and for every server: LuaJIT's math.random is not seeded, so a random
  // start was one place for all (docs/performance.md, "The twenty-fourth round").
  return `local prepared = {}
local next_index = 0
function init(args)
${formats}
  next_index = ((thread_number or 1) - 1) * ${Math.max(1, Math.floor(requests.length / threads))} % #prepared
end
function request()
  next_index = next_index % #prepared + 1
  return prepared[next_index]
end
${pacing}${counting}${DONE}`;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `50%  208.00us` lines of `--latency` output → ms. */
export function parseLatency(text: string): Map<number, number> {
  const found = new Map<number, number>();
  const block = text.split('Latency Distribution')[1] ?? '';
  for (const match of block.matchAll(/^\s+(\d+)%\s+([\d.]+)(us|ms|s|m|h)\s*$/gm)) {
    found.set(Number(match[1]), Number(match[2]) * UNIT_MS[match[3]!]!);
  }
  return found;
}

interface DoneLine {
  requests: number;
  bytes: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  non200: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const threads = options.threads ?? 1;
  writeFileSync(
    options.scriptFile,
    options.script ?? luaScript(options.requests, options.countStatuses ?? false, options.delayMs, threads),
  );
  const args = [
    `-t${threads}`,
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    `--timeout`,
    `${options.timeoutSeconds ?? 10}s`,
    '--latency',
    '-s',
    options.scriptFile,
    `${options.url}/`,
  ];
  const watch = new CpuWatch(options.serverPid);
  const command = [...pinned('generator'), 'wrk', ...args];
  const child =
    options.fdLimit === undefined
      ? spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -n ${options.fdLimit} && exec "$0" "$@"`, ...command], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (t: string) => {
    out += t;
  });
  child.stderr.setEncoding('utf8').on('data', (t: string) => {
    err += t;
  });
  watch.generator(child.pid!);
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  const cpu = watch.stop();
  const json = /^WRK_JSON (.*)$/m.exec(out);
  if (code !== 0 || !json) throw new Error(`wrk failed (${code}): ${err}${out}`);
  const done = JSON.parse(json[1]!) as DoneLine;
  const latency = parseLatency(out);
  const seconds = done.durationUs / 1e6;
  let size = 0;
  if (options.expectedBytes !== undefined && done.requests > 0) {
    // Answers still being read when time ran out add bytes without requests: at most one per connection.
    const low = done.requests * options.expectedBytes;
    const high = low + options.connections * options.expectedBytes;
    if (done.bytes < low || done.bytes > high) size = 1;
  }
  const errors: WrkErrors = {
    connect: done.connect,
    read: done.read,
    write: done.write,
    timeout: done.timeout,
    status: done.status,
    non200: done.non200,
    size,
  };
  return {
    requests: done.requests,
    seconds,
    rps: done.requests / seconds,
    bytes: done.bytes,
    p50Ms: latency.get(50) ?? done.p50Us / 1000,
    p90Ms: latency.get(90) ?? Number.NaN,
    p99Ms: latency.get(99) ?? done.p99Us / 1000,
    maxMs: done.maxUs / 1000,
    errors,
    errorCount: Object.values(errors).reduce((a, b) => a + b, 0),
    cpu,
    raw: out,
  };
}
