/**
 * Where the server's log lines go: standard output, gathered and written within GATHER_MS
 * of being logged instead of once per line. Under load a write(2) per request log line cost
 * about a sixth of the server's time, one per event-loop turn (up to the turn budget,
 * server/turns.ts) still several percent, and most of what is left is per call
 * (docs/performance.md "The request log"). Lines are written GATHER_MS after the first of
 * them was logged, or at once when the buffer is full, and anything still held is written
 * when the process exits.
 *
 * When the output is a pipe or a socket, which several workers may share, each write holds
 * whole lines and at most PIPE_BUF bytes, which POSIX makes atomic (write(2)): lines of
 * different workers never interleave inside a line, as with one write per line.
 */
import { fstatSync, writeSync } from 'node:fs';

/** POSIX's PIPE_BUF on Linux: a write to a pipe of at most this many bytes is not interleaved. */
const PIPE_BUF = 4096;
/** Held at most: past this, lines are written at once. */
const FLUSH_BYTES = 256 * 1024;
/** How long a line is held at most before it is written, so that many share one write. */
export const GATHER_MS = 20;
/** How often a reader that does not keep up (a full pipe) is tried again. */
const RETRY_MS = 10;
/** Held at most while the reader does not keep up: past this, lines are dropped and counted. */
const MAX_HELD_BYTES = 16 * 1024 * 1024;

/** Where lines made as bytes go (request-line.ts): no string is made, flattened or encoded. */
export interface LineOutput {
  /**
   * Holds one line that `fill` writes into `to` from `at` on, at most `most` bytes of it,
   * returning where it ends; `fill` is called at once, with `item`, or not at all when
   * the line is dropped.
   */
  append<T>(most: number, fill: (to: Buffer, at: number, item: T) => number, item: T): void;
}

export interface LogDestination extends LineOutput {
  write(line: string): void;
  /** Writes every held line now (the exit handler does the same). */
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
  /** How long lines are gathered before they are written (default GATHER_MS). */
  readonly gatherMs?: number;
}

export function logDestination(fd: number, options: LogDestinationOptions = {}): LogDestination {
  const atomic = options.atomicWrites ?? isPipeOrSocket(fd);
  const write: Writer = options.write ?? ((target, data) => writeSync(target, data));
  const gatherMs = options.gatherMs ?? GATHER_MS;
  // Lines are encoded into one buffer as they come and written from it: no array of lines
  // to join and no fresh buffer per write (docs/performance.md "The request log").
  const pending = Buffer.allocUnsafe(FLUSH_BYTES);
  let used = 0;
  /** Where each line in `pending` ends, to cut atomic writes at line ends. */
  let ends: number[] = [];
  /** What the output did not take yet (a full pipe), copied out of `pending`: written first. */
  let backlog: Buffer[] = [];
  let backlogBytes = 0;
  /** A gathering timer is armed: the lines held now are written when it fires. */
  let scheduled = false;
  let retrying = false;
  let dropped = 0;

  /** Writes `data` whole; returns what the output would not take yet (EAGAIN), or an empty buffer. */
  const writeAll = (data: Buffer): Buffer => {
    // Counted in bytes: a write may stop inside a character.
    let rest = data;
    while (rest.length > 0) {
      let written: number;
      try {
        written = write(fd, rest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return rest;
        // A closed or broken output (EPIPE): logging must never stop the server.
        dropped += countLines(rest);
        return rest.subarray(rest.length);
      }
      rest = rest.subarray(written);
    }
    return rest;
  };

  /**
   * Moves what `pending` holds from `from` on to the backlog, copied (`pending` is written
   * over next); into a pipe, as the whole-line pieces it would have been written in.
   */
  const holdPending = (from = 0): void => {
    let start = from;
    const cuts = atomic
      ? atomicCuts(
          ends.filter((end) => end > from),
          from,
        )
      : [used];
    for (const end of cuts) {
      if (end <= start) continue;
      backlog.push(Buffer.from(pending.subarray(start, end)));
      backlogBytes += end - start;
      start = end;
    }
    used = 0;
    ends = [];
  };

  const tryLater = (): void => {
    retrying = true;
    setTimeout(() => {
      retrying = false;
      flush();
    }, RETRY_MS).unref();
  };

  const flush = (): void => {
    if (retrying) return;
    while (backlog.length > 0) {
      const rest = writeAll(backlog[0]!);
      backlogBytes -= backlog[0]!.length - rest.length;
      if (rest.length > 0) {
        backlog[0] = rest;
        holdPending();
        tryLater();
        return;
      }
      backlog.shift();
    }
    let start = 0;
    for (const end of atomic ? atomicCuts(ends) : [used]) {
      const rest = writeAll(pending.subarray(start, end));
      if (rest.length > 0) {
        backlog = [Buffer.from(rest)];
        backlogBytes = rest.length;
        holdPending(end);
        tryLater();
        return;
      }
      start = end;
    }
    used = 0;
    ends = [];
  };

  process.once('exit', () => {
    retrying = false;
    flush();
  });

  /** Keeps a line too long for `pending` whole in the backlog, after what is held already. */
  const holdWhole = (line: Buffer): void => {
    holdPending();
    backlog.push(line);
    backlogBytes += line.length;
    if (!retrying) flush();
  };

  /** Makes room in `pending` for `most` more bytes (written out, or moved to the backlog). */
  const makeRoom = (most: number): void => {
    if (used + most <= pending.length) return;
    if (retrying) holdPending();
    else flush();
  };

  /** Marks the end of a line just put into `pending`, and has it written in time. */
  const held = (): void => {
    if (atomic) ends.push(used);
    // Only the timer clears `scheduled`: a write before it (a full buffer, flushSync) leaves
    // it armed for what is held by then, rather than arming a second one.
    if (!scheduled) {
      scheduled = true;
      setTimeout(() => {
        scheduled = false;
        flush();
      }, gatherMs).unref();
    }
  };

  return {
    write(line) {
      // UTF-8 takes at most 3 bytes per UTF-16 unit (a surrogate pair: 4 for 2).
      const most = line.length * 3;
      if (
        backlogBytes + used + most > MAX_HELD_BYTES &&
        backlogBytes + used + Buffer.byteLength(line) > MAX_HELD_BYTES
      ) {
        dropped++;
        return;
      }
      makeRoom(most);
      if (used + most > pending.length) {
        holdWhole(Buffer.from(line));
        return;
      }
      used += pending.write(line, used);
      held();
    },
    append(most, fill, item) {
      if (backlogBytes + used + most > MAX_HELD_BYTES) {
        dropped++;
        return;
      }
      makeRoom(most);
      if (used + most > pending.length) {
        const line = Buffer.allocUnsafe(most);
        holdWhole(line.subarray(0, fill(line, 0, item)));
        return;
      }
      used = fill(pending, used, item);
      held();
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

/**
 * Where to cut the held bytes from `from` on so that each write is whole lines of at most
 * PIPE_BUF bytes (a longer line is a write of its own), given where each line ends.
 */
function atomicCuts(ends: readonly number[], from = 0): number[] {
  const cuts: number[] = [];
  let start = from;
  let last = from;
  for (const end of ends) {
    if (last > start && end - start > PIPE_BUF) {
      cuts.push(last);
      start = last;
    }
    last = end;
  }
  if (last > start) cuts.push(last);
  return cuts;
}

function countLines(bytes: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) n++;
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
