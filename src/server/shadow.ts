/**
 * `serve --shadow URL`: a sample of the requests this instance answered is sent to the
 * original as well, after the client has its answer, and the two answers are judged as
 * `scoop compare` judges them (migrate/compare/judge.ts). The client's answer is never
 * delayed or changed: a sampled response is only copied as it is written
 * (shadow-recorder.ts), and everything else happens once it is closed, in the
 * background, with bounded concurrency, a bounded queue (a request that finds it full is
 * dropped and counted), and a timeout.
 *
 * A replay is the client's request — same binding, path, query and body — with the
 * shadow's own token where the request carries one. Requests refused for this
 * instance's own load (BUSY, RATE_LIMITED, UNAVAILABLE), HEAD requests, 304s and
 * answers the client did not receive whole are not replayed; nor is anything that was
 * not a call of an operation (help pages, WSDL, unknown paths).
 */
import type { Logger } from 'pino';
import { type Answer, statusLine } from '../migrate/compare/answer.ts';
import { unifiedDiff } from '../migrate/compare/diff.ts';
import { HttpSender } from '../migrate/compare/http-sender.ts';
import { judge, type Outcome } from '../migrate/compare/judge.ts';
import { redactPersonal } from '../migrate/compare/redact.ts';
import { capturedRequest, type ReplayRequest } from '../migrate/compare/replay-request.ts';
import { entryOf } from '../migrate/compare/report.ts';
import { describeCompared, emptyTally, type Tally } from '../migrate/compare/run-compare.ts';
import type { Metrics } from '../observe/metrics.ts';
import type { BindingName } from '../protocol/binding.ts';
import type { Exchange, ResponseLike } from './exchange.ts';
import type { ShadowFolder } from './shadow-folder.ts';
import { RecordingResponse } from './shadow-recorder.ts';
import type { ShadowSettings } from './shadow-settings.ts';

/** Body bytes of each answer kept to compare; a longer one is compared by its SHA-256. */
export const SHADOW_KEEP_BYTES = 1024 * 1024;
/** Diff lines in a difference's log line. */
const LOGGED_DIFF_LINES = 20;
/** Failures (a dead original) are logged at most this often, with how many there were. */
const FAILURE_LOG_INTERVAL_MS = 60_000;
/**
 * After a replay gets no answer, replays are not sent for a while (1 s, doubling to 30 s
 * while they keep failing) and count as failed: a dead original would otherwise cost a
 * connection attempt per sampled request.
 */
const FIRST_PAUSE_MS = 1000;
const LONGEST_PAUSE_MS = 30_000;
/** Refusals for this instance's own state: the original is not asked about them. */
const NOT_REPLAYED = new Set(['BUSY', 'RATE_LIMITED', 'UNAVAILABLE', 'CLIENT_CLOSED', 'aborted']);

export interface ShadowOptions extends Omit<ShadowSettings, 'dir' | 'dirChosen'> {
  readonly logger: Logger;
  readonly metrics?: Metrics | undefined;
  /** Where differing exchanges are kept; none when absent. */
  readonly folder?: ShadowFolder | undefined;
  /** For tests: the sampling's dice. */
  readonly random?: () => number;
}

interface Replay {
  readonly id: string;
  readonly request: ReplayRequest;
  /** What this instance answered. */
  readonly own: Answer;
}

type ShadowOutcome = 'same' | 'different' | 'failed' | 'dropped';

const METRIC_OUTCOME: Record<Outcome, ShadowOutcome> = {
  same: 'same',
  // The metric has four outcomes; two refusals agree as much as two equal answers do.
  'both refused': 'same',
  different: 'different',
  failed: 'failed',
};

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export class Shadow {
  private readonly sender: HttpSender;
  private readonly waiting: Replay[] = [];
  private active = 0;
  private readonly counts = emptyTally();
  private dropped = 0;
  private failuresUnlogged = 0;
  private lastFailureLog = Number.NEGATIVE_INFINITY;
  private readonly idle: Array<() => void> = [];
  private pausedUntil = 0;
  private pauseMs = 0;
  private lastFailure = '';
  private closed = false;

  constructor(private readonly options: ShadowOptions) {
    this.sender = new HttpSender(options.url, {
      timeoutMs: options.timeoutMs,
      keepBytes: SHADOW_KEEP_BYTES,
      maxSockets: options.concurrency,
    });
  }

  /** Counts since start: same, both refused, different, failed (and dropped apart). */
  tally(): Tally & { dropped: number } {
    return { ...this.counts, dropped: this.dropped };
  }

  /**
   * The response to hand the pipeline: a recording one when this request is sampled,
   * else undefined (and nothing else is done for it). `attach` names its exchange.
   */
  watch(res: ResponseLike): { response: ResponseLike; attach(exchange: Exchange): void } | undefined {
    if (this.closed || (this.options.random ?? Math.random)() >= this.options.sample) return undefined;
    const recording = new RecordingResponse(res, SHADOW_KEEP_BYTES);
    return {
      response: recording,
      attach: (exchange) => res.on('close', () => this.answered(exchange, recording)),
    };
  }

  /** The client has its answer (or is gone): queue the replay, or count it dropped. */
  private answered(exchange: Exchange, recording: RecordingResponse): void {
    const { call, observation } = exchange;
    if (!call || !recording.writableFinished || exchange.method === 'HEAD') return;
    if (NOT_REPLAYED.has(observation.outcome)) return;
    const own = recording.answer();
    if (own.status === 304) return;
    const { headers } = exchange.req;
    const request = capturedRequest(
      exchange.method,
      exchange.req.url ?? exchange.path,
      {
        ...(single(headers['content-type']) !== undefined
          ? { 'content-type': single(headers['content-type'])! }
          : {}),
        ...(single(headers.soapaction) !== undefined ? { soapaction: single(headers.soapaction)! } : {}),
        ...(single(headers.authorization) !== undefined
          ? { authorization: single(headers.authorization)! }
          : {}),
      },
      exchange.body ?? Buffer.alloc(0),
      { operation: call.operation.name, binding: call.binding },
    );
    if (!request) return;
    if (Date.now() < this.pausedUntil) {
      this.counts.failed++;
      this.count(call.operation.name, call.binding, 'failed');
      this.logFailure(this.lastFailure);
      return;
    }
    if (this.closed || this.waiting.length >= this.options.queue) {
      this.dropped++;
      this.count(call.operation.name, call.binding, 'dropped');
      return;
    }
    this.waiting.push({ id: observation.id, request, own });
    this.pump();
  }

  private pump(): void {
    while (this.active < this.options.concurrency && this.waiting.length > 0) {
      const replay = this.waiting.shift()!;
      this.active++;
      this.replay(replay)
        .catch((error: unknown) =>
          this.options.logger.error({ err: error }, 'shadow: a replay failed unexpectedly'),
        )
        .finally(() => {
          this.active--;
          this.pump();
          if (this.active === 0 && this.waiting.length === 0) for (const wake of this.idle.splice(0)) wake();
        });
    }
  }

  private async replay({ id, request, own }: Replay): Promise<void> {
    const original = await this.sender.send(request.prepare(this.options.token));
    if (original.kind === 'failed') {
      this.pauseMs = Math.min(LONGEST_PAUSE_MS, this.pauseMs === 0 ? FIRST_PAUSE_MS : this.pauseMs * 2);
      this.pausedUntil = Date.now() + this.pauseMs;
      this.lastFailure = `${original.reason}; replays paused for ${this.pauseMs / 1000} s`;
    } else this.pauseMs = 0;
    const verdict = judge(original, own);
    this.counts[verdict.outcome]++;
    this.count(request.operation, request.binding, METRIC_OUTCOME[verdict.outcome]);
    if (verdict.outcome === 'failed') {
      this.logFailure(original.kind === 'failed' ? this.lastFailure : (verdict.reason ?? 'unknown'));
      return;
    }
    if (verdict.outcome !== 'different') return;
    const result = { verdict, baseline: original, candidate: own };
    this.options.logger.warn(
      {
        reqId: id,
        op: request.operation,
        binding: request.binding,
        original: statusLine(original),
        scoop: statusLine(own),
        diff: verdict.hunks
          ? redactPersonal(unifiedDiff(verdict.hunks, LOGGED_DIFF_LINES, ['original', 'scoop']))
          : undefined,
      },
      'shadow: the original answered differently',
    );
    this.options.folder?.keep(
      entryOf(describeCompared(0, request, result, true), { at: new Date().toISOString(), requestId: id }),
    );
  }

  private count(operation: string, binding: BindingName, outcome: ShadowOutcome): void {
    this.options.metrics?.shadowRequests.series(operation, binding, outcome).inc();
  }

  /** A dead original fails every replay: one line a minute says so, with the count. */
  private logFailure(reason: string): void {
    this.failuresUnlogged++;
    const now = Date.now();
    if (now - this.lastFailureLog < FAILURE_LOG_INTERVAL_MS) return;
    this.lastFailureLog = now;
    this.options.logger.warn(
      { failed: this.failuresUnlogged, reason: redactPersonal(reason) },
      'shadow: requests to the original failed',
    );
    this.failuresUnlogged = 0;
  }

  /** Resolves when nothing is waiting or in flight (tests). */
  settled(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Stops sampling, drops what waits, and lets what is in flight end (bounded by the timeout). */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.splice(0);
    await this.settled();
    this.sender.close();
    await this.options.folder?.close();
  }
}
