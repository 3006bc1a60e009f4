/**
 * The store as the rest of the program sees it. Records are kept as JSON documents of
 * their contract fields, keyed by kind and id, so a new contract field needs no schema
 * change; binaries are content-addressed blobs kept in chunks and read as streams.
 * SQLite and PostgreSQL implement the same interface.
 */
import type { TokenStore } from '../auth/tokens.ts';
import type { ArtikelReference, RecordKind, StoredDocument } from '../contract/documents.ts';
import type { BinarySource } from '../xml/binary.ts';
import type { AnswerChanges, ChangesSince, VersionMark } from './answer-changes.ts';
import type { BlobEncoding } from './blob-chunks.ts';

export { RECORD_KINDS, type RecordKind } from '../contract/documents.ts';

/** What sending a blob needs besides its chunks (record-rows.ts storedBlob). */
export interface BlobReference {
  readonly id: number;
  readonly size: number;
  readonly chunkCount: number;
  readonly encoding: BlobEncoding;
  readonly sha256: string;
}

/** A stored record: its JSON document and, for attachments and images, its blob. */
export interface StoredRecord<K extends RecordKind = RecordKind> {
  /**
   * The document as stored (JSON). For the records an import renders answers from
   * (prepare/render-session.ts) both it and `parsed` are getters that read the text when
   * first asked for: read `parsed` through parseDoc, never copy the record.
   */
  readonly doc: string;
  /**
   * The document already parsed, where the reader has it (an import's own records), for
   * parseDoc. Of no particular kind, like `doc`, so records of a kind and of none still
   * stand for each other.
   */
  readonly parsed?: StoredDocument<RecordKind>;
  readonly blob?: StoredBlob;
  /**
   * Never set: the kind the record was read as, so parseDoc knows its document's type. A
   * method's parameter (compared both ways), so a record of one kind and a record of no
   * particular kind (as a store builds one from a row) stand for each other, but a record
   * of one kind never for another kind's.
   */
  kindOf?(kind: K): void;
}

/** The record's document, of its kind's stored type (contract/documents.ts). */
export function parseDoc<K extends RecordKind>(record: StoredRecord<K>): StoredDocument<K> {
  // The record was read as K, so its document is K's: as much as JSON.parse's answer below is.
  return (record.parsed as StoredDocument<K> | undefined) ?? JSON.parse(record.doc);
}

export interface StoredBlob {
  readonly id: number;
  /** SHA-256 of the content (hex): blobs are content-addressed. */
  readonly sha256: string;
  readonly size: number;
  /**
   * The whole content when it fits one chunk; otherwise read through `source`. Decoded from
   * the stored base64 on each read: use it once, and prefer `base64` to send it.
   */
  readonly bytes?: Uint8Array;
  /** The content's base64 encoding as stored, when it fits one chunk (what an answer sends). */
  readonly base64?: Buffer;
  readonly source: BinarySource;
}

export interface AnswerKey {
  readonly operation: string;
  readonly key: string;
}

/** A prepared answer as answerPage reads it. */
export interface PagedAnswer extends AnswerKey {
  /** The compact layout, as stored (the indented one is made from it: xml/indent.ts). */
  readonly compact: Buffer;
  readonly visibleFrom: number | null;
  readonly visibleUntil: number | null;
}

export interface AnswerPage {
  readonly version: number;
  readonly answers: readonly PagedAnswer[];
}

/**
 * A prepared answer (src/prepare/): the inside of one operation's answer for one key, in
 * the compact layout, rendered by the import; binaries stand in it as references to their
 * records. The indented layout of HTTP GET/POST is made from it as it is read (xml/indent.ts):
 * an import that stored both wrote and rendered a fifth more (docs/performance.md, "The
 * twentieth round").
 */
export interface StoredAnswer {
  readonly fragment: Buffer;
  /** The window the answer may be sent in (an article's sichtbarVon/sichtbarBis), ms; null: open. */
  readonly visibleFrom: number | null;
  readonly visibleUntil: number | null;
  /** The content version of the statement that read it (it selects the version with its row). */
  readonly version?: number;
}

/** A prepared answer as an import writes it (its compact layout, StoredAnswer). */
export interface PreparedAnswer {
  readonly compact: Buffer;
  readonly visibleFrom: number | null;
  readonly visibleUntil: number | null;
  /** The blobs the fragment refers to, in order: a store may read them with the fragment. */
  readonly blobIds: readonly number[];
}

/** Reads that must see one state of the store (one import's result, never a mix). */
export interface Snapshot {
  /**
   * A record by kind and id, its blob's one chunk read with it; with `readChunk` false the
   * chunk is left to the blob's `source` (a caller that may not need the content: a
   * resized image whose variant is cached needs only the blob's SHA-256).
   */
  get<K extends RecordKind>(kind: K, id: string, readChunk?: boolean): Promise<StoredRecord<K> | undefined>;
  getMany<K extends RecordKind>(kind: K, ids: readonly string[]): Promise<Map<string, StoredRecord<K>>>;
  /** Every record of a kind, in id order (numeric ids numerically). */
  all<K extends RecordKind>(kind: K): Promise<Array<{ id: string; record: StoredRecord<K> }>>;
  /**
   * A blob by its id, as a prepared answer refers to it: its one chunk read now, a larger
   * one streamed; undefined when it is gone. Blobs never change, so the id says it all.
   * With `readChunk` false, the one chunk is left to its `source` too (a caller that has
   * the content's text at hand needs only its size and SHA-256).
   */
  blob(blobId: number, readChunk?: boolean): Promise<StoredBlob | undefined>;
  /**
   * The prepared answer to `operation` for `key`, if one of this `format` was prepared. A
   * store may read the blobs it lists with it; `readChunks` false says their chunks will be
   * asked for without them (`blob(id, false)`).
   */
  answer(
    operation: string,
    key: string,
    format: string,
    readChunks?: boolean,
  ): Promise<StoredAnswer | undefined>;
}

/**
 * An import, recorded for operators (and the metrics of every serving process): a
 * committed one inside its own transaction, a refused one in a transaction of its own
 * after the import's was rolled back — the record is all a refused import leaves behind.
 */
export interface ImportRun {
  readonly outcome: 'imported' | 'refused';
  readonly finishedAt: string;
  /** The content version a committed import made; null for a refused one. */
  readonly contentVersion: number | null;
  /** Why a refused import was refused (the record and field); null for a committed one. */
  readonly detail: string | null;
}

export interface ImportRuns {
  readonly committed: number;
  readonly refused: number;
  /** The last committed import. */
  readonly last: ImportRun | undefined;
  readonly lastRefused: ImportRun | undefined;
}

export interface ContentStore extends TokenStore {
  /** Runs `read` against one consistent state of the store (one content version). */
  read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T>;
  /**
   * The content version as this process knows it now: cheap enough for every request, and
   * at most a moment behind the store (caches are keyed by it; reads stay consistent).
   */
  knownVersion(): Promise<number>;
  /**
   * knownVersion() when it can be told without waiting for the database; undefined when
   * it cannot (then await knownVersion()). Lets a cached answer go out without a promise.
   */
  peekVersion(): number | undefined;
  /** Increases with every successful import. */
  contentVersion(): Promise<number>;
  /**
   * Up to `limit` prepared answers of `format`, the next after `after` in the order of
   * (operation, key), read by one statement, with the content version they are of.
   */
  answerPage(format: string, after: AnswerKey | undefined, limit: number): Promise<AnswerPage>;
  /**
   * The content version now, its mark, and which prepared answers changed since `since`
   * (answer-changes.ts), all read in one state of the store.
   */
  answerChanges(since: VersionMark | undefined): Promise<ChangesSince>;
  /** Whether some record still has the binary of this SHA-256 (files kept of others may go). */
  binaryInUse(sha256: string): Promise<boolean>;
  /** The binaries of records whose binary has at least `minBytes`, as they stream from the store. */
  largeBinaries(minBytes: number): Promise<BinarySource[]>;
  /** How many imports were committed and refused, and the last of each. */
  importRuns(): Promise<ImportRuns>;
  /** Records a refused import, in a transaction of its own. */
  recordRefusedImport(finishedAt: string, detail: string): Promise<void>;
  /** Runs an import in one write transaction: all of it is committed, or none. */
  importTransaction<T>(work: (tx: ImportTransaction) => Promise<T>): Promise<T>;
  /** Applies the schema migrations not yet applied; returns their versions (none when up to date). */
  migrate(): Promise<number[]>;
  /** For readiness: rejects with StoreUnavailableError when the store cannot be reached. */
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}

/** The store answers; whether its schema has every migration this build knows. */
export interface StoreHealth {
  /** How many of this build's migrations are applied, counting from the first. */
  readonly schemaVersion: number;
  /** How many migrations this build knows: the store is migrated when schemaVersion reaches it. */
  readonly latestSchemaVersion: number;
  /** Undefined while the schema is not migrated. */
  readonly contentVersion?: number;
}

/** A record as stored; `size` is its blob's. */
export interface StoredRow {
  readonly doc: string;
  readonly blobId: number | null;
  readonly size: number | null;
}

/** A record to write. */
export interface RecordRow {
  readonly id: string;
  readonly doc: string;
  readonly blobId: number | null;
  /** Whether one of its kind and id is stored now (read in this transaction): it is replaced. */
  readonly replaces: boolean;
}

/** A small file, read whole and cut into its stored chunks (blob-chunks.ts), to store as a blob. */
export interface EncodedBlob {
  readonly sha256: string;
  readonly size: number;
  readonly chunks: readonly Buffer[];
}

export interface PreparedAnswerRow {
  readonly operation: string;
  readonly key: string;
  readonly answer: PreparedAnswer;
}

/**
 * What an import does to the store, inside its one transaction. The methods take and
 * return many rows at once: on PostgreSQL each call is a round trip, and an import of
 * tens of thousands of records must not make one per record.
 */
export interface ImportTransaction {
  /** The stored records of a kind with these ids; every record of the kind without `ids`. */
  rows(kind: RecordKind, ids?: readonly string[]): Promise<Map<string, StoredRow>>;
  ids(kind: RecordKind): Promise<string[]>;
  /**
   * The ids of the records of `kind` whose document's array `field` holds one of `ids`
   * (numbers, or strings, as the document has them), looked for by the database: an import
   * that changes a few areas must not read every article to find those that show them.
   */
  referencing(kind: 'artikel', field: ArtikelReference['field'], ids: readonly string[]): Promise<string[]>;
  /** Writes records, each replacing the stored one of its kind and id where `replaces` says so. */
  putRecords(kind: RecordKind, rows: readonly RecordRow[]): Promise<void>;
  deleteRecords(kind: RecordKind, ids: readonly string[]): Promise<void>;
  /** The ids of the blobs stored with these SHA-256s. */
  findBlobs(sha256s: readonly string[]): Promise<Map<string, number>>;
  /** Stores a blob from its stored chunks as they are read (a large file), returning its id. */
  addBlob(sha256: string, size: number, chunks: AsyncIterable<Buffer>): Promise<number>;
  /** Stores small blobs at once, returning their ids in order. */
  addBlobs(blobs: readonly EncodedBlob[]): Promise<number[]>;
  /**
   * Marks blobs no record uses as orphaned and deletes those orphaned before
   * `deleteBefore`: readers still streaming a blob an import just replaced keep it.
   * Resolves with the ids of the blobs deleted.
   */
  collectBlobs(now: number, deleteBefore: number): Promise<number[]>;
  bumpContentVersion(): Promise<number>;
  /**
   * Records what the import making `version` changed of the prepared answers (undefined:
   * every answer may have), and forgets the changes of versions long past (answer-changes.ts).
   */
  recordChanges(version: number, changes: AnswerChanges | undefined): Promise<void>;
  /** The content version as this transaction sees it (for an import that changed nothing). */
  contentVersion(): Promise<number>;
  /** Records this import as committed, inside its own transaction. */
  recordImportRun(run: ImportRun): Promise<void>;
  /** The format of the prepared answers the store holds, all of one; '' when it holds none. */
  answersFormat(): Promise<string>;
  /** Drops every prepared answer and records `format` as the one the store's answers are in. */
  clearAnswers(format: string): Promise<void>;
  /**
   * Stores answers. Their fragments are views of buffers the preparer reuses once this
   * resolves (support/utf8-arena.ts): by then a store has read or sent every byte it
   * needs (SQLite copies a value as it binds it; PostgreSQL's COPY resolves when the
   * server has taken all of it) and keeps no view.
   */
  putAnswers(format: string, answers: readonly PreparedAnswerRow[]): Promise<void>;
  deleteAnswers(operation: string, keys: readonly string[]): Promise<void>;
}

/** The store cannot be reached right now (a lost connection, a locked or missing file). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** A `--db` / `SCOOP_DB` value that names no store scoop can open (a bad URL or parameter). */
export class StoreLocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreLocationError';
  }
}
