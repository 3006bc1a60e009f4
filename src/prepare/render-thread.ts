/**
 * Renders an import's answers on a thread of its own (render-worker.ts), so that the
 * import's thread goes on writing records and answers meanwhile: the records are sent as
 * written (their JSON, which the worker parses again), a record the worker lacks is read
 * from the import's transaction when it asks, and each batch comes back in slabs that are
 * handed over, not copied.
 */
import type { RecordKind } from '../contract/documents.ts';
import type { OperationName } from '../contract/operations.ts';
import type { PreparedAnswerRow } from '../store/content-store.ts';
import { SLAB_BYTES } from '../support/utf8-arena.ts';
import { WorkerCalls } from '../support/worker-thread.ts';
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
 * Rows as a message carries them, a column each (a structured clone writes an object's keys
 * with every object), their documents' JSON as UTF-8 in one buffer handed over with it:
 * strings would be copied into the worker's heap, where the documents of batches not
 * rendered yet outlived collection after collection (half of the worker's collector time).
 */
export interface RowColumns {
  readonly ids: readonly string[];
  readonly text: Uint8Array;
  /** Where each document's bytes end in `text`; -1 for a record removed. */
  readonly ends: readonly number[];
  readonly blobIds: ReadonlyArray<number | null>;
  readonly sizes: ReadonlyArray<number | null>;
}

/** Rows as the import's thread has them: their documents as text (or removed). */
export type TextRow = KnownRow & { readonly doc: string | null };

export function toColumns(rows: readonly TextRow[]): RowColumns {
  const docs = rows.map((r) => r.doc);
  const lengths = docs.map((doc) => (doc === null ? 0 : Buffer.byteLength(doc, 'utf8')));
  // Never a slice of Node's shared pool: the buffer is handed to the worker.
  const text = Buffer.allocUnsafeSlow(lengths.reduce((sum, n) => sum + n, 0));
  let at = 0;
  const ends = docs.map((doc, i) => {
    if (doc === null) return -1;
    at += text.write(doc, at, lengths[i], 'utf8');
    return at;
  });
  return {
    ids: rows.map((r) => r.id),
    text,
    ends,
    blobIds: rows.map((r) => r.blobId),
    sizes: rows.map((r) => r.size),
  };
}

export function fromColumns({ ids, text, ends, blobIds, sizes }: RowColumns): KnownRow[] {
  const bytes = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  let start = 0;
  return ids.map((id, i) => {
    const end = ends[i] ?? -1;
    const doc = end === -1 ? null : { bytes, start, end };
    if (end !== -1) start = end;
    return { id, doc, blobId: blobIds[i] ?? null, size: sizes[i] ?? null };
  });
}

/** The ArrayBuffers under a batch's answers, each once: handed to the other thread with it. */
export function slabsOf(answers: readonly PreparedAnswerRow[]): ArrayBuffer[] {
  const slabs = new Set<ArrayBuffer>();
  for (const { answer } of answers) slabs.add(answer.compact.buffer as ArrayBuffer);
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
      answer: { ...answer, compact: buffer(answer.compact) },
    })),
  };
}

/** The thread starts with the first record or batch sent to it: an import that changes nothing starts none. */
export class RenderThread {
  private readonly calls: WorkerCalls<ToRenderer, FromRenderer>;

  constructor(private readonly source: RecordSource) {
    this.calls = new WorkerCalls(
      import.meta.url,
      'render-worker',
      'the answer rendering worker',
      (message) => {
        if (message.t !== 'fetch') return false;
        this.fetch(message.id, message.kind, message.ids);
        return true;
      },
    );
  }

  know(kind: RecordKind, rows: readonly TextRow[]): void {
    // The worker parses the text: a parsed document would be copied object by object.
    const columns = toColumns(rows);
    this.calls.post({ t: 'know', kind, rows: columns }, [columns.text.buffer as ArrayBuffer]);
  }

  async render(name: OperationName, keys: readonly string[]): Promise<RenderedBatch> {
    const reply = await this.calls.call((id) => ({ t: 'render', id, name, keys }));
    if (reply.t === 'rendered') return asBuffers(reply.batch);
    throw new Error(
      reply.t === 'failed' ? reply.message : 'the answer rendering worker answered out of turn',
    );
  }

  /** A batch is written: its slabs go back to the worker, for later batches. */
  recycle(batch: RenderedBatch): void {
    const slabs = slabsOf(batch.answers).filter((slab) => slab.byteLength === SLAB_BYTES);
    this.calls.post({ t: 'recycle', slabs }, slabs);
  }

  close(): Promise<void> {
    return this.calls.close();
  }

  private fetch(id: number, kind: RecordKind, ids: readonly string[] | null): void {
    // Stopped (the import failed or is done): the transaction is not read any more.
    if (this.calls.failure) return;
    const read = ids === null ? this.source.all(kind) : this.source.rows(kind, ids);
    read.then(
      (rows) => this.calls.post({ t: 'rows', id, rows }),
      (error: unknown) => this.calls.fail(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
