/**
 * Sends each request to both sides at once, at most `concurrency` requests in flight,
 * and judges the two answers (judge.ts). Requests are pulled from the source as slots
 * free up, so a source of millions is never held as a list of results: only counts, and
 * the details of the first differences and failures.
 */
import { type Received, statusLine } from './answer.ts';
import type { HttpSender } from './http-sender.ts';
import { judge, type Outcome, type Verdict } from './judge.ts';
import { type RequestView, viewOf } from './redact.ts';
import type { ReplayRequest } from './replay-request.ts';

export interface Side {
  readonly sender: HttpSender;
  /** Put into every request that carries a token; undefined sends requests as they are. */
  readonly token: string | undefined;
}

/** One request judged: what reports show of it. */
export interface Compared {
  /** Its place in the source, from 0. */
  readonly index: number;
  readonly operation: string;
  readonly binding: string;
  readonly description: string;
  readonly request: RequestView;
  /** Status lines (answer.ts statusLine). */
  readonly baseline: string;
  readonly candidate: string;
  readonly verdict: Verdict;
}

export type Tally = Record<Outcome, number>;

export function emptyTally(): Tally {
  return { same: 0, 'both refused': 0, different: 0, failed: 0 };
}

/** `N same, B both refused, M different, K failed`. */
export function summaryLine(tally: Tally): string {
  return `${tally.same} same, ${tally['both refused']} both refused, ${tally.different} different, ${tally.failed} failed`;
}

/** Sends one request to both sides and judges the answers. */
export async function compareOne(
  request: ReplayRequest,
  baseline: Side,
  candidate: Side,
): Promise<{ verdict: Verdict; baseline: Received; candidate: Received }> {
  const [a, b] = await Promise.all([
    baseline.sender.send(request.prepare(baseline.token)),
    candidate.sender.send(request.prepare(candidate.token)),
  ]);
  return { verdict: judge(a, b), baseline: a, candidate: b };
}

export function describeCompared(
  index: number,
  request: ReplayRequest,
  result: { verdict: Verdict; baseline: Received; candidate: Received },
  personal = false,
): Compared {
  return {
    index,
    operation: request.operation,
    binding: request.binding,
    description: request.description,
    request: viewOf(request, personal),
    baseline: statusLine(result.baseline),
    candidate: statusLine(result.candidate),
    verdict: result.verdict,
  };
}

/**
 * Compares every request of `source`; `onJudged` hears of each difference and failure
 * as it is found (in the order answers come back). Returns the counts.
 */
export async function compareAll(
  source: Iterable<ReplayRequest> | AsyncIterable<ReplayRequest>,
  baseline: Side,
  candidate: Side,
  concurrency: number,
  onJudged: (compared: Compared) => void,
): Promise<Tally> {
  const tally = emptyTally();
  const iterator =
    Symbol.asyncIterator in source ? source[Symbol.asyncIterator]() : source[Symbol.iterator]();
  let next = 0;
  const work = async () => {
    for (;;) {
      const item = await iterator.next();
      if (item.done) return;
      const index = next++;
      const result = await compareOne(item.value, baseline, candidate);
      tally[result.verdict.outcome]++;
      if (result.verdict.outcome === 'different' || result.verdict.outcome === 'failed')
        onJudged(describeCompared(index, item.value, result));
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, work));
  return tally;
}
