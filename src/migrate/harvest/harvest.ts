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
import { displayUrl, WireClient } from '../wire-client.ts';
import { EmailsFileError, readEmailsFile } from './emails-file.ts';
import { formatIdRanges } from './id-ranges.ts';
import { type Counts, type Fingerprint, isJournal, Journal, JournalMismatch } from './journal.ts';
import type { HarvestOptions } from './options.ts';
import {
  checkOutFolder,
  OutFolderError,
  partialFolderOf,
  publish,
  writeBundleJson,
} from './output-folder.ts';
import { planOf, RANGE_OPTIONS } from './plan.ts';
import { Run } from './run.ts';
import { HarvestStopped } from './stopped.ts';

export type { HarvestOptions } from './options.ts';
export { HarvestStopped } from './stopped.ts';

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
    writeBundleJson(partial);
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
