/**
 * wrk's script for the realistic mix. 50,000 requests are too many to inline as Lua
 * constants (LuaJIT limits a function's constants), so each is written once as the raw
 * bytes wrk sends, in a file read by `init`, and the order in which to send them in another:
 * `request()` then only steps through the order, from where the harness says (MixStream).
 */
import { writeFileSync } from 'node:fs';
import { DONE, luaString, runWrk, type WrkResult } from '../load.ts';
import type { BenchRequest } from '../scenarios.ts';

/** The raw HTTP/1.1 request wrk would send for `r` (wrk.format adds Host and Content-Length the same way). */
export function rawRequest(r: BenchRequest): string {
  const body = r.body ?? '';
  const lines = [`${r.method} ${r.path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(r.headers)) lines.push(`${name}: ${value}`);
  if (r.method === 'POST') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

/** Where a mix's data files are: every request's raw bytes, and one order of them. */
export interface MixFiles {
  readonly requests: string;
  readonly order: string;
}

/** Writes the requests' raw bytes to `requests` (the same for every order). */
export function writeMixRequests(requests: readonly BenchRequest[], file: string): void {
  // A NUL never occurs in a request: it separates them.
  writeFileSync(file, requests.map(rawRequest).join('\0'));
}

/** Writes an order of the requests (0-based indices) as the script reads it. */
export function writeMixOrder(order: Int32Array, file: string): void {
  writeFileSync(file, Array.from(order, (i) => i + 1).join('\n'));
}

/**
 * The script that sends the order's requests from position `start` (0-based) on, round and
 * round: every connection of the thread takes the next.
 */
export function mixScript(files: MixFiles, start: number): string {
  return `local prepared = {}
local order = {}
local position = 0
function init(args)
  local f = assert(io.open(${luaString(files.requests)}, "rb"))
  local data = f:read("*a")
  f:close()
  for piece in string.gmatch(data, "([^%z]+)") do prepared[#prepared + 1] = piece end
  for line in io.lines(${luaString(files.order)}) do order[#order + 1] = tonumber(line) end
  position = ${Math.trunc(start)} % #order
end
function request()
  position = position % #order + 1
  return prepared[order[position]]
end
${DONE}`;
}

/**
 * Draws a run of `connections` takes from the order beyond the requests it reports: wrk
 * calls request() once to check the script before it connects, and each connection may
 * have one request in flight, unanswered, when the run stops.
 */
export function drawsTaken(requests: number, connections: number): number {
  return requests + connections + 1;
}

/**
 * One order as an endless stream: each run starts after every draw the runs before it took,
 * as a server in service sees traffic, instead of sending again what a run just sent, which
 * is an answer cache's best case. (Until 2026-11-29 every run began at one place, LuaJIT's
 * unseeded math.random: a round's measured seconds began with its warm-up's requests, and
 * every round of an order with the same ones.) Past the order's end it comes round to its
 * start, and says so (`wrapped`): from then on it sends its draws again.
 */
export class MixStream {
  private position = 0;
  private wraps = false;

  constructor(
    readonly files: MixFiles,
    private readonly length: number,
  ) {}

  /** Where the next run starts. */
  get at(): number {
    return this.position;
  }

  /** Whether the stream has come round to its start. */
  get wrapped(): boolean {
    return this.wraps;
  }

  /** The script of a run from `start`, by default where the stream is. */
  script(start = this.position): string {
    return mixScript(this.files, start);
  }

  /** Moves the stream on past the draws a run took (drawsTaken). */
  advance(draws: number): void {
    if (this.position + draws >= this.length) this.wraps = true;
    this.position = (this.position + draws) % this.length;
  }
}

/** Where a stretch of a stream is sent: the server, and how wrk loads it. */
export interface StretchTarget {
  readonly url: string;
  readonly pid: number;
  readonly scriptFile: string;
  readonly connections: number;
}

/** One wrk run of `seconds` sending `stream` from draw `from` on: its result, and the draws it took (drawsTaken). */
export async function runStretch(
  target: StretchTarget,
  stream: MixStream,
  from: number,
  seconds: number,
): Promise<{ result: WrkResult; draws: number }> {
  const result = await runWrk({
    url: target.url,
    requests: [],
    script: stream.script(from),
    scriptFile: target.scriptFile,
    connections: target.connections,
    seconds,
    serverPid: target.pid,
  });
  return { result, draws: drawsTaken(result.requests, target.connections) };
}
