/**
 * The admin listener of a cluster primary answers for its workers (cluster.ts). Over the
 * cluster's IPC channel it asks every listening worker for its metrics (prom-client's
 * JSON form) or its readiness, and aggregates the metrics with prom-client's
 * `AggregatorRegistry` (counters and histograms summed; store gauges take the maximum).
 */
import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { AdminProbes, Readiness } from './admin-server.ts';

const ASK = 'scoop:ask';
const ANSWER = 'scoop:answer';
/** Longer than a worker's own readiness check (1 s). */
const ANSWER_TIMEOUT_MS = 2000;

type Question = 'metrics' | 'readiness';
type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

interface Ask {
  readonly type: typeof ASK;
  readonly id: number;
  readonly question: Question;
}

interface Answer {
  readonly type: typeof ANSWER;
  readonly id: number;
  readonly metrics?: MetricsJson;
  readonly readiness?: Readiness;
  readonly error?: string;
}

function isMessage<T extends { type: string }>(message: unknown, type: T['type']): message is T {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** In a worker: answers the primary's questions from this process's registry and store. */
export function answerPrimary(registry: Registry, readiness: () => Promise<Readiness>): void {
  process.on('message', async (message: unknown) => {
    if (!isMessage<Ask>(message, ASK)) return;
    let answer: Answer;
    try {
      answer =
        message.question === 'metrics'
          ? { type: ANSWER, id: message.id, metrics: await registry.getMetricsAsJSON() }
          : { type: ANSWER, id: message.id, readiness: await readiness() };
    } catch (error) {
      answer = { type: ANSWER, id: message.id, error: String(error) };
    }
    // The channel is gone when the primary is: nothing to answer then.
    if (process.connected) process.send?.(answer, undefined, undefined, () => undefined);
  });
}

let nextId = 0;

/** Asks one worker; undefined when it does not answer in time (or has gone). */
function ask(worker: Worker, question: Question): Promise<Answer | undefined> {
  const id = nextId++;
  return new Promise((resolve) => {
    const finish = (answer: Answer | undefined) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(answer);
    };
    const onMessage = (message: unknown) => {
      if (isMessage<Answer>(message, ANSWER) && message.id === id) finish(message);
    };
    const onExit = () => finish(undefined);
    const timer = setTimeout(() => finish(undefined), ANSWER_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    const message: Ask = { type: ASK, id, question };
    if (worker.isConnected()) worker.send(message, undefined, () => undefined);
    else finish(undefined);
  });
}

/**
 * The primary's probes. Metrics: the workers' registries aggregated, plus the primary's
 * own (worker count, restarts); a scrape fails when a listening worker does not answer,
 * rather than report sums that silently left one out. Readiness: ready when at least one
 * worker listens and every listening worker reports ready (its store reachable); a
 * worker being restarted does not count against it, since the others serve meanwhile.
 */
export function clusterProbes(
  listening: () => readonly Worker[],
  own: Registry,
  expected: number,
): AdminProbes {
  return {
    contentType: own.contentType,
    async metrics() {
      const answers = await Promise.all(listening().map((worker) => ask(worker, 'metrics')));
      const sets = answers.map((answer) => {
        if (!answer?.metrics) throw new Error(answer?.error ?? 'a worker did not answer');
        return answer.metrics;
      });
      return AggregatorRegistry.aggregate([...sets, await own.getMetricsAsJSON()]).metrics();
    },
    async readiness() {
      const workers = listening();
      const answers = await Promise.all(workers.map((worker) => ask(worker, 'readiness')));
      const states = answers.map(
        (answer) => answer?.readiness ?? { ready: false, body: { status: 'worker did not answer' } },
      );
      const ready = states.filter((state) => state.ready).length;
      const ok = ready > 0 && ready === states.length;
      const versions = states
        .map((state) => state.body.contentVersion)
        .filter((v): v is number => typeof v === 'number');
      const reasons =
        states.length === 0
          ? ['no worker is listening']
          : states.filter((state) => !state.ready).map((state) => String(state.body.status));
      return {
        ready: ok,
        body: {
          status: ok ? 'ready' : 'not ready',
          ...(versions.length > 0 ? { contentVersion: Math.max(...versions) } : {}),
          workers: { ready, listening: workers.length, expected },
          ...(ok ? {} : { reasons: [...new Set(reasons)] }),
        },
      };
    },
  };
}
