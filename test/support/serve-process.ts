/**
 * `scoop serve` (or a cluster of it) as child processes, as an operator runs it: each
 * JSON log line on stdout is kept, so a test can wait for a line (the listening URL, a
 * worker being replaced) and count per-request lines. `serveProcesses()` registers an
 * `after` hook that kills, by pid, whatever it started and is still running, workers of
 * a cluster included, so a test file leaves no process behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { after } from 'node:test';
import { scoopArgs } from '../../bench/node-flags.ts';

export type LogLine = Readonly<Record<string, unknown>>;

export interface ServeProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Every JSON line of stdout so far. */
  readonly lines: LogLine[];
  stderr(): string;
  /** The first line, seen or still to come, that `pick` accepts. */
  line(pick: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  /** The exit code (null when ended by a signal). */
  readonly exited: Promise<number | null>;
}

export interface Serves {
  start(args: readonly string[], env?: Readonly<Record<string, string>>): ServeProcess;
}

/** Whether pid is a live scoop process (so a recycled pid is never killed). */
function isScoop(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('scoop.js');
  } catch {
    return false;
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return isScoop(pid);
  } catch {
    return false;
  }
}

export function serveProcesses(): Serves {
  const pids = new Set<number>();
  after(() => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  return {
    start(args, env = {}) {
      const child = spawn(process.execPath, scoopArgs(['serve', ...args]), {
        env: { ...process.env, SCOOP_ADMIN_PORT: 'off', SCOOP_LOG_LEVEL: 'info', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      pids.add(child.pid!);
      const lines: LogLine[] = [];
      const waiting = new Set<(line: LogLine) => void>();
      let partial = '';
      let errors = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        errors += text;
      });
      child.stdout!.setEncoding('utf8').on('data', (text: string) => {
        const parts = (partial + text).split('\n');
        partial = parts.pop()!;
        for (const part of parts) {
          let line: LogLine;
          try {
            line = JSON.parse(part) as LogLine;
          } catch {
            continue;
          }
          lines.push(line);
          // Workers of a cluster: known from their log lines, killed in `after` too.
          for (const pid of [line.pid, line.worker]) if (typeof pid === 'number') pids.add(pid);
          for (const notify of waiting) notify(line);
        }
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const line = (pick: (line: LogLine) => boolean, timeoutMs = 20_000) => {
        const seen = lines.find(pick);
        if (seen) return Promise.resolve(seen);
        return new Promise<LogLine>((resolve, reject) => {
          const notify = (candidate: LogLine) => {
            if (!pick(candidate)) return;
            clearTimeout(timer);
            waiting.delete(notify);
            resolve(candidate);
          };
          const timer = setTimeout(() => {
            waiting.delete(notify);
            reject(new Error(`no such log line in ${timeoutMs} ms; stderr: ${errors}`));
          }, timeoutMs);
          waiting.add(notify);
        });
      };
      return { child, pid: child.pid!, lines, stderr: () => errors, line, exited };
    },
  };
}

/** Resolves once `condition()` holds (checked every 20 ms); rejects after `timeoutMs`. */
export async function eventually(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The "scoop listening" line's URL (of a cluster primary when `workers` is given). */
export async function listeningUrl(serve: ServeProcess, workers?: number): Promise<LogLine> {
  return serve.line((l) => typeof l.url === 'string' && (workers === undefined || l.workers === workers));
}

export interface Answer {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** A GET on a connection of its own (no keep-alive), so a cluster spreads them; no retries. */
export function getFresh(
  url: string,
  headers: Readonly<Record<string, string>> = {},
  timeoutMs = 2000,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}
