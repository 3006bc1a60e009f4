/**
 * Renders an import's answers on a thread of its own (render-worker.ts), so that the
 * import's thread goes on writing records and answers meanwhile: the records are sent as
 * written (their JSON, which the worker parses again), a record the worker lacks is read
 * from the import's transaction when it asks, and each batch comes back in slabs that are
 * handed over, not copied.
 */
import type { Worker } from 'node:worker_threads';
import type { RecordKind } from '../contract/documents.ts';
import type { OperationName } from '../contract/operations.ts';
import type { PreparedAnswerRow } from '../store/content-store.ts';
import { SLAB_BYTES } from '../support/utf8-arena.ts';
import { startWorker } from '../support/worker-thread.ts';
import type { KnownRow, RecordSource, RenderedBatch } from './render-session.ts';

export type ToRenderer =
  | { readonly t: 'know'; readonly kind: RecordKind; readonly rows: RowColumns }
  | {
      readonly t: 'render';
      readonly id: number;
      readonly name: OperationName;
      readonly keys: readonly string[];
    }
  | { readonly t: 'rows'; readonly id: number; readonly rows: readonly KnownRow[] }
  | { readonly t: 'recycle'; readonly slabs: readonly ArrayBuffer[] };

export type FromRenderer =
  | {
      readonly t: 'fetch';
      readonly id: number;
      readonly kind: RecordKind;
      readonly ids: readonly string[] | null;
    }
  | { readonly t: 'rendered'; readonly id: number; readonly batch: RenderedBatch }
  | { readonly t: 'failed'; readonly id: number; readonly message: string };

/**
 * Rows as a message carries them, a column each: a structured clone writes an object's
 * keys with every object, and the worker would make an object of each to read it.
 */
export interface RowColumns {
  readonly ids: readonly string[];
  readonly docs: ReadonlyArray<string | null>;
  readonly blobIds: ReadonlyArray<number | null>;
  readonly sizes: ReadonlyArray<number | null>;
}

export function toColumns(rows: readonly KnownRow[]): RowColumns {
  return {
    ids: rows.map((r) => r.id),
    docs: rows.map((r) => r.doc),
    blobIds: rows.map((r) => r.blobId),
    sizes: rows.map((r) => r.size),
  };
}

export function fromColumns({ ids, docs, blobIds, sizes }: RowColumns): KnownRow[] {
  return ids.map((id, i) => ({
    id,
    doc: docs[i] ?? null,
    blobId: blobIds[i] ?? null,
    size: sizes[i] ?? null,
  }));
}

/** The ArrayBuffers under a batch's answers, each once: handed to the other thread with it. */
export function slabsOf(answers: readonly PreparedAnswerRow[]): ArrayBuffer[] {
  const slabs = new Set<ArrayBuffer>();
  for (const { answer } of answers) {
    for (const view of [answer.compact, answer.indented]) slabs.add(view.buffer as ArrayBuffer);
  }
  return [...slabs];
}

/** Views received as plain Uint8Arrays, as the Buffers a store writes (no copy). */
function asBuffers(batch: RenderedBatch): RenderedBatch {
  const buffer = (view: Uint8Array) => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
  return {
    ...batch,
    answers: batch.answers.map(({ operation, key, answer }) => ({
      operation,
      key,
      answer: { ...answer, compact: buffer(answer.compact), indented: buffer(answer.indented) },
    })),
  };
}

interface Waiting {
  resolve(batch: RenderedBatch): void;
  reject(error: Error): void;
}

/** The thread starts with the first record or batch sent to it: an import that changes nothing starts none. */
export class RenderThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly waiting = new Map<number, Waiting>();
  private failure: Error | undefined;

  constructor(private readonly source: RecordSource) {}

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(import.meta.url, 'render-worker');
    worker.on('message', (message: FromRenderer) => this.received(message));
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) =>
      this.fail(new Error(`the answer rendering worker stopped (exit code ${code})`)),
    );
    this.worker = worker;
    return worker;
  }

  know(kind: RecordKind, rows: readonly KnownRow[]): void {
    // The worker parses the text: a parsed document would be copied object by object.
    this.post({ t: 'know', kind, rows: toColumns(rows) });
  }

  render(name: OperationName, keys: readonly string[]): Promise<RenderedBatch> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.post({ t: 'render', id, name, keys });
    });
  }

  /** A batch is written: its slabs go back to the worker, for later batches. */
  recycle(batch: RenderedBatch): void {
    const slabs = slabsOf(batch.answers).filter((slab) => slab.byteLength === SLAB_BYTES);
    if (!this.failure) this.started().postMessage({ t: 'recycle', slabs } satisfies ToRenderer, slabs);
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the answer renderer is closed');
    await this.worker?.terminate();
    this.failAll(this.failure);
  }

  private post(message: ToRenderer): void {
    if (!this.failure) this.started().postMessage(message);
  }

  private received(message: FromRenderer): void {
    if (message.t === 'fetch') {
      this.fetch(message.id, message.kind, message.ids);
      return;
    }
    const waiting = this.waiting.get(message.id);
    if (!waiting) return;
    this.waiting.delete(message.id);
    if (message.t === 'rendered') waiting.resolve(asBuffers(message.batch));
    else waiting.reject(new Error(message.message));
  }

  private fetch(id: number, kind: RecordKind, ids: readonly string[] | null): void {
    const read = ids === null ? this.source.all(kind) : this.source.rows(kind, ids);
    read.then(
      (rows) => this.post({ t: 'rows', id, rows }),
      (error: unknown) => this.fail(error instanceof Error ? error : new Error(String(error))),
    );
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.failAll(this.failure);
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
