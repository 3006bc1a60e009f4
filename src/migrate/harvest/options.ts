/** What `scoop harvest` is asked (the command's options, parsed). */
import type { IdRange } from './id-ranges.ts';
import type { RangeOption } from './plan.ts';
import type { ProgressDisplay } from './progress.ts';

export interface HarvestOptions {
  readonly from: URL;
  readonly out: string;
  readonly namespace: string;
  readonly token: string | undefined;
  readonly ranges: Partial<Record<RangeOption, readonly IdRange[]>>;
  readonly emails: string | undefined;
  readonly concurrency: number;
  readonly rate: number | undefined;
  readonly resume: boolean;
  readonly display: ProgressDisplay;
  /** Aborted to interrupt the harvest (SIGINT, SIGTERM): it stops, keeping what it has for --resume. */
  readonly signal?: AbortSignal;
  /** For tests: how long a silent connection is waited for, and the back-off between attempts. */
  readonly idleTimeoutMs?: number;
  readonly backoff?: (attempt: number) => number;
}
