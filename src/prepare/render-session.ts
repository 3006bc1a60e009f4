/**
 * Renders prepared answers from records it is told of, by the operation's own handler and
 * the writer compiled from the contract, in the compact layout, so a prepared answer is byte
 * for byte what the handler would have made of the same content (and its indented layout,
 * made from it: xml/indent.ts). It sees no store: the records
 * an import wrote are handed to it as written (`know`), and any other it needs is asked of
 * its host (`RecordSource`). The same code runs on the import's thread or on a thread of
 * its own (render-thread.ts), where the records arrive as messages.
 */
import { ARTIKEL_REFERENCES, type RecordKind } from '../contract/documents.ts';
import { ScoopError } from '../contract/errors.ts';
import { OPERATIONS, type Operation, type OperationName } from '../contract/operations.ts';
import { compileOperationWriter, type OperationWriter } from '../protocol/serialize.ts';
import type { ServiceContext } from '../service/handlers.ts';
import { invoke } from '../service/invoke.ts';
import {
  type PreparedAnswer,
  type PreparedAnswerRow,
  parseDoc,
  type Snapshot,
  type StoredRecord,
} from '../store/content-store.ts';
import { SlabPool, Utf8Arena } from '../support/utf8-arena.ts';
import { BinaryReference, splitFragment } from './fragment.ts';
import { PREPARED, type PreparedOperation } from './prepared-operations.ts';

/** A document's JSON as UTF-8, bytes `start` to `end` of a buffer shared with others. */
export interface Utf8Slice {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

/**
 * A record as stored: its document's JSON (as text, or as UTF-8 read when first asked
 * for), or null for one the store does not hold (or no longer: an import removed it);
 * `parsed`, when the host has the document parsed already.
 */
export interface KnownRow {
  readonly id: string;
  readonly doc: string | Utf8Slice | null;
  readonly blobId: number | null;
  readonly size: number | null;
  readonly parsed?: unknown;
}

/** Where records not told of are read: the import's transaction, as it stands. */
export interface RecordSource {
  /** The rows with these ids; an id the store does not hold has none. */
  rows(kind: RecordKind, ids: readonly string[]): Promise<KnownRow[]>;
  /** Every row of a kind. */
  all(kind: RecordKind): Promise<KnownRow[]>;
}

/** One batch of an operation's answers: those rendered, and the keys that have none (the handler answers them). */
export interface RenderedBatch {
  readonly operation: OperationName;
  readonly answers: PreparedAnswerRow[];
  readonly gone: string[];
}

/** Kinds read again and again while articles are rendered (their areas, attachments): kept for the import. */
const SHARED_KINDS: ReadonlySet<RecordKind> = new Set(ARTIKEL_REFERENCES.map((r) => r.kind));

function toRecord(row: KnownRow): StoredRecord | undefined {
  const source = row.doc;
  if (source === null) return undefined;
  const blob =
    row.blobId === null
      ? undefined
      : {
          id: row.blobId,
          sha256: '',
          size: row.size ?? 0,
          source: new BinaryReference(row.blobId, row.size ?? 0),
        };
  // Read and parsed once, when first asked for (an article's document is read by the batch's
  // loading, the window and its handler), not when told of: a document parsed just before
  // its answer is rendered is garbage young, where one parsed as it arrived would outlive
  // the collections until its batch.
  let text = typeof source === 'string' ? source : undefined;
  const readText = () => {
    if (text === undefined) {
      const { bytes, start, end } = source as Utf8Slice;
      text = bytes.toString('utf8', start, end);
    }
    return text;
  };
  let parsed = row.parsed as StoredRecord['parsed'];
  const record = {
    get doc() {
      return readText();
    },
    get parsed() {
      parsed ??= JSON.parse(readText()) as StoredRecord['parsed'];
      return parsed;
    },
  };
  return blob ? Object.assign(record, { blob }) : record;
}

/**
 * The records as handlers read them; binaries are references (fragment.ts). Records are
 * read many at a time (`load`) ahead of the handlers that ask for them, which then find
 * them here; a kind's records that no other answer shows are let go after their batch.
 */
class KnownSnapshot implements Snapshot {
  /** By kind, then id: the records known, undefined for one the store does not hold. */
  private readonly records = new Map<RecordKind, Map<string, StoredRecord | undefined>>();

  constructor(private readonly source: RecordSource) {}

  private of(kind: RecordKind): Map<string, StoredRecord | undefined> {
    let here = this.records.get(kind);
    if (!here) {
      here = new Map();
      this.records.set(kind, here);
    }
    return here;
  }

  know(kind: RecordKind, rows: readonly KnownRow[]): void {
    const here = this.of(kind);
    for (const row of rows) here.set(row.id, toRecord(row));
  }

  /** Reads the records of `kind` with these ids that are not known yet, in one go. */
  async load(kind: RecordKind, ids: Iterable<string>): Promise<void> {
    const here = this.of(kind);
    const missing = new Set<string>();
    for (const id of ids) if (!here.has(id)) missing.add(id);
    if (missing.size === 0) return;
    const rows = new Map((await this.source.rows(kind, [...missing])).map((row) => [row.id, row]));
    // A record told of while the read was under way is newer than what was read.
    for (const id of missing) {
      if (here.has(id)) continue;
      const row = rows.get(id);
      here.set(id, row && toRecord(row));
    }
  }

  release(kind: RecordKind, ids: Iterable<string>): void {
    if (SHARED_KINDS.has(kind)) return;
    const here = this.records.get(kind);
    for (const id of ids) here?.delete(id);
  }

  async get(kind: RecordKind, id: string): Promise<StoredRecord | undefined> {
    const here = this.of(kind);
    if (!here.has(id)) await this.load(kind, [id]);
    return here.get(id);
  }

  async getMany(kind: RecordKind, ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    await this.load(kind, ids);
    const here = this.of(kind);
    const found = new Map<string, StoredRecord>();
    for (const id of ids) {
      const record = here.get(id);
      if (record) found.set(id, record);
    }
    return found;
  }

  async all(kind: RecordKind): Promise<Array<{ id: string; record: StoredRecord }>> {
    const list: Array<{ id: string; record: StoredRecord }> = [];
    for (const row of await this.source.all(kind)) {
      const record = toRecord(row);
      if (record) list.push({ id: row.id, record });
    }
    // As the stores' own all() orders them: by the leading integer (0 for none), then the id.
    const leading = (id: string) => Number(/^-?\d{1,18}/.exec(id)?.[0] ?? 0);
    return list.sort((a, b) => leading(a.id) - leading(b.id) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async blob(): Promise<undefined> {
    throw new Error('an import does not read blobs by reference');
  }

  async answer(): Promise<undefined> {
    throw new Error('an import does not read prepared answers');
  }
}

/** What handlers need besides the store: nothing of it is used for an answer as stored. */
const IMPORT_CONTEXT: Omit<ServiceContext, 'store' | 'now'> = {
  options: { maxImageDimension: Number.MAX_SAFE_INTEGER },
  images: {
    variant: () => Promise.reject(new Error('an import prepares no resized images')),
    held: () => undefined,
    imageGone: () => undefined,
  },
};

interface Renderer {
  readonly prepared: PreparedOperation;
  readonly operation: Operation;
  readonly writer: OperationWriter;
}

/** Answers rendered between turns of the event loop (about 10 ms of articles). */
const RENDERS_A_TURN = 50;

export class RenderSession {
  private readonly snapshot: KnownSnapshot;
  private readonly renderers = new Map<string, Renderer>();
  private readonly slabs = new SlabPool();

  constructor(source: RecordSource) {
    this.snapshot = new KnownSnapshot(source);
    for (const prepared of PREPARED) {
      const operation = OPERATIONS.find((o) => o.name === prepared.name)!;
      // The namespace is only in the envelope, which each request adds: the inside has none.
      this.renderers.set(prepared.name, {
        prepared,
        operation,
        writer: compileOperationWriter(operation, ''),
      });
    }
  }

  /** Records as the import wrote them (or removed them: `doc` null). */
  know(kind: RecordKind, rows: readonly KnownRow[]): void {
    this.snapshot.know(kind, rows);
  }

  /** The buffers of a batch whose answers are written: its slabs serve later batches. */
  recycle(buffers: Iterable<ArrayBuffer>): void {
    this.slabs.give(buffers);
  }

  /**
   * The answers for these keys, each a view of slabs of the batch's own (whose
   * ArrayBuffers may be handed on, then back: `recycle`); a key without an answer is `gone`.
   */
  async render(name: OperationName, keys: readonly string[]): Promise<RenderedBatch> {
    const renderer = this.renderers.get(name)!;
    const { kind, whole, shows } = renderer.prepared;
    if (!whole) await this.snapshot.load(kind, keys);
    if (shows.length > 0) await this.loadShown(kind, keys);
    const arena = new Utf8Arena(this.slabs);
    const answers: PreparedAnswerRow[] = [];
    const gone: string[] = [];
    for (const [i, key] of keys.entries()) {
      // Other work of the thread (its messages, the import's writes) gets a turn now and then.
      if (i % RENDERS_A_TURN === RENDERS_A_TURN - 1)
        await new Promise<void>((resolve) => setImmediate(resolve));
      const answer = await this.renderOne(renderer, key, arena);
      if (answer) answers.push({ operation: name, key, answer });
      else gone.push(key);
    }
    if (!whole) this.snapshot.release(kind, keys);
    return { operation: name, answers, gone };
  }

  /** The areas, city-app areas and attachments the batch's articles show, read in one go per kind. */
  private async loadShown(kind: RecordKind, keys: readonly string[]): Promise<void> {
    if (kind !== 'artikel') return;
    const shown = new Map<RecordKind, string[]>();
    for (const key of keys) {
      const record = await this.snapshot.get('artikel', key);
      if (!record) continue;
      const artikel = parseDoc<'artikel'>(record);
      for (const { field, kind: shownKind } of ARTIKEL_REFERENCES) {
        const ids = shown.get(shownKind) ?? [];
        for (const ref of artikel[field] ?? []) ids.push(String(ref));
        shown.set(shownKind, ids);
      }
    }
    for (const [shownKind, ids] of shown) await this.snapshot.load(shownKind, ids);
  }

  private async renderOne(
    { prepared, operation, writer }: Renderer,
    key: string,
    arena: Utf8Arena,
  ): Promise<PreparedAnswer | undefined> {
    let visibleFrom: number | null = null;
    let visibleUntil: number | null = null;
    if (!prepared.whole) {
      // Only a stored record's answer is prepared: any other key is the handler's to answer.
      const record = await this.snapshot.get(prepared.kind, key);
      if (!record) return undefined;
      if (prepared.kind === 'artikel') {
        const doc = parseDoc<'artikel'>(record);
        visibleFrom = doc.sichtbarVon;
        visibleUntil = doc.sichtbarBis;
      }
    }
    // Rendered as at an instant inside the article's window: the window is checked per request.
    const at = visibleFrom ?? visibleUntil ?? 0;
    let result: Readonly<Record<string, unknown>>;
    try {
      result = await invoke(operation, prepared.argumentsOf(key), {
        ...IMPORT_CONTEXT,
        store: { read: (read) => read(this.snapshot) },
        now: () => at,
      });
    } catch (error) {
      // No answer to prepare (an unknown id, a window that never opens): the handler answers.
      if (error instanceof ScoopError) return undefined;
      throw error;
    }
    // The compact layout only: the indented one is made from it when read (xml/indent.ts).
    const compact = arena.write(writer.innerCompact(result));
    return {
      compact,
      visibleFrom,
      visibleUntil,
      // Each once: a blob shown twice is read once.
      blobIds: [...new Set(splitFragment(compact).blobIds)],
    };
  }
}
