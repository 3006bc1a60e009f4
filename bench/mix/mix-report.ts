/** The realistic mix's results, as bench/results/bench.json carries them (`mix`). */
import type { ImportCurve } from './after-import.ts';
import type { MixDataset } from './dataset.ts';
import type { Distribution } from './requests.ts';

export interface MixRow {
  readonly store: string;
  readonly cache: 'on' | 'off';
  readonly distribution: Distribution;
  readonly oursRps: number;
  readonly ceilingRps: number;
  /** Median of the rounds' ratios. */
  readonly ratio: number;
  readonly oursP99Ms: number;
  readonly ceilingP99Ms: number;
  readonly errors: number;
  /**
   * Of this order's server, over all its runs, in MiB (the sampled VmRSS's kB over 1024), the
   * unit of the target.
   */
  readonly peakRssMb: number;
  /** Full collections a second of a measured run, the median of the rounds (bench/gc-stats.ts). */
  readonly majorGcPerSecond?: number;
  /** Share of a measured run in collector pauses, the median of the rounds. */
  readonly gcPauseShare?: number;
}

export interface MixReport {
  readonly content: MixDataset['counts'] & { fileBytes: number; distinctRequests: number };
  readonly meanAnswerBytes: number;
  readonly importMs: Readonly<Record<string, number>>;
  readonly rows: readonly MixRow[];
  /** The rate second by second around an import (after-import.ts). */
  readonly curves: readonly ImportCurve[];
  readonly serverEnv: Readonly<Record<string, string>>;
}
