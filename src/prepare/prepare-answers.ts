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
import type { ImportTransaction, PreparedAnswer, Snapshot, StoredRecord } from '../store/content-store.ts';
import type { AnswerPreparer } from '../store/import.ts';
import { BinaryReference, encodeFragment } from './fragment.ts';
import { ANSWERS_FORMAT, PREPARED, type PreparedOperation } from './prepared-operations.ts';

/** Kinds read again and again while articles are prepared (their areas, attachments): kept for the import. */
const SHARED_KINDS: ReadonlySet<RecordKind> = new Set(ARTIKEL_REFERENCES.map((r) => r.kind));

/** The transaction's records as handlers read them; binaries are references (fragment.ts). */
class TransactionSnapshot implements Snapshot {
  private readonly shared = new Map<string, StoredRecord | undefined>();

  constructor(private readonly tx: ImportTransaction) {}

  async get(kind: RecordKind, id: string): Promise<StoredRecord | undefined> {
    if (!SHARED_KINDS.has(kind)) return this.read(kind, id);
    const key = `${kind}/${id}`;
    if (this.shared.has(key)) return this.shared.get(key);
    const record = await this.read(kind, id);
    this.shared.set(key, record);
    return record;
  }

  private async read(kind: RecordKind, id: string): Promise<StoredRecord | undefined> {
    const row = await this.tx.get(kind, id);
    if (!row) return undefined;
    if (!row.blob) return { doc: row.doc };
    const { id: blobId, sha256, size } = row.blob;
    return { doc: row.doc, blob: { id: blobId, sha256, size, source: new BinaryReference(row.blob) } };
  }

  async getMany(kind: RecordKind, ids: readonly string[]): Promise<Map<string, StoredRecord>> {
    const found = new Map<string, StoredRecord>();
    for (const id of ids) {
      const record = await this.get(kind, id);
      if (record) found.set(id, record);
    }
    return found;
  }

  async all(kind: RecordKind): Promise<Array<{ id: string; record: StoredRecord }>> {
    const list: Array<{ id: string; record: StoredRecord }> = [];
    for (const id of await this.tx.ids(kind)) {
      const record = await this.get(kind, id);
      if (record) list.push({ id, record });
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

async function render(
  { prepared, operation, writer }: Renderer,
  snapshot: TransactionSnapshot,
  key: string,
): Promise<PreparedAnswer | undefined> {
  let visibleFrom: number | null = null;
  let visibleUntil: number | null = null;
  if (!prepared.whole) {
    // Only a stored record's answer is prepared: any other key is the handler's to answer.
    const record = await snapshot.get(prepared.kind, key);
    if (!record) return undefined;
    if (prepared.kind === 'artikel') {
      const doc: StoredDocument<'artikel'> = JSON.parse(record.doc);
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
  return {
    compact: encodeFragment(writer.inner(result, 'compact')),
    indented: encodeFragment(writer.inner(result, 'indented')),
    visibleFrom,
    visibleUntil,
  };
}

/** Articles that show a changed area, city-app area or attachment (their answers change with it). */
async function articlesShowing(
  tx: ImportTransaction,
  changed: ReadonlyMap<RecordKind, ReadonlySet<string>>,
): Promise<string[]> {
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
  changed: ReadonlyMap<RecordKind, ReadonlySet<string>>,
  all: boolean,
): Promise<Iterable<string>> {
  if (prepared.whole) return all || (changed.get(prepared.kind)?.size ?? 0) > 0 ? [''] : [];
  if (all) return tx.ids(prepared.kind);
  const keys = new Set(changed.get(prepared.kind));
  if (prepared.shows.length > 0) for (const id of await articlesShowing(tx, changed)) keys.add(id);
  return keys;
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
      const snapshot = new TransactionSnapshot(tx);
      let written = 0;
      for (const renderer of renderers) {
        const { name } = renderer.prepared;
        for (const key of await keysToPrepare(tx, renderer.prepared, changed, all)) {
          const answer = await render(renderer, snapshot, key);
          if (answer) {
            await tx.putAnswer(name, key, ANSWERS_FORMAT, answer);
            written++;
          } else if (!all) {
            await tx.deleteAnswer(name, key);
          }
        }
      }
      return written;
    },
  };
}
