/**
 * A bundle's files hashed on a worker thread (digest-worker.ts) while the import's thread
 * checks the rest of bundle.json: for the realistic mix, 6,000 files and 264 MB hashed in
 * about the time its 20,000 articles and 30,000 subscriptions take to check (0.5–0.55 s
 * and 0.5–0.6 s), which the import's thread did one after the other before
 * (docs/performance.md, "The nineteenth round"). The files are opened by the import's
 * thread, by bundle-file.ts's rules, before the worker starts: a descriptor belongs to the
 * process, but one a worker opened is closed when the worker ends, and these stay open
 * until the files are stored. The worker reads them (or opens again, by the same rules,
 * those not held) and hashes them as the import's thread would (hash-files.ts).
 */
import { WorkerCalls } from '../../support/worker-thread.ts';
import type { SourceDescription } from './bundle-file.ts';
import {
  closeFiles,
  type HashOptions,
  type HashProgress,
  type HeadUser,
  type LocatedFile,
  type OpenedFile,
  type OpenedFiles,
  openedByPath,
} from './hash-files.ts';
import { receivedError, type SentError } from './sent-error.ts';

/** From this many files (distinct or not) a bundle's are hashed on the worker. */
export const DIGEST_WORKER_MIN_FILES = 256;

export interface DigestRequest {
  readonly id: number;
  readonly files: readonly LocatedFile[];
  readonly sources: readonly SourceDescription[];
  readonly users: ReadonlyArray<readonly [string, readonly HeadUser[]]>;
}

export type DigestReply =
  | { readonly id: number; readonly progress: HashProgress }
  | { readonly id: number; readonly sha256s: readonly string[]; readonly warnings: readonly string[] }
  | ({ readonly id: number } & SentError);

export interface Digests {
  readonly opened: Map<string, OpenedFile>;
  readonly warnings: readonly string[];
}

/** The files' digests being made on a worker: `result()` once they are, or `stop()`. */
export interface DigestsUnderWay {
  /**
   * The files with their hashes. A refusal is the BundleError the import's thread would
   * throw, and an error of `onHashing` is thrown as it was; the files are closed then.
   */
  result(): Promise<Digests>;
  /** Stops the worker, then closes the files. */
  stop(): Promise<void>;
}

/** Starts hashing the opened files (in bundle order) on a worker thread; they are the caller's until result() or stop(). */
export function digestOnWorker(
  opened: OpenedFiles,
  options: HashOptions,
  users: ReadonlyMap<string, readonly HeadUser[]>,
): DigestsUnderWay {
  /** What onHashing threw (it runs in this thread's message handler, where nothing would catch it). */
  let reportFailed: { error: unknown } | undefined;
  /** Set once the worker is being stopped: progress still queued is not reported. */
  let stopping = false;
  const calls = new WorkerCalls<DigestRequest, DigestReply>(
    import.meta.url,
    'digest-worker',
    'the file digest worker',
    (message) => {
      if (!('progress' in message)) return false;
      if (reportFailed || stopping) return true;
      try {
        options.onHashing?.(message.progress);
      } catch (error) {
        // No use hashing on: stopping the worker refuses the call result() waits for.
        reportFailed = { error };
        void calls.close();
      }
      return true;
    },
  );
  const reply = calls.call((id) => ({
    id,
    files: opened.files,
    sources: opened.sources.map((source) => source.describe()),
    users: [...users],
  }));
  // Awaited by result() or stop(); a failure must not go unhandled meanwhile.
  reply.catch(() => undefined);
  // The worker is stopped (terminate: it reads nothing more) before the files are closed,
  // so that it never reads a descriptor number the process has given to another file.
  const stop = async () => {
    stopping = true;
    await calls.close();
    await closeFiles(opened);
  };
  return {
    async result() {
      let answer: DigestReply;
      try {
        answer = await reply;
      } catch (error) {
        await stop();
        throw reportFailed?.error ?? error;
      }
      if (reportFailed) {
        await stop();
        throw reportFailed.error;
      }
      if ('sha256s' in answer) {
        await calls.close();
        return { opened: openedByPath(opened, answer.sha256s), warnings: answer.warnings };
      }
      await stop();
      if ('progress' in answer) throw new Error('the file digest worker answered with progress only');
      throw receivedError(answer);
    },
    stop,
  };
}
