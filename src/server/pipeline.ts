/**
 * The request lifecycle as data: a named list of stages run in order over one exchange
 * (fastify's lib/hooks.js is the model). A stage either finishes at once or says it is
 * still at work; only then does the runner wait, so a request answered from memory runs
 * to its end synchronously, with no promise made for it. A stage that writes the answer
 * sets `exchange.answered`, and the rest are skipped; a stage that fails hands its error
 * to `refuse`.
 */
import type { Exchange } from './exchange.ts';

/**
 * A stage still at work: a promise, or a `Wait` — a function the runner calls with how to
 * go on, for a wait driven by callbacks (read-body.ts), which then costs no promise. Only
 * the first call of `resume` or `fail` counts, and a Wait that throws has failed.
 */
export type Wait = (resume: () => void, fail: (error: unknown) => void) => void;
export type Pending = PromiseLike<unknown> | Wait;

export interface Stage {
  readonly name: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a stage that is done at once returns nothing at all
  run(exchange: Exchange): void | Pending;
}

export type Refuse = (exchange: Exchange, error: unknown) => void;

export function runStages(stages: readonly Stage[], exchange: Exchange, refuse: Refuse, from = 0): void {
  for (let i = from; i < stages.length && !exchange.answered; i++) {
    // biome-ignore lint/suspicious/noConfusingVoidType: what Stage.run returns
    let pending: void | Pending;
    try {
      pending = stages[i]!.run(exchange);
    } catch (error) {
      refuse(exchange, error);
      return;
    }
    if (pending === undefined) continue;
    let settled = false;
    const resume = () => {
      if (settled) return;
      settled = true;
      runStages(stages, exchange, refuse, i + 1);
    };
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      refuse(exchange, error);
    };
    if (typeof pending !== 'function') {
      pending.then(resume, fail);
      return;
    }
    try {
      pending(resume, fail);
    } catch (error) {
      fail(error);
    }
    return;
  }
}
