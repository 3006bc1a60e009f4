/**
 * Reads, hashes and base64-encodes an import's small files (file-chunks.ts) in a worker
 * thread (encode-worker.ts), so that the import's own thread writes records and blobs
 * while the next files are being encoded (import-files.ts). The worker reads the
 * descriptors the bundle holds open (a descriptor belongs to the process) and opens the
 * others by the same rules; the owner closes the held ones, after close() has stopped it.
 */
import { WorkerCalls } from '../support/worker-thread.ts';
import type { BundleFile } from './bundle/bundle.ts';
import type { SourceDescription } from './bundle/bundle-file.ts';
import { receivedError, type SentError } from './bundle/sent-error.ts';
import type { EncodedBlob } from './content-store.ts';

export interface EncodeRequest {
  readonly id: number;
  readonly file: Omit<BundleFile, 'source'> & { readonly source: SourceDescription };
}

export type EncodeReply =
  | { readonly id: number; readonly chunks: readonly ArrayBuffer[] }
  | ({ readonly id: number } & SentError);

export class FileEncoder {
  private readonly calls = new WorkerCalls<EncodeRequest, EncodeReply>(
    import.meta.url,
    'encode-worker',
    'the file encoding worker',
  );

  /** The file's stored chunks; refused (BundleError) when it changed since it was hashed. */
  async encode(file: BundleFile): Promise<EncodedBlob> {
    const { name, size, sha256, source } = file;
    const reply = await this.calls.call((id) => ({
      id,
      file: { name, size, sha256, source: source.describe() },
    }));
    if ('chunks' in reply) return { sha256, size, chunks: reply.chunks.map((chunk) => Buffer.from(chunk)) };
    throw receivedError(reply);
  }

  /** Stops the worker; resolves once it no longer reads any file. */
  close(): Promise<void> {
    return this.calls.close();
  }
}
