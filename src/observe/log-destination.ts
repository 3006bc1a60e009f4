/**
 * Where the server's log lines go: standard output, written once per event-loop turn
 * instead of once per line. Under load a turn answers many requests (up to the turn
 * budget, server/turns.ts), and a write(2) per request log line cost about a sixth of the
 * server's time (docs/performance.md "The request log"); gathered, they cost one call per
 * turn. A line is written in the turn it was logged (in setImmediate's phase), so nothing
 * waits on a timer, and anything still held is written when the process exits.
 *
 * When the output is a pipe or a socket, which several workers may share, each write holds
 * whole lines and at most PIPE_BUF bytes, which POSIX makes atomic (write(2)): lines of
 * different workers never interleave inside a line, as with one write per line.
 */
import { fstatSync, writeSync } from 'node:fs';

/** POSIX's PIPE_BUF on Linux: a write to a pipe of at most this many bytes is not interleaved. */
const PIPE_BUF = 4096;
/** Held at most: past this, lines are written before the turn ends. */
const FLUSH_BYTES = 256 * 1024;
/** A reader that does not keep up (a full pipe) is given this long before lines are dropped. */
const RETRY_MS = 10;
const MAX_HELD_BYTES = 16 * 1024 * 1024;

export interface LogDestination {
  write(line: string): void;
  /** Writes every held line now (at exit, or before a fork). */
  flushSync(): void;
  /** Lines dropped because the output did not take them in time (a stalled reader). */
  readonly dropped: number;
}

type Writer = (fd: number, data: Buffer) => number;

export interface LogDestinationOptions {
  /** Each write whole lines of at most PIPE_BUF bytes; by default when `fd` is a pipe or socket. */
  readonly atomicWrites?: boolean;
  /** Tests replace the system call. */
  readonly write?: Writer;
}

export function logDestination(fd: number, options: LogDestinationOptions = {}): LogDestination {
  const atomic = options.atomicWrites ?? isPipeOrSocket(fd);
  const write: Writer = options.write ?? ((target, data) => writeSync(target, data));
  let held: string[] = [];
  /** What the output did not take yet (a full pipe): written first, when tried again. */
  let backlog: Array<string | Buffer> = [];
  let heldBytes = 0;
  let scheduled = false;
  let retrying = false;
  let dropped = 0;

  /** Writes `text` whole; returns what the output would not take yet (EAGAIN), or ''. */
  const writeAll = (text: string | Buffer): string | Buffer => {
    // Encoded once: a write may stop inside a character, so what is left is counted in bytes.
    let rest = typeof text === 'string' ? Buffer.from(text) : text;
    while (rest.length > 0) {
      let written: number;
      try {
        written = write(fd, rest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return rest;
        // A closed or broken output (EPIPE): logging must never stop the server.
        dropped += countLines(rest.toString());
        return '';
      }
      rest = rest.subarray(written);
    }
    return '';
  };

  const flush = (): void => {
    scheduled = false;
    if (retrying) return;
    const pieces =
      held.length === 0 ? backlog : [...backlog, ...(atomic ? atomicPieces(held) : [held.join('')])];
    held = [];
    heldBytes = 0;
    backlog = [];
    for (let i = 0; i < pieces.length; i++) {
      const rest = writeAll(pieces[i]!);
      if (rest.length > 0) {
        backlog = [rest, ...pieces.slice(i + 1)];
        heldBytes = backlog.reduce((n, piece) => n + piece.length, 0);
        retrying = true;
        setTimeout(() => {
          retrying = false;
          flush();
        }, RETRY_MS).unref();
        return;
      }
    }
  };

  process.once('exit', () => {
    retrying = false;
    flush();
  });

  return {
    write(line) {
      if (heldBytes + line.length > MAX_HELD_BYTES) {
        dropped++;
        return;
      }
      held.push(line);
      heldBytes += line.length;
      if (heldBytes >= FLUSH_BYTES) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flushSync() {
      retrying = false;
      flush();
    },
    get dropped() {
      return dropped;
    },
  };
}

function isPipeOrSocket(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Whole lines gathered into pieces of at most PIPE_BUF bytes (a longer line is a piece of its own). */
function atomicPieces(lines: readonly string[]): string[] {
  const pieces: string[] = [];
  let piece = '';
  let bytes = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line);
    if (bytes > 0 && bytes + size > PIPE_BUF) {
      pieces.push(piece);
      piece = '';
      bytes = 0;
    }
    piece += line;
    bytes += size;
  }
  if (bytes > 0) pieces.push(piece);
  return pieces;
}

function countLines(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

let lastMs = -1;
let lastTime = '';

/**
 * pino's `timestamp`: the time as ISO 8601 (docs/operations.md), made once per millisecond
 * rather than once per line: toISOString cost 2.5% of a busy server's time.
 */
export function isoTime(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastTime = `,"time":"${new Date(ms).toISOString()}"`;
  }
  return lastTime;
}
