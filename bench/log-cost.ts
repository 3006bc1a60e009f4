/**
 * What the request log costs (issue 17 item 0), `npm run bench -- --only log`: the same
 * scenarios against two `scoop serve` on the same store, one at its default settings (the
 * request log at `info`, written to a file) and one at `SCOOP_LOG_LEVEL=warn`, which writes
 * no request lines. Both are pinned to the server core and loaded at once, each by its own
 * wrk on the generator core (bench/at-once.ts, as the duel does), and the figure is each
 * server's CPU time per answered request: a server alone on a core answers at the rate its
 * CPU per request allows, so the rate with the log over the rate without is the CPU a
 * request costs without it over the CPU with it. Run one after the other, as before, the
 * two servers met different seconds of this shared machine: the same build's figure moved
 * from 84% to 95% between runs (docs/performance.md "The twenty-fifth round"); loaded at
 * once, whatever else the machine does meets both. The figure is the median of the rounds'
 * ratios. Target: the log costs at most 10% of the rate.
 */
import path from 'node:path';
import { loadTwoAtOnce } from './at-once.ts';
import { capture } from './http.ts';
import { runWrk } from './load.ts';
import { measureSettings, median, ratioSpread, wireBytes } from './measure.ts';
import { type Child, startScoop } from './processes.ts';
import type { LogCost } from './report.ts';
import { scenarios } from './scenarios.ts';

/** Small answers, where a log line is the largest share of the work; the article for contrast. */
export const LOG_SCENARIOS = ['getBereich-get', 'getBereich-soap11', 'getArtikelDetails-soap11'];
export const LOG_TARGET = 0.9;
/** Seconds of one round: at 10 ms a clock tick, a server at half a core counts 200 ticks. */
const ROUND_SECONDS = 4;

/** One round: each server's CPU per answered request and its rate while both were loaded. */
export interface LogRound {
  readonly withLogUs: number;
  readonly withoutLogUs: number;
  readonly withLogRps: number;
  readonly withoutLogRps: number;
  readonly errors: number;
}

/** The rounds of one scenario, summed up: the median of the rounds' ratios, and their spread. */
export function logCostRow(name: string, rounds: readonly LogRound[]): LogCost {
  if (rounds.length === 0) throw new Error('the request log’s cost needs at least one round');
  const spread = ratioSpread(rounds.map((r) => r.withoutLogUs / r.withLogUs));
  const errors = rounds.reduce((sum, r) => sum + r.errors, 0);
  return {
    name,
    withLogUs: median(rounds.map((r) => r.withLogUs)),
    withoutLogUs: median(rounds.map((r) => r.withoutLogUs)),
    withLogRps: median(rounds.map((r) => r.withLogRps)),
    withoutLogRps: median(rounds.map((r) => r.withoutLogRps)),
    ...spread,
    errors,
    pass: errors === 0 && spread.ratio >= LOG_TARGET,
  };
}

export async function logCost(work: string, db: string, token: string, rounds: number): Promise<LogCost[]> {
  const list = scenarios(token).filter((s) => LOG_SCENARIOS.includes(s.name));
  let withLog: Child | undefined;
  let withoutLog: Child | undefined;
  const results: LogCost[] = [];
  try {
    withLog = await startScoop({ db });
    withoutLog = await startScoop({ db, env: { SCOOP_LOG_LEVEL: 'warn' } });
    const servers = [withLog, withoutLog] as const;
    for (const s of list) {
      const sizes: number[] = [];
      for (const server of servers) sizes.push(wireBytes(await capture(server.url, s.request)));
      const samples: LogRound[] = [];
      // Round 0 warms both up, loaded as measured, and is not counted.
      for (let round = 0; round <= rounds; round++) {
        const [a, b] = await loadTwoAtOnce([withLog.pid, withoutLog.pid], round, (i) =>
          runWrk({
            url: servers[i].url,
            requests: [s.request],
            connections: measureSettings().connections,
            seconds: ROUND_SECONDS,
            scriptFile: path.join(work, `log-cost-${i}.lua`),
            expectedBytes: sizes[i],
            serverPid: servers[i].pid,
          }),
        );
        if (round === 0) continue;
        samples.push({
          withLogUs: a.cpuUs,
          withoutLogUs: b.cpuUs,
          withLogRps: a.result.rps,
          withoutLogRps: b.result.rps,
          errors: a.result.errorCount + b.result.errorCount,
        });
      }
      results.push(logCostRow(s.name, samples));
    }
  } finally {
    await withLog?.stop();
    await withoutLog?.stop();
  }
  return results;
}

export function renderLogCost(results: readonly LogCost[]): string {
  const percent = (r: number) => `${(r * 100).toFixed(0)}%`;
  return results
    .map(
      (r) =>
        `${r.name}: ${r.withLogUs.toFixed(1)} µs of CPU a request with the request log, ${r.withoutLogUs.toFixed(1)} without: ` +
        `the rate with it ${percent(r.ratio)} of the rate without (rounds ${percent(r.lowest)}–${percent(r.highest)}; ` +
        `target ≥ ${LOG_TARGET * 100}%)${r.errors > 0 ? `, ${r.errors} errors` : ''} ${r.pass ? 'PASS' : 'FAIL'}`,
    )
    .join('\n');
}
