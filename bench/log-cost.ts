/**
 * What the request log costs (issue 17 item 0), `npm run bench -- --only log`: the same
 * scenarios against two `scoop serve` on the same store, one at its default settings (the
 * request log at `info`, written to a file) and one at `SCOOP_LOG_LEVEL=warn`, which writes
 * no request lines. They take turns, round after round (each going first in every other
 * round), and the figure is the median of the rounds' own ratios, as for the ceiling.
 * Target: the log costs at most 10% of the rate.
 */
import path from 'node:path';
import { capture } from './http.ts';
import { measure, medianRun, pairedRatio, wireBytes } from './measure.ts';
import { type Child, startScoop } from './processes.ts';
import type { LogCost, Run } from './report.ts';
import { scenarios } from './scenarios.ts';

/** Small answers, where a log line is the largest share of the work; the article for contrast. */
export const LOG_SCENARIOS = ['getBereich-get', 'getBereich-soap11', 'getArtikelDetails-soap11'];
export const LOG_TARGET = 0.9;

export async function logCost(work: string, db: string, token: string, rounds: number): Promise<LogCost[]> {
  const list = scenarios(token).filter((s) => LOG_SCENARIOS.includes(s.name));
  let withLog: Child | undefined;
  let withoutLog: Child | undefined;
  const results: LogCost[] = [];
  try {
    withLog = await startScoop({ db });
    withoutLog = await startScoop({ db, env: { SCOOP_LOG_LEVEL: 'warn' } });
    const script = path.join(work, 'log-cost.lua');
    for (const s of list) {
      const a = await capture(withLog.url, s.request);
      const b = await capture(withoutLog.url, s.request);
      const on: Run[] = [];
      const off: Run[] = [];
      for (let round = 0; round < rounds; round++) {
        // Which server runs first alternates: the second run of a pair met a machine that
        // had just been busy, which moved single ratios by several percent.
        const pair = [
          { server: withLog, answer: a, runs: on },
          { server: withoutLog, answer: b, runs: off },
        ];
        if (round % 2 === 1) pair.reverse();
        for (const { server, answer, runs } of pair)
          runs.push(await measure(server, s.request, wireBytes(answer), script));
      }
      const ratio = pairedRatio(medianRun(on), medianRun(off), (r) => r.rps);
      results.push({
        name: s.name,
        withLogRps: medianRun(on).rps,
        withoutLogRps: medianRun(off).rps,
        ratio,
        pass: ratio >= LOG_TARGET,
      });
    }
  } finally {
    await withLog?.stop();
    await withoutLog?.stop();
  }
  return results;
}

export function renderLogCost(results: readonly LogCost[]): string {
  return results
    .map(
      (r) =>
        `${r.name}: ${r.withLogRps.toFixed(0)} req/s with the request log, ${r.withoutLogRps.toFixed(0)} without: ${(r.ratio * 100).toFixed(0)}% (target ≥ ${LOG_TARGET * 100}%) ${r.pass ? 'PASS' : 'FAIL'}`,
    )
    .join('\n');
}
