/**
 * The import's side of prepared answers: inside the import's transaction, each answer the
 * changed records affect is rendered by the operation's own handler (reading the
 * transaction's state) and the writer compiled from the contract, in both layouts, so a
 * prepared answer is byte for byte what the handler would have made of the same content.
 */
import { ARTIKEL_REFERENCES, type RecordKind, type StoredDocument } from '../contract/documents.ts';
import { ScoopError } from '../contract/errors.ts';
import { OPERATIONS, type Operation } from '../contract/operations.ts';
import { compileOperationWriter, type OperationWriter } from '../protocol/serialize.ts';
import type { ServiceContext } from '../service/handlers.ts';
import { invoke } from '../service/invoke.ts';
import {
  type ImportTransaction,
  type PreparedAnswer,
  type PreparedAnswerRow,
  parseDoc,
  type Snapshot,
  type StoredRecord,
  type StoredRow,
} from '../store/content-store.ts';
import type { AnswerPreparer, ChangedRecords, ChangedRow } from '../store/import.ts';
import { Utf8Arena } from '../support/utf8-arena.ts';
import { BinaryReference, splitFragment } from './fragment.ts';
import { ANSWERS_FORMAT, PREPARED, type PreparedOperation } from './prepared-operations.ts';

/** Kinds read again and again while articles are prepared (their areas, attachments): kept for the import. */
const SHARED_KINDS: ReadonlySet<RecordKind> = new Set(ARTIKEL_REFERENCES.map((r) => r.kind));

/** Keys rendered per batch: their records (and what they show) are read in one go first. */
const BATCH_KEYS = 500;
/** Answers rendered between turns of the event loop (about 10 ms of articles). */
const RENDERS_A_TURN = 50;

/**
 * The transaction's records as handlers read them; binaries are references (fragment.ts).
 * Records are read many at a time (`load`) ahead of the handlers that ask for them, which
 * then find them here; a kind's records that no other answer shows are let go after
 * their batch (`release`).
 */
class TransactionSnapshot implements Snapshot {
  /** By kind, then id: the records read or known, undefined for one the store does not hold. */
  private readonly records = new Map<RecordKind, Map<string, StoredRecord | undefined>>();

  /**
   * `changed`: what the import wrote or removed, known without reading it back; `idle`:
   * resolves when the connection has no write of answers outstanding (statements are sent
   * one at a time).
   */
  constructor(
    private readonly tx: ImportTransaction,
    private readonly changed: ChangedRecords,
    private readonly idle: () => Promise<void>,
  ) {}

  private of(kind: RecordKind): Map<string, StoredRecord | undefined> {
    let here = this.records.get(kind);
    if (!here) {
      here = new Map();
      this.records.set(kind, here);
    }
    return here;
  }

  /** Reads the records of `kind` with these ids that are not here yet, in one go. */
  async load(kind: RecordKind, ids: Iterable<string>): Promise<void> {
    const here = this.of(kind);
    const known = this.changed.get(kind);
    const missing = new Set<string>();
    for (const id of ids) {
      if (here.has(id) || missing.has(id)) continue;
      if (known?.has(id)) {
        const row = known.get(id);
        here.set(id, row && toRecord(row));
      } else missing.add(id);
    }
    if (missing.size === 0) return;
    await this.idle();
    const rows = await this.tx.rows(kind, [...missing]);
    for (const id of missing) {
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
    await this.idle();
    const list = [...(await this.tx.rows(kind))].map(([id, row]) => ({
      id,
      record: toRecord(row),
    }));
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

function toRecord(row: StoredRow | ChangedRow): StoredRecord {
  const blob =
    row.blobId === null
      ? undefined
      : {
          id: row.blobId,
          sha256: '',
          size: row.size ?? 0,
          source: new BinaryReference(row.blobId, row.size ?? 0),
        };
  if ('parsed' in row) {
    const { parsed } = row;
    // The stored text is the document's JSON (import.ts): made only should a reader ask for it.
    const record = {
      get doc() {
        return JSON.stringify(parsed);
      },
      parsed,
    };
    return blob ? Object.assign(record, { blob }) : record;
  }
  return blob ? { doc: row.doc, blob } : { doc: row.doc };
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

async function render(
  { prepared, operation, writer }: Renderer,
  snapshot: TransactionSnapshot,
  key: string,
  arena: Utf8Arena,
): Promise<PreparedAnswer | undefined> {
  let visibleFrom: number | null = null;
  let visibleUntil: number | null = null;
  if (!prepared.whole) {
    // Only a stored record's answer is prepared: any other key is the handler's to answer.
    const record = await snapshot.get(prepared.kind, key);
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
      store: { read: (read) => read(snapshot) },
      now: () => at,
    });
  } catch (error) {
    // No answer to prepare (an unknown id, a window that never opens): the handler answers.
    if (error instanceof ScoopError) return undefined;
    throw error;
  }
  const both = writer.innerBoth(result);
  const compact = arena.write(both.compact);
  return {
    compact,
    indented: arena.write(both.indented),
    visibleFrom,
    visibleUntil,
    // Each once: a blob shown twice is read once.
    blobIds: [...new Set(splitFragment(compact).blobIds)],
  };
}

/** Articles that show a changed area, city-app area or attachment (their answers change with it). */
async function articlesShowing(tx: ImportTransaction, changed: ChangedRecords): Promise<string[]> {
  const references = ARTIKEL_REFERENCES.filter((r) => (changed.get(r.kind)?.size ?? 0) > 0);
  if (references.length === 0) return [];
  const showing: string[] = [];
  for (const { id, doc } of await tx.docs('artikel')) {
    const artikel: StoredDocument<'artikel'> = JSON.parse(doc);
    const shows = references.some(({ field, kind }) =>
      (artikel[field] ?? []).some((ref) => changed.get(kind)!.has(String(ref))),
    );
    if (shows) showing.push(id);
  }
  return showing;
}

async function keysToPrepare(
  tx: ImportTransaction,
  prepared: PreparedOperation,
  changed: ChangedRecords,
  all: boolean,
): Promise<Iterable<string>> {
  if (prepared.whole) return all || (changed.get(prepared.kind)?.size ?? 0) > 0 ? [''] : [];
  if (all) return tx.ids(prepared.kind);
  const keys = new Set(changed.get(prepared.kind)?.keys());
  if (prepared.shows.length > 0) for (const id of await articlesShowing(tx, changed)) keys.add(id);
  return keys;
}

/** The areas, city-app areas and attachments the batch's articles show, read in one go per kind. */
async function loadShown(
  snapshot: TransactionSnapshot,
  kind: RecordKind,
  keys: readonly string[],
): Promise<void> {
  if (kind !== 'artikel') return;
  const reader: Snapshot = snapshot;
  const shown = new Map<RecordKind, string[]>();
  for (const key of keys) {
    const record = await reader.get('artikel', key);
    if (!record) continue;
    const artikel = parseDoc(record);
    for (const { field, kind: shownKind } of ARTIKEL_REFERENCES) {
      const ids = shown.get(shownKind) ?? [];
      for (const ref of artikel[field] ?? []) ids.push(String(ref));
      shown.set(shownKind, ids);
    }
  }
  for (const [shownKind, ids] of shown) await snapshot.load(shownKind, ids);
}

export function answerPreparer(): AnswerPreparer {
  const renderers: Renderer[] = PREPARED.map((prepared) => {
    const operation = OPERATIONS.find((o) => o.name === prepared.name)!;
    // The namespace is only in the envelope, which each request adds: the inside has none.
    return { prepared, operation, writer: compileOperationWriter(operation, '') };
  });
  return {
    format: ANSWERS_FORMAT,
    async prepare(tx, changed, all) {
      // A batch's answers are written while the next batch renders: on PostgreSQL the
      // server stores them on its own core meanwhile (on SQLite the write is done at once).
      // Other statements wait for it: pg sends one at a time.
      let writing: Promise<void> = Promise.resolve();
      const snapshot = new TransactionSnapshot(tx, changed, () => writing);
      let written = 0;
      // A batch's fragments are views of one of two arenas. A batch's write is issued only
      // after the one before it is done (the `await writing` before `writing =` below), so
      // when a batch renders, the write of the batch before last, which used its arena, is done.
      const arenas = [new Utf8Arena(), new Utf8Arena()];
      let batches = 0;
      try {
        for (const renderer of renderers) {
          const { name, kind, whole, shows } = renderer.prepared;
          await writing;
          const keys = [...(await keysToPrepare(tx, renderer.prepared, changed, all))];
          for (let from = 0; from < keys.length; from += BATCH_KEYS) {
            // Rendering is synchronous work: other work of the process gets a turn between batches.
            await new Promise<void>((resolve) => setImmediate(resolve));
            const batch = keys.slice(from, from + BATCH_KEYS);
            if (!whole) await snapshot.load(kind, batch);
            if (shows.length > 0) await loadShown(snapshot, kind, batch);
            const answers: PreparedAnswerRow[] = [];
            const gone: string[] = [];
            const arena = arenas[batches++ % 2]!;
            arena.rewind();
            for (const [i, key] of batch.entries()) {
              // The write behind goes on only when the event loop turns.
              if (i % RENDERS_A_TURN === RENDERS_A_TURN - 1)
                await new Promise<void>((resolve) => setImmediate(resolve));
              const answer = await render(renderer, snapshot, key, arena);
              if (answer) answers.push({ operation: name, key, answer });
              else if (!all) gone.push(key);
            }
            await writing;
            writing = (async () => {
              await tx.putAnswers(ANSWERS_FORMAT, answers);
              await tx.deleteAnswers(name, gone);
            })();
            // Awaited before the next batch's write and at the end, where a failure fails the import.
            writing.catch(() => undefined);
            written += answers.length;
            if (!whole) snapshot.release(kind, batch);
          }
        }
      } catch (error) {
        // When a write failed, PostgreSQL refuses every statement after it: the write's error says more.
        await writing;
        throw error;
      }
      await writing;
      return written;
    },
  };
}
