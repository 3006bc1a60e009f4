/**
 * A bundle's files hashed on a worker thread (digest-worker.ts) while the import's thread
 * checks the rest of bundle.json: for the realistic mix, 6,000 files and 264 MB hashed in
 * about the time its 20,000 articles and 30,000 subscriptions take to check (0.5 s each),
 * which the import's thread did one after the other before (docs/performance.md, "The
 * nineteenth round"). The files are opened here, by bundle-file.ts's rules, before the
 * worker starts: a descriptor belongs to the process, but one a worker opened is closed
 * when the worker ends, and these stay open until the files are stored. The worker reads
 * them (or opens again, by the same rules, those not held) and hashes them as this thread
 * would (hash-files.ts).
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
import { BundleError } from './validate.ts';

/** From this many files (distinct or not) a bundle's are hashed on the worker. */
export const DIGEST_WORKER_MIN_FILES = 256;

export interface DigestRequest {
  readonly id: number;
  readonly files: readonly LocatedFile[];
  readonly sources: readonly SourceDescription[];
  readonly users: ReadonlyArray<readonly [string, readonly HeadUser[]]>;
  /** Set to 1 by the import's thread to stop the worker (Atomics). */
  readonly stop: SharedArrayBuffer;
}

export type DigestReply =
  | { readonly id: number; readonly progress: HashProgress }
  | { readonly id: number; readonly sha256s: readonly string[]; readonly warnings: readonly string[] }
  | { readonly id: number; readonly refused: { readonly where: string; readonly detail: string } }
  | { readonly id: number; readonly stopped: true }
  | { readonly id: number; readonly failed: string };

export interface Digests {
  readonly opened: Map<string, OpenedFile>;
  readonly warnings: readonly string[];
}

/** The files' digests being made on a worker: `result()` once they are, or `stop()`. */
export interface DigestsUnderWay {
  /** The files with their hashes; a refusal as BundleError, as on the import's thread (the files then closed). */
  result(): Promise<Digests>;
  /** Stops the worker and closes the files. */
  stop(): Promise<void>;
}

/** Starts hashing the opened files (in bundle order) on a worker thread; they are the caller's until result() or stop(). */
export function digestOnWorker(
  opened: OpenedFiles,
  options: Pick<HashOptions, 'onHashing'>,
  users: ReadonlyMap<string, readonly HeadUser[]>,
): DigestsUnderWay {
  const calls = new WorkerCalls<DigestRequest, DigestReply>(
    import.meta.url,
    'digest-worker',
    'the file digest worker',
    (message) => {
      if (!('progress' in message)) return false;
      options.onHashing?.(message.progress);
      return true;
    },
  );
  const stop = new SharedArrayBuffer(4);
  const reply = calls.call((id) => ({
    id,
    files: opened.files,
    sources: opened.sources.map((source) => source.describe()),
    users: [...users],
    stop,
  }));
  // Awaited by result() or stop(); a failure must not go unhandled meanwhile.
  reply.catch(() => undefined);
  return {
    async result() {
      let answer: DigestReply | undefined;
      try {
        answer = await reply;
      } finally {
        // Stopped before the files can be closed: it may read them until then.
        await calls.close();
        if (answer === undefined || !('sha256s' in answer)) await closeFiles(opened);
      }
      if ('sha256s' in answer)
        return { opened: openedByPath(opened, answer.sha256s), warnings: answer.warnings };
      if ('refused' in answer) throw new BundleError(answer.refused.where, answer.refused.detail);
      throw new Error('failed' in answer ? answer.failed : 'the file digest worker stopped');
    },
    async stop() {
      Atomics.store(new Int32Array(stop), 0, 1);
      await calls.close();
      await closeFiles(opened);
    },
  };
}
