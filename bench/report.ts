/**
 * The benchmark's results: one stable JSON document (bench/results/bench.json, schema
 * `scoop-bench/1`; printed as tables by bench/render.ts). Runs are comparable by this
 * structure; add fields, do not rename them.
 */

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, release, totalmem } from 'node:os';
import path from 'node:path';
import type { ImageBenchResult } from './images.ts';
import type { MixReport } from './mix/mix-report.ts';
import { scoopNodeFlags } from './node-flags.ts';
import type { CpuShare } from './processes.ts';
import type { Target } from './scenarios.ts';

export interface Machine {
  readonly cpus: number;
  readonly cpu: string;
  readonly memoryGb: number;
  readonly kernel: string;
  readonly node: string;
  readonly generator: string;
}

/**
 * The build measured: its commit, whether src/ differs from it, the bundle's hash, and the
 * node flags its `bin/scoop.js` runs with (each server and import is started with them).
 */
export function codeState(): {
  commit: string;
  changedSourceFiles: number;
  distSha256: string | null;
  nodeFlags: string[];
} {
  const git = (args: string[]) => spawnSync('git', args, { encoding: 'utf8' }).stdout?.trim() ?? '';
  let distSha256: string | null = null;
  try {
    // Every built file: the entry, the workers, and the chunks it loads (scripts/build.mjs).
    const hash = createHash('sha256');
    for (const name of readdirSync('dist')
      .filter((n) => n.endsWith('.mjs'))
      .sort()) {
      hash.update(name).update(readFileSync(`dist/${name}`));
    }
    distSha256 = hash.digest('hex').slice(0, 16);
  } catch {
    distSha256 = null;
  }
  return {
    commit: git(['rev-parse', '--short', 'HEAD']),
    changedSourceFiles: git(['status', '--porcelain', '--', 'src']).split('\n').filter(Boolean).length,
    distSha256,
    nodeFlags: scoopNodeFlags(),
  };
}

export function machine(generator: string): Machine {
  return {
    cpus: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    node: process.version,
    generator,
  };
}

/** One target server's figures in one scenario; `failed` says why a run does not count. */
export interface Run {
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly requests: number;
  readonly errors: number;
  readonly errorDetail: Readonly<Record<string, number>>;
  /** Cores used on average during the measured run: the server, wrk, and anything else on the machine. */
  readonly cpu: CpuShare;
  /** Runs made (a run disturbed by other work is made again, up to 3 times; the least disturbed counts). */
  readonly attempts: number;
  /** Other work used more than 0.25 cores even in the run that counts: the figure is unreliable. */
  readonly disturbed: boolean;
  readonly failed: string | null;
  /** Every round's figures, when the run stands for several (see medianRun). */
  readonly rounds?: ReadonlyArray<{ rps: number; p99Ms: number }>;
}

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  readonly answerBytes: number;
  readonly ours: Run | null;
  readonly ceiling: Run | null;
  /** null: no peer for this binding (HTTP GET) or the peer was not run. */
  readonly peer: Run | null;
  /** Why there is no peer figure. */
  readonly peerNote: string | null;
  readonly ratios: {
    readonly oursToCeiling: number | null;
    readonly p99ToCeiling: number | null;
    readonly oursToPeer: number | null;
  };
  readonly target: Target;
  readonly pass: boolean;
  /** Which parts of the target were missed (or could not be judged). */
  readonly misses: readonly string[];
}

export interface HugeResult {
  readonly name: string;
  readonly bytes: number;
  /** `cpu`: cores used by the server, the harness reading the answer ("generator") and anything else. */
  readonly ours: { ms: number; mbPerSecond: number; status: number; cpu: CpuShare } | null;
  readonly ceiling: { ms: number; mbPerSecond: number; status: number; cpu: CpuShare } | null;
  readonly ratio: number | null;
  /**
   * The same answer read by curl (a C client pinned where wrk runs): the rate when the
   * client is not the limit. Informational; the target is judged with the harness's client.
   */
  readonly serverBound: {
    readonly ours: { ms: number; mbPerSecond: number; status: number; cpu: CpuShare };
    readonly ceiling: { ms: number; mbPerSecond: number; status: number; cpu: CpuShare } | null;
    readonly ratio: number | null;
  };
  /**
   * The first answer after the start (the harness's capture, which buffers it): from the
   * store, writing the base64 cache's file on the way; the counted ones come from that file.
   */
  readonly firstAnswer: { ms: number; mbPerSecond: number; rssGrowthMb: number } | null;
  readonly rss: { beforeMb: number; peakMb: number; growthMb: number; peakFrom: string };
  readonly target: { maxRssGrowthMb: number; minCeilingRatio: number };
  readonly pass: boolean;
  readonly misses: readonly string[];
}

export interface StoreComparison {
  readonly store: string;
  readonly scenarios: ReadonlyArray<{
    name: string;
    rps: number | null;
    /** SQLite's, measured right before (same request, same records). */
    sqliteRps: number | null;
    p99Ms: number | null;
    failed: string | null;
    ratioToSqlite: number | null;
    pass: boolean;
  }>;
  readonly target: { minRatio: number };
  readonly pass: boolean;
  readonly error: string | null;
}

/** What the request log costs in one scenario, issue 17 item 0 (bench/log-cost.ts): both servers loaded at once, on one core. */
export interface LogCost {
  readonly name: string;
  /** Medians of the rounds: server CPU per answered request (µs), and the rate during the round. */
  readonly withLogUs: number;
  readonly withoutLogUs: number;
  readonly withLogRps: number;
  readonly withoutLogRps: number;
  /** Median of the rounds' ratios: CPU a request without the log over with it (the rate ratio). */
  readonly ratio: number;
  readonly lowest: number;
  readonly highest: number;
  readonly errors: number;
  readonly pass: boolean;
}

export interface BenchReport {
  readonly schema: 'scoop-bench/1';
  readonly command: string;
  readonly date: string;
  readonly machine: Machine;
  readonly settings: Readonly<Record<string, unknown>>;
  /** Observations made while running (e.g. the peer's quirks, a busy machine). */
  readonly notes: readonly string[];
  readonly scenarios: readonly ScenarioResult[];
  readonly largeAttachment: HugeResult | null;
  readonly rss: { idleMb: number; peakUnderLoadMb: number; samples: number; targetMb: number; pass: boolean };
  readonly stores: readonly StoreComparison[];
  readonly images: ImageBenchResult | null;
  /** Issue 17 item 5 (bench/cold-resizes.ts), when it ran. */
  readonly coldResizes: ColdResizeResult | null;
  /** The realistic mix (bench/mix/), when it ran. */
  readonly mix: MixReport | null;
  /** What the request log costs (bench/log-cost.ts), when it ran. */
  readonly requestLog: readonly LogCost[] | null;
  readonly pass: boolean;
  readonly durationSeconds: number;
}

export function write(file: string, value: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  return path.relative(process.cwd(), file);
}

/** Issue 17 item 5 (bench/cold-resizes.ts). */
export interface ColdRun {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** The server's CPU time over the run, per request (clock ticks, so ±10 ms over the run). */
  readonly serverCpuMsPerRequest: number;
  readonly cpu: CpuShare;
  /** The median of each box's requests, so the mix behind p50 can be seen. */
  readonly byBox: readonly { readonly box: string; readonly p50Ms: number }[];
}

/** One request again and again, ours and the ceiling in turn. */
export interface Repeated {
  readonly path: string;
  readonly answerBytes: number;
  /** The server's settings over SERVE_ENV's. */
  readonly env: Readonly<Record<string, string>>;
  readonly ours: Run;
  readonly ceiling: Run;
  readonly oursToCeiling: number;
  /**
   * Server CPU time per answer (µs) in the median round of each: steadier than rates
   * while other work shares the machine, since it counts only the server's own time.
   */
  readonly cpuUsPerAnswer: { readonly ours: number; readonly ceiling: number };
}

export interface ColdResizeResult {
  readonly source: { width: number; height: number; bytes: number };
  readonly settings: {
    readonly env: Readonly<Record<string, string>>;
    readonly pinning: string;
    readonly boxes: readonly string[];
  };
  readonly cold: ColdRun & {
    readonly attempts: number;
    readonly disturbed: boolean;
    readonly targetP50Ms: number;
    readonly pass: boolean;
  };
  /** As an operator runs scoop: after its first repeat, from the answer cache. */
  readonly warm: Repeated & { readonly targetRatio: number; readonly pass: boolean };
  /** With the answer cache off: every request a variant-cache hit (not judged). */
  readonly warmVariantCache: Repeated;
  /** getBereich with the answer cache off: what any request the answer cache does not answer costs. */
  readonly uncachedFloor: Repeated;
  readonly pass: boolean;
}
