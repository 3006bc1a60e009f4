/**
 * How far a harvest is: one line on a terminal, rewritten in place at most every 200 ms,
 * or a JSON line at most every second (`--progress=json`, or when stderr is not a
 * terminal, as under a timer). Then the final summary per record kind.
 */
import { RECORD_KINDS } from '../../contract/documents.ts';
import type { Counts } from './journal.ts';

export interface ProgressSnapshot {
  /** The operation being called. */
  readonly operation: string;
  /** Jobs done (answered, unknown, skipped, failed or left out) and in all. */
  readonly done: number;
  readonly total: number;
  readonly found: number;
  readonly unknown: number;
  readonly failed: number;
  /** Bytes of answers received. */
  readonly bytes: number;
  /** Jobs per second over the last seconds; undefined before there is a rate. */
  readonly rate: number | undefined;
  readonly elapsedSeconds: number;
}

export interface ProgressDisplay {
  show(snapshot: ProgressSnapshot): void;
  warn(message: string): void;
  /** Shows the last snapshot (if not shown yet) and ends the line. */
  finish(): void;
}

interface Stream {
  write(text: string): unknown;
}

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

export function secondsLeft(snapshot: ProgressSnapshot): number | undefined {
  if (snapshot.rate === undefined || snapshot.rate <= 0) return undefined;
  return (snapshot.total - snapshot.done) / snapshot.rate;
}

export function progressLine(p: ProgressSnapshot): string {
  const left = secondsLeft(p);
  return (
    `  ${p.operation} ${p.done}/${p.total} · found ${p.found} · unknown ${p.unknown} · failed ${p.failed}` +
    ` · ${megabytes(p.bytes)} · ${p.rate === undefined ? '–' : p.rate.toFixed(0)}/s` +
    ` · ${duration(p.elapsedSeconds)}${left === undefined ? '' : `, ${duration(left)} left`}`
  );
}

export function terminalProgress(stream: Stream, clock: () => number = Date.now): ProgressDisplay {
  let shownAt = Number.NEGATIVE_INFINITY;
  let unshown: ProgressSnapshot | undefined;
  let onLine = false;
  const draw = (snapshot: ProgressSnapshot) => {
    stream.write(`\r${progressLine(snapshot)}\u001b[K`);
    onLine = true;
    unshown = undefined;
  };
  return {
    show(snapshot) {
      const now = clock();
      if (now - shownAt < 200) {
        unshown = snapshot;
        return;
      }
      shownAt = now;
      draw(snapshot);
    },
    warn(message) {
      stream.write(`${onLine ? '\r\u001b[K' : ''}scoop harvest: warning: ${message}\n`);
      onLine = false;
      if (unshown) draw(unshown);
    },
    finish() {
      if (unshown) draw(unshown);
      if (onLine) stream.write('\n');
      onLine = false;
    },
  };
}

export function jsonProgress(stream: Stream, clock: () => number = Date.now): ProgressDisplay {
  let shownAt = Number.NEGATIVE_INFINITY;
  let unshown: ProgressSnapshot | undefined;
  const line = (snapshot: ProgressSnapshot) => {
    const left = secondsLeft(snapshot);
    stream.write(
      `${JSON.stringify({
        event: 'progress',
        ...snapshot,
        rate: snapshot.rate === undefined ? null : Math.round(snapshot.rate * 10) / 10,
        elapsedSeconds: Math.round(snapshot.elapsedSeconds * 10) / 10,
        secondsLeft: left === undefined ? null : Math.round(left),
      })}\n`,
    );
    unshown = undefined;
  };
  return {
    show(snapshot) {
      const now = clock();
      if (now - shownAt < 1000) {
        unshown = snapshot;
        return;
      }
      shownAt = now;
      line(snapshot);
    },
    warn(message) {
      stream.write(`${JSON.stringify({ event: 'warning', message })}\n`);
    },
    finish() {
      if (unshown) line(unshown);
    },
  };
}

const COLUMNS = ['records', 'yielded', 'unknown', 'skipped', 'failed', 'leftOut', 'bytes'] as const;
const HEADINGS: Record<(typeof COLUMNS)[number], string> = {
  records: 'in bundle',
  yielded: 'came along',
  unknown: 'unknown',
  skipped: 'not asked',
  failed: 'failed',
  leftOut: 'left out',
  bytes: 'binaries',
};

/** The summary table per record kind. */
export function formatCounts(counts: Counts): string {
  const cell = (column: (typeof COLUMNS)[number], value: number) =>
    (column === 'bytes' ? megabytes(value) : String(value)).padStart(HEADINGS[column].length);
  return [
    `  ${'kind'.padEnd(16)} ${COLUMNS.map((c) => HEADINGS[c]).join('  ')}`,
    ...RECORD_KINDS.map(
      (kind) => `  ${kind.padEnd(16)} ${COLUMNS.map((c) => cell(c, counts[kind][c])).join('  ')}`,
    ),
  ].join('\n');
}
