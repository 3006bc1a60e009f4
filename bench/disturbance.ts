/**
 * Runs disturbed by other work on this shared machine: a run during which other processes
 * used more than DISTURBED_CORES is made again after waiting for quiet, up to ATTEMPTS
 * times, and the least disturbed counts. One retry budget for the whole bench run keeps
 * it bounded.
 */
import { waitQuiet } from './processes.ts';

/** Other work using more than this many cores during a run makes it disturbed: it is measured again. */
export const DISTURBED_CORES = 0.25;
export const ATTEMPTS = 3;
/** Time the whole run may spend on waiting and measuring again, so it stays bounded. */
let retryBudgetMs = 120_000;

const log = (line: string) => process.stderr.write(`${line}\n`);

/** Whether a run during which other work used `otherCores` should be made again. */
export function worthRetrying(otherCores: number): boolean {
  return otherCores > DISTURBED_CORES && retryBudgetMs > 0;
}

/** Waits for quiet before another attempt, charging the wait and the attempt's own time to the budget. */
export async function waitBeforeRetry(otherCores: number, attemptMs: number): Promise<void> {
  log(`  other work used ${otherCores.toFixed(2)} cores meanwhile: waiting for quiet, measuring again`);
  const waited = performance.now();
  await waitQuiet(Math.min(20, retryBudgetMs / 1000));
  retryBudgetMs -= performance.now() - waited + attemptMs;
}
