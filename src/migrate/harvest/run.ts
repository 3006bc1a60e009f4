/**
 * One harvest's work once its folders are in order: the probes, then the job sequence
 * segment by segment with `concurrency` workers, each job with its retries (attempt.ts,
 * pacer.ts) and its answer applied to the journal (apply.ts); checkpoints every second;
 * the progress display. A stop from any worker ends them all.
 */
import type { OperationName } from '../../contract/operations.ts';
import type { WireClient } from '../wire-client.ts';
import type { OpenBinary } from './answer-reader.ts';
import { applyAnswer, discardAll } from './apply.ts';
import { type AttemptContext, attempt, type Outcome } from './attempt.ts';
import { BinaryFile } from './binary-file.ts';
import type { Counts, Journal } from './journal.ts';
import type { HarvestOptions } from './options.ts';
import { partialFolderOf } from './output-folder.ts';
import { ATTEMPTS, backoffMs, Pacer, sleep } from './pacer.ts';
import type { Job, Segment } from './plan.ts';
import { Positions } from './positions.ts';
import type { ProgressSnapshot } from './progress.ts';
import { BINARY_FOLDERS } from './records.ts';
import { stopReason } from './stop-reason.ts';
import { HarvestStopped } from './stopped.ts';

/** A stop outcome from a worker, carried out of the pool with its job. */
class Stop extends Error {
  constructor(
    readonly outcome: Extract<Outcome<OperationName>, { kind: 'stop' }>,
    readonly job: Job,
  ) {
    super(outcome.reason);
  }
}

const PROBE_ATTEMPTS = 3;

/** One harvest's workers, counters and progress. */
export class Run {
  readonly warnings: string[] = [];
  requests = 0;
  answerBytes = 0;
  readonly total: number;
  private readonly pacer: Pacer;
  private readonly controller = new AbortController();
  private readonly context: AttemptContext;
  private journal: Journal | undefined;
  private positions = new Positions(0);
  private stopped: Stop | undefined;
  /** Positions of the jobs the probe did. */
  private readonly probed = new Set<number>();
  private failedJobs = 0;
  private doneThisRun = 0;
  private startPosition = 0;
  private operation = '';
  private readonly startedAt = performance.now();
  private readonly rateSamples: Array<{ at: number; done: number }> = [];

  constructor(
    private readonly options: HarvestOptions,
    private readonly client: WireClient,
    private readonly segments: readonly Segment[],
  ) {
    this.total = segments.reduce((sum, s) => sum + s.size, 0);
    this.pacer = new Pacer({ ratePerSecond: options.rate });
    options.signal?.addEventListener('abort', () => this.controller.abort(), { once: true });
    // Stopping ends what is in flight; the workers then see the abort and take nothing more.
    this.controller.signal.addEventListener('abort', () => client.abortAll(), { once: true });
    this.context = {
      client,
      namespace: options.namespace,
      token: options.token,
      received: (bytes) => {
        this.answerBytes += bytes;
      },
    };
  }

  private backoff(n: number): number {
    return this.options.backoff ? this.options.backoff(n) : backoffMs(n);
  }

  /**
   * The first job of each segment, alone: a refusal every request would get stops here,
   * before anything else is asked (and a new harvest's folder is removed again). Its
   * answer is kept like any other. Resuming, the first job the journal has not done.
   */
  async probe(journal: Journal): Promise<void> {
    this.journal = journal;
    let offset = 0;
    for (const segment of this.segments) {
      const skip = Math.max(0, journal.position - offset);
      const start = offset;
      offset += segment.size;
      if (skip >= segment.size) continue;
      let position = start + skip;
      for await (const job of segment.jobs(skip)) {
        if (job.id === undefined || !journal.has(segment.kind, job.id)) {
          const done = await this.runJob(segment, job, 'probe');
          this.interrupted();
          if (done) this.probed.add(position);
          break;
        }
        position++;
      }
    }
  }

  private try(job: Job, open: OpenBinary): Promise<Outcome<OperationName>> {
    this.requests++;
    return attempt(this.context, job.operation, job, open).catch((error: unknown) => {
      if (this.controller.signal.aborted) this.interrupted();
      throw error;
    });
  }

  private interrupted(): void {
    if (this.options.signal?.aborted)
      throw new HarvestStopped(
        `interrupted; what was harvested is kept in ${partialFolderOf(this.options.out)}: run again with --resume to go on`,
        130,
      );
  }

  async all(journal: Journal): Promise<void> {
    this.journal = journal;
    this.startPosition = journal.position;
    this.positions = new Positions(journal.position);
    const checkpoints = setInterval(() => void this.checkpoint(), 1000);
    const redraw = setInterval(() => this.options.display.show(this.snapshot()), 1000);
    try {
      let offset = 0;
      for (const segment of this.segments) {
        const skip = Math.max(0, Math.min(segment.size, journal.position - offset));
        if (skip < segment.size) await this.runSegment(segment, offset, skip);
        offset += segment.size;
        if (this.stopped || this.controller.signal.aborted) break;
      }
    } finally {
      clearInterval(checkpoints);
      clearInterval(redraw);
      await this.checkpointing;
      await journal.checkpoint(this.positions.watermark);
      this.options.display.show(this.snapshot());
      this.options.display.finish();
    }
    const partial = partialFolderOf(this.options.out);
    this.interrupted();
    if (this.stopped)
      throw new HarvestStopped(
        `stopped: ${await stopReason(this.client, this.options.namespace, this.stopped.outcome, this.stopped.job.operation)}; what was harvested is kept in ${partial}: run again with --resume to go on`,
        1,
      );
    if (this.failedJobs > 0)
      throw new HarvestStopped(
        `${this.failedJobs} request${this.failedJobs === 1 ? '' : 's'} still failed after ${ATTEMPTS} attempts (see the warnings); no bundle was written. What was harvested is kept in ${partial}: run again with --resume to ask them again`,
        1,
      );
  }

  private checkpointing: Promise<void> = Promise.resolve();
  private checkpointed = -1;

  private checkpoint(): Promise<void> {
    const mark = this.positions.watermark;
    if (mark === this.checkpointed || !this.journal) return this.checkpointing;
    const journal = this.journal;
    this.checkpointing = this.checkpointing.then(async () => {
      await journal.checkpoint(mark);
      this.checkpointed = mark;
    });
    return this.checkpointing;
  }

  private shownAt = 0;

  /** At most every 100 ms: a snapshot sums the counts, and the displays redraw less often still. */
  private showProgress(): void {
    const now = performance.now();
    if (now - this.shownAt < 100) return;
    this.shownAt = now;
    this.options.display.show(this.snapshot());
  }

  private snapshot(): ProgressSnapshot {
    const counts = this.journal?.counts;
    const sum = (pick: (c: Counts[keyof Counts]) => number) =>
      counts ? Object.values(counts).reduce((total, c) => total + pick(c), 0) : 0;
    const now = performance.now();
    const done = this.startPosition + this.doneThisRun;
    this.rateSamples.push({ at: now, done });
    while (this.rateSamples.length > 2 && now - this.rateSamples[0]!.at > 10_000) this.rateSamples.shift();
    const first = this.rateSamples[0]!;
    const rate = now - first.at >= 500 ? ((done - first.done) * 1000) / (now - first.at) : undefined;
    return {
      operation: this.operation,
      done,
      total: this.total,
      found: sum((c) => c.records),
      unknown: sum((c) => c.unknown),
      failed: sum((c) => c.failed),
      bytes: this.answerBytes,
      rate,
      elapsedSeconds: (now - this.startedAt) / 1000,
    };
  }

  private async runSegment(segment: Segment, offset: number, skip: number): Promise<void> {
    this.operation = segment.operation;
    const jobs = segment.jobs(skip)[Symbol.asyncIterator]();
    let next = offset + skip;
    let queue: Promise<unknown> = Promise.resolve();
    // One job at a time is taken from the sequence, so positions follow its order.
    const take = (): Promise<{ job: Job; position: number } | undefined> => {
      const taken = queue.then(async () => {
        const result = await jobs.next();
        return result.done ? undefined : { job: result.value, position: next++ };
      });
      queue = taken;
      return taken;
    };
    const worker = async () => {
      for (;;) {
        if (this.stopped || this.controller.signal.aborted) return;
        const item = await take();
        if (!item) return;
        if (this.probed.has(item.position)) {
          this.positions.done(item.position);
          this.doneThisRun++;
          continue;
        }
        try {
          const done = await this.runJob(segment, item.job);
          if (done) this.positions.done(item.position);
          else this.positions.failed(item.position);
          this.doneThisRun++;
          this.showProgress();
        } catch (error) {
          this.positions.failed(item.position);
          if (error instanceof Stop) {
            this.stopped ??= error;
            this.controller.abort();
            return;
          }
          if (this.controller.signal.aborted) return;
          this.controller.abort();
          throw error;
        }
      }
    };
    const results = await Promise.allSettled(Array.from({ length: this.options.concurrency }, worker));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** One job with its retries; false when it still failed (the watermark stays before it). */
  private async runJob(segment: Segment, job: Job, mode: 'probe' | 'run' = 'run'): Promise<boolean> {
    const journal = this.journal!;
    if (job.id !== undefined && journal.has(segment.kind, job.id)) {
      journal.counts[segment.kind].skipped++;
      return true;
    }
    for (let n = 1; ; n++) {
      await this.pacer.turn(this.controller.signal);
      if (this.controller.signal.aborted) return false;
      const files: BinaryFile[] = [];
      const binaryKind = job.operation === 'getBild' ? 'bilder' : 'anhaenge';
      const outcome = await this.try(job, (owner) => {
        const id = owner[binaryKind === 'bilder' ? 'bildID' : 'anhangID'];
        const known = typeof id === 'number' && journal.has(binaryKind, id);
        const file = new BinaryFile(known ? undefined : `${journal.folder}/${BINARY_FOLDERS[binaryKind]}`);
        files.push(file);
        return file;
      }).catch(async (error: unknown) => {
        await discardAll(files);
        throw error;
      });
      if (outcome.kind !== 'answer') await discardAll(files);
      switch (outcome.kind) {
        case 'answer':
          await applyAnswer({ journal, warn: (message) => this.warn(message) }, job, outcome.result, files);
          return true;
        case 'unknown':
          journal.counts[segment.kind].unknown++;
          return true;
        case 'unreadable':
          journal.counts[segment.kind].leftOut++;
          this.warn(`${job.label}: left out: ${outcome.reason}`);
          return true;
        case 'stop':
          if (mode === 'probe')
            throw new HarvestStopped(
              await stopReason(this.client, this.options.namespace, outcome, job.operation),
              2,
            );
          throw new Stop(outcome, job);
        case 'retry':
          if (mode === 'probe' && n >= PROBE_ATTEMPTS)
            throw new HarvestStopped(
              `${this.client.urlOf('')} does not answer: ${outcome.reason} (${n} attempts); nothing was written`,
              1,
            );
          if (n >= ATTEMPTS) {
            journal.counts[segment.kind].failed++;
            this.failedJobs++;
            this.warn(`${job.label} failed after ${n} attempts: ${outcome.reason}`);
            return false;
          }
          if (outcome.waitMs !== undefined) this.pacer.pauseFor(outcome.waitMs);
          await sleep(outcome.waitMs ?? this.backoff(n), this.controller.signal);
      }
    }
  }

  private warn(message: string): void {
    this.warnings.push(message);
    this.options.display.warn(message);
  }
}
