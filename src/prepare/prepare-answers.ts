/**
 * The import's side of prepared answers. Inside the import's transaction, each answer the
 * changed records affect is rendered (render-session.ts) and written with them. Answers
 * are asked for as soon as what they show is written: an operation's own records batch by
 * batch once the kinds it shows are all written (an article's areas and attachments come
 * before the articles), the rest once its kind is done. A large import renders on a thread
 * of its own (render-thread.ts) while the import's thread writes; a small one renders on
 * the import's thread, a batch ahead of the batch being written.
 */
import { ARTIKEL_REFERENCES, type RecordKind } from '../contract/documents.ts';
import type { AnswerKey, ImportTransaction, StoredRow } from '../store/content-store.ts';
import type { AnswerPreparer, PreparingAnswers, WrittenRecord } from '../store/import.ts';
import { ANSWERS_FORMAT, PREPARED, type PreparedOperation } from './prepared-operations.ts';
import { type KnownRow, type RecordSource, type RenderedBatch, RenderSession } from './render-session.ts';
import { RenderThread, slabsOf, type TextRow } from './render-thread.ts';

/** Keys rendered per batch: their records (and what they show) are read in one go first. */
const BATCH_KEYS = 500;
/** Batches a thread of its own may render ahead of the writes (at most a few MB of answers each). */
const THREAD_AHEAD = 8;
/** Below this many records in a bundle, starting a thread costs more than it saves. */
const THREAD_MIN_RECORDS = 5_000;

interface Renderer {
  know(kind: RecordKind, rows: readonly TextRow[]): void;
  render(name: PreparedOperation['name'], keys: readonly string[]): Promise<RenderedBatch>;
  /** The batch is written: its buffers may serve again. */
  recycle(batch: RenderedBatch): void;
  close(): Promise<void>;
}

function known(id: string, row: StoredRow): KnownRow {
  return { id, doc: row.doc, blobId: row.blobId, size: row.size };
}

/** The import's transaction as it stands, for records the renderer was not told of. */
function transactionSource(tx: ImportTransaction): RecordSource {
  return {
    async rows(kind, ids) {
      return [...(await tx.rows(kind, ids))].map(([id, row]) => known(id, row));
    },
    async all(kind) {
      return [...(await tx.rows(kind))].map(([id, row]) => known(id, row));
    },
  };
}

/** Articles that show a changed area, city-app area or attachment (their answers change with it). */
async function articlesShowing(
  tx: ImportTransaction,
  changed: ReadonlyMap<RecordKind, ReadonlySet<string>>,
): Promise<string[]> {
  const showing = new Set<string>();
  for (const { field, kind } of ARTIKEL_REFERENCES) {
    const ids = changed.get(kind);
    if (ids && ids.size > 0)
      for (const id of await tx.referencing('artikel', field, [...ids])) showing.add(id);
  }
  return [...showing];
}

class Preparing implements PreparingAnswers {
  private readonly done = new Set<RecordKind>();
  /** Ids of each kind the import wrote or removed. */
  private readonly changed = new Map<RecordKind, Set<string>>();
  /** Keys of each operation asked for so far. */
  private readonly asked = new Map<string, Set<string>>();
  private readonly finished = new Set<string>();
  /** Batches not yet asked for, and those asked for and not yet written, in order. */
  private readonly queue: Array<{ name: PreparedOperation['name']; keys: string[] }> = [];
  private inFlight = 0;
  /** The writes of answers, one batch after another, in the order asked. */
  private writing: Promise<void> = Promise.resolve();
  private written = 0;
  /** Every answer written or removed, for the store's record of the import's changes. */
  private readonly touched: AnswerKey[] = [];

  /**
   * `helper`: a renderer on the import's thread, when `renderer` is a thread of its own:
   * once every record is written, this thread has nothing left to do but write answers, so
   * it renders the batches not yet sent, from the last, while the thread renders from the
   * first (finish).
   */
  constructor(
    private readonly tx: ImportTransaction,
    private readonly all: boolean,
    private readonly renderer: Renderer,
    private readonly ahead: number,
    private readonly helper?: () => Renderer,
  ) {}

  wrote(kind: RecordKind, rows: readonly WrittenRecord[]): void {
    if (rows.length === 0) return;
    this.renderer.know(kind, rows);
    const changed = this.changed.get(kind) ?? new Set();
    this.changed.set(kind, changed);
    for (const { id } of rows) changed.add(id);
    for (const prepared of PREPARED) {
      if (prepared.kind !== kind || prepared.whole || !prepared.shows.every((k) => this.done.has(k)))
        continue;
      this.ask(
        prepared,
        rows.map((r) => r.id),
      );
    }
  }

  async kindDone(kind: RecordKind): Promise<void> {
    this.done.add(kind);
    for (const prepared of PREPARED) {
      if (this.finished.has(prepared.name)) continue;
      if (!this.done.has(prepared.kind) || !prepared.shows.every((k) => this.done.has(k))) continue;
      this.finished.add(prepared.name);
      const asked = this.asked.get(prepared.name);
      this.ask(
        prepared,
        (await this.keysLeft(prepared)).filter((key) => !asked?.has(key)),
      );
    }
  }

  async finish(): Promise<number> {
    if (this.helper && this.queue.length > 0) {
      const helper = this.helper();
      while (this.queue.length > 0) {
        const { name, keys } = this.queue.pop()!;
        const rendered = helper.render(name, keys);
        this.write(name, rendered, helper);
        // Rendered before the next is taken: the thread may take the ones before it meanwhile.
        // A failure is the write chain's, awaited below.
        if (
          await rendered.then(
            () => false,
            () => true,
          )
        )
          break;
      }
    }
    for (let current = this.writing; ; current = this.writing) {
      await current;
      if (current === this.writing) break;
    }
    return this.written;
  }

  answersChanged(): readonly AnswerKey[] {
    return this.touched;
  }

  /** Stops rendering; resolves once no write of answers is under way. */
  async abort(): Promise<void> {
    this.queue.length = 0;
    await this.renderer.close();
    // A write under way finishes first (on PostgreSQL the rollback would wait for it anyway).
    await this.writing.catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.renderer.close();
  }

  /** The keys an operation's answers need once its kinds are written, asked for or not. */
  private async keysLeft(prepared: PreparedOperation): Promise<string[]> {
    const changed = this.changed.get(prepared.kind);
    if (prepared.whole) return this.all || (changed?.size ?? 0) > 0 ? [''] : [];
    if (this.all) return this.tx.ids(prepared.kind);
    const keys = new Set(changed);
    if (prepared.shows.length > 0)
      for (const id of await articlesShowing(this.tx, this.changed)) keys.add(id);
    return [...keys];
  }

  private ask(prepared: PreparedOperation, keys: readonly string[]): void {
    const asked = this.asked.get(prepared.name) ?? new Set();
    this.asked.set(prepared.name, asked);
    for (const key of keys) asked.add(key);
    for (let from = 0; from < keys.length; from += BATCH_KEYS)
      this.queue.push({ name: prepared.name, keys: keys.slice(from, from + BATCH_KEYS) });
    this.pump();
  }

  /** Asks for batches while fewer than `ahead` are unwritten; each is written after the one before. */
  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.ahead) {
      const { name, keys } = this.queue.shift()!;
      this.inFlight++;
      this.write(name, this.renderer.render(name, keys), this.renderer, () => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Writes a batch once it is rendered, after the batches asked for before it; its buffers then go back to `by`. */
  private write(
    name: PreparedOperation['name'],
    rendered: Promise<RenderedBatch>,
    by: Renderer,
    then?: () => void,
  ): void {
    // Awaited in turn below; a failure is the write chain's.
    rendered.catch(() => undefined);
    this.writing = this.writing.then(async () => {
      const batch = await rendered;
      const { answers, gone } = batch;
      await this.tx.putAnswers(ANSWERS_FORMAT, answers);
      await this.tx.deleteAnswers(name, gone);
      // Every answer is redone when `all`: the import records no list then.
      if (!this.all) {
        for (const { operation, key } of answers) this.touched.push({ operation, key });
        for (const key of gone) this.touched.push({ operation: name, key });
      }
      // Every byte is read or sent by now (ImportTransaction.putAnswers).
      by.recycle(batch);
      this.written += answers.length;
      then?.();
    });
    // Awaited in finish(), where a failure fails the import (or by abort()).
    this.writing.catch(() => undefined);
  }
}

/** A renderer on the import's thread. */
function localRenderer(source: RecordSource): Renderer {
  const session = new RenderSession(source);
  return {
    know: (kind, rows) => session.know(kind, rows),
    render: (name, keys) => session.render(name, keys),
    recycle: (batch) => session.recycle(slabsOf(batch.answers)),
    close: async () => undefined,
  };
}

export interface AnswerPreparerOptions {
  /** Bundles of at least this many records render on a thread of their own (default 5,000). */
  readonly threadFromRecords?: number;
  /** Batches a thread of its own may render ahead of the writes (default 8). */
  readonly threadAhead?: number;
}

export function answerPreparer(options: AnswerPreparerOptions = {}): AnswerPreparer {
  const threadFrom = options.threadFromRecords ?? THREAD_MIN_RECORDS;
  return {
    format: ANSWERS_FORMAT,
    begin(tx, all, records) {
      const source = transactionSource(tx);
      if (records >= threadFrom)
        return new Preparing(
          tx,
          all,
          new RenderThread(source),
          options.threadAhead ?? THREAD_AHEAD,
          // Told of no record: it reads those of its batches from the transaction.
          () => localRenderer(source),
        );
      // One batch rendered while the one before it is written (on PostgreSQL, by the server's own core).
      return new Preparing(tx, all, localRenderer(source), 2);
    },
  };
}
