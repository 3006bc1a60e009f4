/**
 * What `compare` reports: each difference or failure as a few lines of text (the request,
 * both status lines, a short unified diff), and the whole run as one JSON document, which
 * the HTML report (report-html.ts) and the shadow's kept exchanges are made from.
 */
import { type Hunk, unifiedDiff } from './diff.ts';
import type { Outcome } from './judge.ts';
import { type Compared, summaryLine, type Tally } from './run-compare.ts';

/** Diff lines printed per difference on the terminal. */
const TEXT_DIFF_LINES = 40;
/** Diff lines per difference in the JSON (the hunks are there in full). */
const JSON_DIFF_LINES = 400;

/** A judged request as the JSON and HTML reports hold it: its verdict spelled out. */
export interface ReportEntry extends Omit<Compared, 'verdict'> {
  readonly outcome: Outcome;
  readonly reason?: string;
  /** A unified diff of the comparable forms, bounded. */
  readonly diff?: string;
  readonly hunks?: readonly Hunk[];
  /** When it was seen (the shadow's exchanges), ISO 8601. */
  readonly at?: string;
  /** The request id of the client's request (the shadow's exchanges). */
  readonly requestId?: string;
}

export interface CompareReport {
  readonly title: string;
  readonly baseline: string;
  readonly candidate: string;
  /** ISO 8601. */
  readonly generated: string;
  readonly summary: Tally;
  /** HAR entries that are not calls of the service. */
  readonly skipped: number;
  readonly differences: readonly ReportEntry[];
  readonly failures: readonly ReportEntry[];
  /** Differences and failures found beyond those listed. */
  readonly notListed: number;
}

export function entryOf(compared: Compared, extra: { at?: string; requestId?: string } = {}): ReportEntry {
  const { verdict, ...rest } = compared;
  return {
    ...rest,
    outcome: verdict.outcome,
    ...(verdict.reason !== undefined ? { reason: verdict.reason } : {}),
    ...(verdict.hunks ? { diff: unifiedDiff(verdict.hunks, JSON_DIFF_LINES), hunks: verdict.hunks } : {}),
    ...extra,
  };
}

/** A difference or failure as the terminal shows it. */
export function formatCompared(compared: Compared): string {
  const { verdict } = compared;
  const head = `${verdict.outcome}: ${compared.description} over ${compared.binding}`;
  const lines = [
    head,
    `  ${compared.request.method} ${compared.request.path}`,
    `  baseline:  ${compared.baseline}`,
    `  candidate: ${compared.candidate}`,
  ];
  if (verdict.outcome === 'failed') {
    if (verdict.reason && !/^(baseline|candidate): /.test(verdict.reason)) lines.push(`  ${verdict.reason}`);
  } else if (verdict.hunks) {
    for (const line of unifiedDiff(verdict.hunks, TEXT_DIFF_LINES).split('\n')) lines.push(`  ${line}`);
  }
  return lines.join('\n');
}

export { summaryLine };
