/**
 * Reads, hashes and base64-encodes an import's small files (file-chunks.ts) in a worker
 * thread (encode-worker.ts), so that the import's own thread writes records and blobs
 * while the next files are being encoded (import-files.ts). The worker reads the
 * descriptors the bundle holds open (a descriptor belongs to the process) and opens the
 * others by the same rules; the owner closes the held ones, after close() has stopped it.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '../support/worker-thread.ts';
import type { BundleFile } from './bundle/bundle.ts';
import type { SourceDescription } from './bundle/bundle-file.ts';
import { BundleError } from './bundle/validate.ts';
import type { EncodedBlob } from './content-store.ts';

export interface EncodeRequest {
  readonly id: number;
  readonly file: Omit<BundleFile, 'source'> & { readonly source: SourceDescription };
}

export type EncodeReply =
  | { readonly id: number; readonly chunks: readonly ArrayBuffer[] }
  | { readonly id: number; readonly refused: { readonly where: string; readonly detail: string } }
  | { readonly id: number; readonly failed: string };

interface Waiting {
  readonly file: BundleFile;
  resolve(blob: EncodedBlob): void;
  reject(error: Error): void;
}

export class FileEncoder {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private failure: Error | undefined;

  /** The file's stored chunks; refused (BundleError) when it changed since it was hashed. */
  encode(file: BundleFile): Promise<EncodedBlob> {
    if (this.failure) return Promise.reject(this.failure);
    const worker = this.started();
    const id = this.nextId++;
    const { name, size, sha256, source } = file;
    const request: EncodeRequest = { id, file: { name, size, sha256, source: source.describe() } };
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { file, resolve, reject });
      worker.postMessage(request);
    });
  }

  /** Stops the worker; resolves once it no longer reads any file. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.failure ??= new Error('the file encoder is closed');
    if (worker) await worker.terminate();
    this.failAll(this.failure);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(import.meta.url, 'encode-worker');
    worker.on('message', (reply: EncodeReply) => this.settle(reply));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the file encoding worker stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private settle(reply: EncodeReply): void {
    const waiting = this.waiting.get(reply.id);
    if (!waiting) return;
    this.waiting.delete(reply.id);
    if ('chunks' in reply) {
      const { sha256, size } = waiting.file;
      const chunks = reply.chunks.map((chunk) => Buffer.from(chunk));
      waiting.resolve({ sha256, size, chunks });
    } else if ('refused' in reply) {
      waiting.reject(new BundleError(reply.refused.where, reply.refused.detail));
    } else {
      waiting.reject(new Error(reply.failed));
    }
  }

  /** The worker is gone: what it was asked is refused, and so is anything asked later. */
  private fail(error: Error): void {
    this.failure ??= error;
    this.worker = undefined;
    this.failAll(this.failure);
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
