/**
 * `scoop harvest`: a running original (or any service of this wire) into a bundle
 * (docs/migration.md). In order:
 *
 * 1. check the folders and the --emails file, before anything is asked;
 * 2. probe: the first request of each operation, alone, so a wrong token, a wrong
 *    namespace or an endpoint that is not this service stops the harvest before it writes
 *    anything (HarvestStopped, exit 2), and an unreachable one too (exit 1);
 * 3. the job sequence (plan.ts), segment by segment, `concurrency` workers each with one
 *    request in flight, paced (pacer.ts), every answer read as it streams in (attempt.ts)
 *    and its records appended to the journal (apply.ts), which is checkpointed every second;
 * 4. when every request was answered: bundle.json, harvest.json, and the rename that makes
 *    the bundle appear whole (output-folder.ts). When some still failed after every retry,
 *    nothing is published: the journal stays for `--resume`.
 */
import { rm } from 'node:fs/promises';
import type { OperationName, ResultOf } from '../../contract/operations.ts';
import { displayUrl, readText, WireClient } from '../wire-client.ts';
import { type OpenBinary, operationNamed } from './answer-reader.ts';
import {
  type ApplyContext,
  applyAbonnement,
  applyAnhang,
  applyArtikel,
  applyBereich,
  applyBild,
  applyCityAppBereich,
  applyNewsletters,
  discardAll,
} from './apply.ts';
import { type AttemptContext, attempt, type Outcome } from './attempt.ts';
import { BinaryFile } from './binary-file.ts';
import { EmailsFileError, readEmailsFile } from './emails-file.ts';
import { formatIdRanges, type IdRange } from './id-ranges.ts';
import { type Counts, type Fingerprint, isJournal, Journal, JournalMismatch } from './journal.ts';
import {
  checkOutFolder,
  OutFolderError,
  partialFolderOf,
  publish,
  writeBundleJson,
} from './output-folder.ts';
import { ATTEMPTS, backoffMs, Pacer, sleep } from './pacer.ts';
import { type Job, planOf, RANGE_OPTIONS, type RangeOption, type Segment } from './plan.ts';
import { Positions } from './positions.ts';
import type { ProgressDisplay, ProgressSnapshot } from './progress.ts';
import { BINARY_FOLDERS } from './records.ts';

export interface HarvestOptions {
  readonly from: URL;
  readonly out: string;
  readonly namespace: string;
  readonly token: string | undefined;
  readonly ranges: Partial<Record<RangeOption, readonly IdRange[]>>;
  readonly emails: string | undefined;
  readonly concurrency: number;
  readonly rate: number | undefined;
  readonly resume: boolean;
  readonly display: ProgressDisplay;
  /** Aborted to interrupt the harvest (SIGINT, SIGTERM): it stops, keeping what it has for --resume. */
  readonly signal?: AbortSignal;
  /** For tests: how long a silent connection is waited for, and the back-off between attempts. */
  readonly idleTimeoutMs?: number;
  readonly backoff?: (attempt: number) => number;
}

export interface HarvestSummary {
  readonly out: string;
  readonly counts: Counts;
  readonly warnings: number;
  readonly requests: number;
  readonly answerBytes: number;
  readonly seconds: number;
  /** Where in the job sequence this run began (0 unless resumed). */
  readonly resumedAt: number;
  readonly total: number;
}

/** The harvest stopped; `exitCode` 2 for an operator's mistake, 1 for the source or a failure, 130 when interrupted. */
export class HarvestStopped extends Error {
  override readonly name = 'HarvestStopped';
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

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
const MAX_KEPT_WARNINGS = 1000;

function fingerprintOf(options: HarvestOptions, emailsSha256: string | null): Fingerprint {
  // Not the URL: a resumed harvest may ask another instance of the same service.
  const print: Record<string, string | null> = {
    namespace: options.namespace,
    token: options.token === undefined ? null : 'given',
    emails: emailsSha256,
  };
  for (const { option } of RANGE_OPTIONS) {
    const ranges = options.ranges[option];
    print[option] = ranges ? formatIdRanges(ranges) : null;
  }
  return print;
}

export async function harvest(options: HarvestOptions): Promise<HarvestSummary> {
  const started = performance.now();
  try {
    await checkOutFolder(options.out);
  } catch (error) {
    if (error instanceof OutFolderError) throw new HarvestStopped(error.message, 2);
    throw error;
  }
  let emails: Awaited<ReturnType<typeof readEmailsFile>> | undefined;
  try {
    emails = options.emails === undefined ? undefined : await readEmailsFile(options.emails);
  } catch (error) {
    if (error instanceof EmailsFileError) throw new HarvestStopped(error.message, 2);
    throw error;
  }
  const segments = planOf({ ranges: options.ranges, newsletters: options.token !== undefined, emails });
  const client = new WireClient(options.from, {
    maxSockets: options.concurrency,
    ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
  });
  const partial = partialFolderOf(options.out);
  let journal: Journal | undefined;
  try {
    const run = new Run(options, client, segments);
    const fingerprint = fingerprintOf(options, emails?.sha256 ?? null);
    const resuming = options.resume && (await isJournal(partial));
    if (resuming) {
      try {
        journal = await Journal.resume(partial, fingerprint);
      } catch (error) {
        if (error instanceof JournalMismatch) throw new HarvestStopped(error.message, 2);
        throw error;
      }
    } else {
      // checkOutFolder made sure a folder there is an interrupted harvest's: ours to start over.
      await rm(partial, { recursive: true, force: true });
      journal = await Journal.create(partial, fingerprint);
    }
    try {
      await run.probe(journal);
    } catch (error) {
      // A new harvest the source refused leaves nothing behind.
      if (!resuming) {
        journal.close();
        await rm(partial, { recursive: true, force: true });
      }
      throw error;
    }
    const resumedAt = journal.position;
    await run.all(journal);
    journal.close();
    await writeBundleJson(partial);
    await publish(partial, options.out, {
      from: displayUrl(options.from),
      namespace: options.namespace,
      asked: fingerprint,
      started: journal.started,
      finished: new Date().toISOString(),
      counts: journal.counts,
      warnings: run.warnings.slice(0, MAX_KEPT_WARNINGS),
      warningCount: run.warnings.length,
    });
    return {
      out: options.out,
      counts: journal.counts,
      warnings: run.warnings.length,
      requests: run.requests,
      answerBytes: run.answerBytes,
      seconds: (performance.now() - started) / 1000,
      resumedAt,
      total: run.total,
    };
  } finally {
    journal?.close();
    client.close();
  }
}

/** One harvest's workers, counters and progress. */
class Run {
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
    this.context = {
      client,
      namespace: options.namespace,
      token: options.token,
      signal: this.controller.signal,
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

  /** A stop's reason, with what the operator may have got wrong. */
  private async explain(outcome: Stop['outcome'], job: Job): Promise<string> {
    if (outcome.hint === 'token') return `${outcome.reason} (check --token)`;
    if (outcome.hint !== 'namespace') return outcome.reason;
    const found = await this.wsdlNamespace(job.operation).catch(() => undefined);
    if (found !== undefined && found !== this.options.namespace)
      return `${outcome.reason}; the service's WSDL names the namespace ${found}: pass --namespace ${found}`;
    return `${outcome.reason} (is --namespace ${this.options.namespace} the service's?)`;
  }

  /** The targetNamespace the endpoint's WSDL declares, when it serves one. */
  private async wsdlNamespace(operation: OperationName): Promise<string | undefined> {
    const path = `${operationNamed(operation).endpoint.path}?wsdl`;
    const answer = await this.client.send({ method: 'GET', path, headers: {}, body: '' });
    const text = await readText(answer, 256 * 1024);
    if (answer.status !== 200) return undefined;
    return /<(?:\w+:)?definitions\b[^>]*\btargetNamespace="([^"]*)"/.exec(text)?.[1];
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
        `stopped: ${await this.explain(this.stopped.outcome, this.stopped.job)}; what was harvested is kept in ${partial}: run again with --resume to go on`,
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
          await this.apply(job, outcome.result, files);
          return true;
        case 'unknown':
          journal.counts[segment.kind].unknown++;
          return true;
        case 'unreadable':
          journal.counts[segment.kind].leftOut++;
          this.warn(`${job.label}: left out: ${outcome.reason}`);
          return true;
        case 'stop':
          if (mode === 'probe') throw new HarvestStopped(await this.explain(outcome, job), 2);
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

  private apply(job: Job, result: ResultOf<OperationName>, files: readonly BinaryFile[]): Promise<boolean> {
    const context: ApplyContext = { journal: this.journal!, warn: (message) => this.warn(message) };
    const label = job.label;
    if ('artikelDetails' in result && job.id !== undefined)
      return applyArtikel(context, label, job.id, result.artikelDetails, files);
    if ('bereich' in result) return applyBereich(context, label, result.bereich);
    if ('cityAppBereich' in result) return applyCityAppBereich(context, label, result.cityAppBereich);
    if ('anhang' in result) return applyAnhang(context, label, result.anhang, files);
    if ('bild' in result) return applyBild(context, label, result.bild, files);
    if ('newsletter' in result) {
      const list = result.newsletter;
      if (job.operation === 'getNewsletter')
        return applyNewsletters(context, label, list.filter(isNewsletter));
      const email = job.args.email;
      const ids = list.filter((n): n is number => typeof n === 'number');
      if (typeof email === 'string' && ids.length === 0) {
        // The wire cannot tell an address with no subscription from an unknown one.
        this.journal!.counts.abonnements.unknown++;
        return Promise.resolve(false);
      }
      if (typeof email === 'string') return applyAbonnement(context, label, email, ids);
    }
    throw new Error(`no records taken from the answer to ${job.operation}`);
  }
}

function isNewsletter(value: unknown): value is { name: string | null; newsletterID: number } {
  return typeof value === 'object' && value !== null && 'newsletterID' in value;
}
