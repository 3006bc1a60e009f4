/**
 * Applies a validated bundle to a store in one transaction (bundle-format.md):
 * upsert writes each record and then removes what `loeschen` names; replace removes
 * whatever the bundle does not hold. References are checked against the resulting
 * state before commit, so a refused bundle changes nothing.
 */
import {
  ARTIKEL_REFERENCES,
  RECORD_KINDS,
  type RecordKind,
  type ReferencedKind,
  type StoredDocument,
} from '../contract/documents.ts';
import { batches } from '../support/batches.ts';
import type { Bundle, BundleRecord } from './bundle/bundle.ts';
import { closeBundle, type ReadOptions, readBundle } from './bundle/read-bundle.ts';
import { BundleError } from './bundle/validate.ts';
import type { AnswerKey, ContentStore, ImportTransaction, RecordRow, StoredRow } from './content-store.ts';
import { watchFailures } from './first-failure.ts';
import { ImportFiles, SMALL_FILE_BYTES, turn } from './import-files.ts';

export interface KindSummary {
  added: number;
  changed: number;
  unchanged: number;
  removed: number;
}

export interface ImportSummary {
  readonly contentVersion: number;
  /** False when nothing was added, changed, removed or stored (nor a blob past its grace deleted): the version stayed, and every cache with it. */
  readonly contentChanged: boolean;
  readonly kinds: Record<RecordKind, KindSummary>;
  readonly blobsStored: number;
  readonly bytesStored: number;
  /** The bundle's warnings (bundle.ts), each naming its record. */
  readonly warnings: readonly string[];
}

export interface ImportProgress {
  readonly records: number;
  readonly recordsTotal: number;
  readonly bytes: number;
  readonly bytesTotal: number;
}

/**
 * A record as the import wrote it: its document's JSON as stored (null: removed), and the
 * document as the bundle had it, parsed, where the import has it.
 */
export interface WrittenRecord extends Omit<StoredRow, 'doc'> {
  readonly id: string;
  readonly doc: string | null;
  readonly parsed?: StoredDocument<RecordKind>;
}

/**
 * Renders the answers an import prepares (src/prepare/) inside its transaction, told of
 * each record as it is written. An import without one drops every prepared answer it
 * would make stale, so none is ever out of date.
 */
export interface AnswerPreparer {
  /** The format of the answers it prepares; a store's answers of another format are prepared anew. */
  readonly format: string;
  /**
   * Begins preparing the answers the import's records affect (`all`: every answer), for a
   * bundle of `records` records; the store's prepared answers are of this format already,
   * or none are left.
   */
  begin(tx: ImportTransaction, all: boolean, records: number): PreparingAnswers;
}

export interface PreparingAnswers {
  /** A batch of a kind's records written, or removed (`doc` null). */
  wrote(kind: RecordKind, rows: readonly WrittenRecord[]): void;
  /** Every record of the kind is written and removed: answers that need no other kind may be prepared. */
  kindDone(kind: RecordKind): Promise<void>;
  /** Resolves, once every answer asked for is written, with how many were. */
  finish(): Promise<number>;
  /** The answers written or removed so far (none listed when every answer is redone). */
  answersChanged(): readonly AnswerKey[];
  /** The import failed: stops rendering and asking; resolves once no write of answers is under way. */
  abort(): Promise<void>;
  /** Lets go of what it holds (a thread); may be called more than once. */
  close(): Promise<void>;
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void;
  answers?: AnswerPreparer;
  now?: () => number;
  /** How long a blob no record uses is kept for readers still streaming it. */
  blobGraceMs?: number;
}

/** Records read, compared and written per round trip (on PostgreSQL, each call is one). */
const BATCH_RECORDS = 500;
/** From this many records of a kind in a bundle, its stored ids are listed first (see writeKinds). */
const LIST_IDS_FROM = 1_000;
/** Bytes of small files a batch holds, read and encoded, until they are stored (import-files.ts reads up to 32 MiB more ahead). */
const BATCH_FILE_BYTES = 16 * 1024 * 1024;

function emptySummary(): Record<RecordKind, KindSummary> {
  const kinds = {} as Record<RecordKind, KindSummary>;
  for (const kind of RECORD_KINDS) kinds[kind] = { added: 0, changed: 0, unchanged: 0, removed: 0 };
  return kinds;
}

/**
 * Every stored document of `kind` once the import has written, in id order; with
 * `bundleOnly`, the bundle's own only. A record of the bundle is stored as the bundle has
 * it, so only the others (an upsert leaves) are read back.
 */
async function storedDocs<K extends 'artikel' | 'abonnements'>(
  tx: ImportTransaction,
  bundle: Bundle,
  kind: K,
  bundleOnly: boolean,
): Promise<Array<{ id: string; doc: StoredDocument<K> }>> {
  const inBundle = new Map((bundle.records.get(kind) ?? []).map((r) => [r.id, r.doc]));
  if (bundleOnly) return [...inBundle].map(([id, doc]) => ({ id, doc }));
  const ids = await tx.ids(kind);
  const others = await tx.rows(
    kind,
    ids.filter((id) => !inBundle.has(id)),
  );
  return ids.map((id) => ({ id, doc: inBundle.get(id) ?? JSON.parse(others.get(id)!.doc) }));
}

/**
 * Every reference of an article or subscription names a record that is stored once the
 * import has written. A stored record's references held when it was stored, and every
 * import since has kept them (this check), so the records the bundle does not hold are
 * read (all 50,000 of the realistic mix, most of a small import's time) only when the
 * import removed records of a kind they name.
 */
async function checkReferences(
  tx: ImportTransaction,
  bundle: Bundle,
  kinds: Readonly<Record<RecordKind, KindSummary>>,
): Promise<void> {
  const removedAny = (named: readonly RecordKind[]) => named.some((kind) => kinds[kind].removed > 0);
  const existing = new Map<ReferencedKind | 'newsletter', Set<string>>();
  for (const kind of [...ARTIKEL_REFERENCES.map((r) => r.kind), 'newsletter'] as const) {
    existing.set(kind, new Set(await tx.ids(kind)));
  }
  const whereInBundle = (kind: RecordKind, id: string) =>
    bundle.records.get(kind)?.find((r) => r.id === id)?.where;
  const deletedBy = (kind: RecordKind, id: string) =>
    bundle.deletions.get(kind)?.includes(id) ? `loeschen.${kind}` : undefined;

  const onlyBundleArtikel = !removedAny(ARTIKEL_REFERENCES.map((r) => r.kind));
  for (const { id, doc: artikel } of await storedDocs(tx, bundle, 'artikel', onlyBundleArtikel)) {
    for (const { field, kind } of ARTIKEL_REFERENCES) {
      for (const ref of artikel[field] ?? []) {
        if (existing.get(kind)!.has(String(ref))) continue;
        const where = whereInBundle('artikel', id);
        if (where)
          throw new BundleError(
            `${where}.${field}`,
            `${kind} ${ref} is neither in the store nor in the bundle`,
          );
        const cause = deletedBy(kind, String(ref)) ?? (bundle.mode === 'replace' ? kind : `${kind} ${ref}`);
        throw new BundleError(
          cause,
          `removes ${kind} ${ref}, which artikel ${id} (not in the bundle) still uses`,
        );
      }
    }
  }
  for (const { id, doc: abo } of await storedDocs(tx, bundle, 'abonnements', !removedAny(['newsletter']))) {
    for (const ref of abo.newsletterIDs) {
      if (existing.get('newsletter')!.has(String(ref))) continue;
      const where = whereInBundle('abonnements', id);
      if (where) {
        throw new BundleError(
          `${where}.newsletterIDs`,
          `newsletter ${ref} is neither in the store nor in the bundle`,
        );
      }
      const cause =
        deletedBy('newsletter', String(ref)) ??
        (bundle.mode === 'replace' ? 'newsletter' : `newsletter ${ref}`);
      // The subscription's key is an e-mail address, which no message names.
      throw new BundleError(
        cause,
        `removes newsletter ${ref}, which a stored subscription (not in the bundle) still uses`,
      );
    }
  }
}

/** Longer reasons are cut: the record is for operators, the whole message is on stderr. */
const MAX_DETAIL = 2000;

/**
 * A refused bundle changes nothing, so its refusal is recorded on its own (serving
 * processes count it from the store: scoop_import_runs{outcome="refused"}). Any other
 * failure — the store itself failing, say — is not a refusal, and recording it might fail
 * the same way: the original error is what the caller sees.
 */
async function recordRefusal(store: ContentStore, error: unknown, now: () => number): Promise<void> {
  if (!(error instanceof BundleError)) return;
  const detail = error.message.length > MAX_DETAIL ? `${error.message.slice(0, MAX_DETAIL)}…` : error.message;
  await store.recordRefusedImport(new Date(now()).toISOString(), detail).catch(() => undefined);
}

/** Applies a bundle (see applyBundle); a refusal is recorded in the store's import runs. */
export async function importBundle(
  store: ContentStore,
  bundle: Bundle,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  try {
    return await applyBundle(store, bundle, options);
  } catch (error) {
    await recordRefusal(store, error, options.now ?? Date.now);
    throw error;
  }
}

/**
 * The order kinds are written in: what articles show, then the articles, so that their
 * answers can be prepared while the other kinds (images, newsletters, subscriptions) are
 * written; then the rest, as RECORD_KINDS lists them.
 */
const WRITE_ORDER: readonly RecordKind[] = [
  ...new Set([...ARTIKEL_REFERENCES.map((r) => r.kind), 'artikel', ...RECORD_KINDS] as const),
];

/** Writes every kind's records, each batch's files first, and removes what the bundle removes. */
async function writeKinds(
  tx: ImportTransaction,
  bundle: Bundle,
  files: ImportFiles,
  kinds: Record<RecordKind, KindSummary>,
  preparing: PreparingAnswers | undefined,
  onRecords: (n: number) => void,
): Promise<void> {
  for (const kind of WRITE_ORDER) {
    const list = bundle.records.get(kind) ?? [];
    // Fewer than BATCH_RECORDS when their small files pass BATCH_FILE_BYTES.
    const smallFileBytes = (record: BundleRecord) =>
      record.file && record.file.size <= SMALL_FILE_BYTES ? record.file.size : 0;
    // Many records: only those stored before are read back to compare (none, into an empty
    // store), as listing the kind's ids tells; a few are looked up whether stored or not.
    const storedIds = list.length >= LIST_IDS_FROM ? new Set(await tx.ids(kind)) : undefined;
    for (const batch of batches(list, BATCH_RECORDS, BATCH_FILE_BYTES, smallFileBytes)) {
      await turn();
      await files.store(batch);
      const stored = await tx.rows(
        kind,
        batch.flatMap((r) => (storedIds === undefined || storedIds.has(r.id) ? [r.id] : [])),
      );
      const writes: RecordRow[] = [];
      const written: WrittenRecord[] = [];
      for (const record of batch) {
        const blobId = record.file ? files.blobId(record.file) : null;
        const doc = JSON.stringify(record.doc);
        const before = stored.get(record.id);
        if (!before) kinds[kind].added++;
        else if (before.doc === doc && before.blobId === blobId) kinds[kind].unchanged++;
        else kinds[kind].changed++;
        if (!before || before.doc !== doc || before.blobId !== blobId) {
          writes.push({ id: record.id, doc, blobId, replaces: before !== undefined });
          written.push({ id: record.id, doc, blobId, size: record.file?.size ?? null, parsed: record.doc });
        }
      }
      await tx.putRecords(kind, writes);
      preparing?.wrote(kind, written);
      onRecords(batch.length);
    }
    const keep = new Set(list.map((r) => r.id));
    const named =
      bundle.mode === 'replace'
        ? (await tx.ids(kind)).filter((id) => !keep.has(id))
        : [...new Set(bundle.deletions.get(kind) ?? [])];
    const remove = [...(await tx.rows(kind, named)).keys()];
    await tx.deleteRecords(kind, remove);
    kinds[kind].removed += remove.length;
    preparing?.wrote(
      kind,
      remove.map((id) => ({ id, doc: null, blobId: null, size: null })),
    );
    await preparing?.kindDone(kind);
  }
}

async function applyBundle(
  store: ContentStore,
  bundle: Bundle,
  options: ImportOptions,
): Promise<ImportSummary> {
  const now = options.now ?? Date.now;
  const recordsTotal = [...bundle.records.values()].reduce((n, list) => n + list.length, 0);
  const bytesTotal = [...bundle.records.values()].flat().reduce((n, r) => n + (r.file?.size ?? 0), 0);
  let records = 0;
  let bytes = 0;
  const report = () => options.onProgress?.({ records, recordsTotal, bytes, bytesTotal });

  return store.importTransaction(async (transaction) => {
    const watched = watchFailures(transaction);
    const tx = watched.tx;
    const kinds = emptySummary();
    const onBytes = (n: number) => {
      bytes += n;
      report();
    };
    let answers: Awaited<ReturnType<typeof beginAnswers>> | undefined;
    let written = 0;
    let files: ImportFiles | undefined;
    try {
      answers = await beginAnswers(tx, options.answers, recordsTotal);
      files = await ImportFiles.start(tx, bundle, onBytes);
      try {
        await writeKinds(tx, bundle, files, kinds, answers.preparing, (n) => {
          records += n;
          report();
        });
      } finally {
        // Before the bundle's files are closed (importFolder): nothing reads them any more.
        await files.close();
      }
      await checkReferences(tx, bundle, kinds);
      written = (await answers.preparing?.finish()) ?? 0;
    } catch (error) {
      await answers?.preparing?.abort();
      // A refusal is the bundle's; otherwise the first statement that failed says more (first-failure.ts).
      throw error instanceof BundleError ? error : (watched.first()?.error ?? error);
    } finally {
      await answers?.preparing?.close();
    }
    const t = now();
    const blobsRemoved = await tx.collectBlobs(t, t - (options.blobGraceMs ?? 3_600_000));
    const recordsChanged =
      files.blobsStored > 0 ||
      RECORD_KINDS.some((kind) => kinds[kind].added + kinds[kind].changed + kinds[kind].removed > 0);
    // Answers prepared anew or dropped (of another format) are new content too.
    const answersRedone = answers.stale && (answers.before !== '' || written > 0);
    // Caches keyed by the version must move on. Blobs swept are a change too: the ids of
    // SQLite's blobs may be given again (INTEGER PRIMARY KEY), and a process keeping texts by
    // blob id must be told (answer-changes.ts), by a version of their own when nothing else changed.
    const contentChanged = recordsChanged || answersRedone || blobsRemoved.length > 0;
    const contentVersion = contentChanged ? await tx.bumpContentVersion() : await tx.contentVersion();
    // Answers of another format were all dropped (beginAnswers): every one may have changed.
    if (contentChanged)
      await tx.recordChanges(
        contentVersion,
        answers.stale
          ? undefined
          : { answers: answers.preparing?.answersChanged() ?? [], blobs: blobsRemoved },
      );
    await tx.recordImportRun({
      outcome: 'imported',
      finishedAt: new Date(now()).toISOString(),
      contentVersion,
      detail: null,
    });
    return {
      contentVersion,
      contentChanged,
      kinds,
      blobsStored: files.blobsStored,
      bytesStored: files.bytesStored,
      warnings: bundle.warnings,
    };
  });
}

/**
 * Prepared answers are brought in line with the records as they are written: those the
 * changes affect, or all of them when the store's are of another format (dropped first).
 * Without a preparer, stale answers are dropped.
 */
async function beginAnswers(
  tx: ImportTransaction,
  preparer: AnswerPreparer | undefined,
  records: number,
): Promise<{ before: string; stale: boolean; preparing: PreparingAnswers | undefined }> {
  const format = preparer?.format ?? '';
  const before = await tx.answersFormat();
  const stale = before !== format;
  if (stale) await tx.clearAnswers(format);
  return { before, stale, preparing: preparer?.begin(tx, stale, records) };
}

/** Reads, validates and imports a bundle folder (see importBundle); hashing reports as it reads. */
export async function importFolder(
  store: ContentStore,
  folder: string,
  options: ImportOptions & ReadOptions = {},
): Promise<ImportSummary> {
  const { onHashing, onOpened, allowHardlinks, heldFiles, digestOnWorkerFrom, ...rest } = options;
  let bundle: Bundle;
  try {
    bundle = await readBundle(folder, { onHashing, onOpened, allowHardlinks, heldFiles, digestOnWorkerFrom });
  } catch (error) {
    await recordRefusal(store, error, rest.now ?? Date.now);
    throw error;
  }
  try {
    return await importBundle(store, bundle, rest);
  } finally {
    await closeBundle(bundle);
  }
}
