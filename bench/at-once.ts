/**
 * Two servers pinned to one core and loaded at the same time, each by its own wrk: whatever
 * else the shared machine does then meets both in the same seconds, so their CPU time per
 * answered request can be compared (bench/duel.ts, bench/log-cost.ts; docs/performance.md
 * "The twenty-fifth round"). Which wrk starts first alternates by round: the first to start
 * has its server busy a moment before the other.
 */
import type { WrkResult } from './load.ts';
import { cpuUsPerRequest, processTicks } from './processes.ts';

/** One server's share of a round: its load's result and its CPU µs per answered request. */
export interface LoadedRun {
  readonly result: WrkResult;
  readonly cpuUs: number;
}

export async function loadTwoAtOnce(
  pids: readonly [number, number],
  round: number,
  load: (server: 0 | 1) => Promise<WrkResult>,
): Promise<[LoadedRun, LoadedRun]> {
  const before = pids.map(processTicks);
  const first = round % 2 === 0 ? 0 : 1;
  const runs: Promise<WrkResult>[] = [];
  runs[first] = load(first);
  runs[1 - first] = load(first === 0 ? 1 : 0);
  const results = await Promise.all(runs);
  const after = pids.map(processTicks);
  const run = (i: 0 | 1): LoadedRun => ({
    result: results[i]!,
    cpuUs: cpuUsPerRequest(before[i]!, after[i]!, results[i]!.requests),
  });
  return [run(0), run(1)];
}
