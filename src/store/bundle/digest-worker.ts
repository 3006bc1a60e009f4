/**
 * The worker thread of file-digests.ts: hashes one bundle's opened files as the import's
 * thread would (hash-files.ts), from the descriptors that thread holds, and reports its
 * progress at most every PROGRESS_EVERY_MS. It closes nothing: the import's thread owns
 * the descriptors, and stops this thread (terminate) before it closes them.
 */
import { parentPort } from 'node:worker_threads';
import { BundleFileSource } from './bundle-file.ts';
import type { DigestReply, DigestRequest } from './file-digests.ts';
import { hashFiles, headJudge } from './hash-files.ts';
import { sendError } from './sent-error.ts';

const port = parentPort;
if (!port) throw new Error('digest-worker.ts runs as a worker thread (file-digests.ts)');

const PROGRESS_EVERY_MS = 20;

async function digest(request: DigestRequest): Promise<DigestReply> {
  const { id } = request;
  const warnings: string[] = [];
  let reportedAt = Number.NEGATIVE_INFINITY;
  try {
    const sha256s = await hashFiles(
      { files: request.files, sources: request.sources.map((d) => BundleFileSource.described(d)) },
      {
        onHashing: (progress) => {
          const now = performance.now();
          if (progress.files < progress.filesTotal && now - reportedAt < PROGRESS_EVERY_MS) return;
          reportedAt = now;
          port!.postMessage({ id, progress } satisfies DigestReply);
        },
      },
      headJudge(new Map(request.users), warnings),
    );
    return { id, sha256s, warnings };
  } catch (error) {
    return { id, ...sendError(error) };
  }
}

port.on('message', (request: DigestRequest) => {
  void digest(request).then((reply) => port.postMessage(reply));
});
