/**
 * An import's files, each distinct content stored once as a blob before the records that
 * name it are written. With many small files, a worker thread (file-encoder.ts) reads and
 * encodes two in three of them ahead of the batch that stores them, at most AHEAD_BYTES at
 * once, so that encoding overlaps writing; the import's thread encodes the third itself
 * as it stores it, rather than wait for the worker with nothing else to do. Large files
 * stream a chunk at a time.
 */
import { RECORD_KINDS } from '../contract/documents.ts';
import { STORED_INPUT_BYTES } from './blob-chunks.ts';
import type { Bundle, BundleFile, BundleRecord } from './bundle/bundle.ts';
import type { EncodedBlob, ImportTransaction } from './content-store.ts';
import { encodeWhole, fileChunks } from './file-chunks.ts';
import { FileEncoder } from './file-encoder.ts';

/** Files up to this size are read whole and stored with others; larger ones stream a chunk at a time. */
export const SMALL_FILE_BYTES = 1024 * 1024;
/** Bytes of small files read ahead of their batch, encoded or being encoded, until they are stored. */
const AHEAD_BYTES = 32 * 1024 * 1024;
/** Below this many bytes of small files to store, starting a worker costs more than it saves. */
export const WORKER_MIN_BYTES = 8 * 1024 * 1024;
/** Every this many small files, one is encoded by the import's thread (see above). */
const OWN_SHARE = 3;
/** Blobs looked up per call (on PostgreSQL, one round trip each). */
const LOOKUP_BATCH = 500;

/**
 * Files are read synchronously (bundle-file.ts) and SQLite writes so too: the import lets
 * the event loop turn between batches and between a large file's chunks, so that whatever
 * else the process does (a server reading while it imports its seed) is not held up.
 */
export const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ImportFiles {
  /** Blob ids by content (SHA-256): found in the store, or stored by this import. */
  private readonly blobs = new Map<string, number>();
  /** Small files read ahead, not stored yet. */
  private readonly ahead = new Map<string, Promise<EncodedBlob>>();
  private aheadBytes = 0;
  /** Small files being read or read, ahead or not: none is read twice. */
  private readonly taken = new Set<string>();
  /** The small files the worker is to read, distinct, in the order the batches store them; `next` is the first not started. */
  private readonly pending: readonly BundleFile[] = [];
  private next = 0;
  private readonly encoder: FileEncoder | undefined;
  // This thread's files are read one at a time, each into this (encodedChunks copies what it keeps).
  private readonly scratch = Buffer.allocUnsafe(STORED_INPUT_BYTES);
  blobsStored = 0;
  bytesStored = 0;

  private constructor(
    private readonly tx: ImportTransaction,
    private readonly onBytes: (n: number) => void,
    found: ReadonlyMap<string, number>,
    files: readonly BundleFile[],
  ) {
    for (const [sha256, blobId] of found) this.blobs.set(sha256, blobId);
    const small = files.filter((file) => !found.has(file.sha256) && file.size <= SMALL_FILE_BYTES);
    if (small.reduce((n, file) => n + file.size, 0) < WORKER_MIN_BYTES) return;
    this.pending = small.filter((_, i) => i % OWN_SHARE !== OWN_SHARE - 1);
    this.encoder = new FileEncoder();
    this.readAhead();
  }

  /** Looks up which of the bundle's files the store holds already, and starts reading the others. */
  static async start(
    tx: ImportTransaction,
    bundle: Bundle,
    onBytes: (n: number) => void,
  ): Promise<ImportFiles> {
    const files = new Map<string, BundleFile>();
    for (const kind of RECORD_KINDS) {
      for (const { file } of bundle.records.get(kind) ?? []) {
        if (file && !files.has(file.sha256)) files.set(file.sha256, file);
      }
    }
    const sha256s = [...files.keys()];
    const found = new Map<string, number>();
    for (let from = 0; from < sha256s.length; from += LOOKUP_BATCH) {
      for (const [sha256, blobId] of await tx.findBlobs(sha256s.slice(from, from + LOOKUP_BATCH)))
        found.set(sha256, blobId);
    }
    return new ImportFiles(tx, onBytes, found, [...files.values()]);
  }

  /** The blob a record's file is stored as, once its batch was stored. */
  blobId(file: BundleFile): number {
    return this.blobs.get(file.sha256)!;
  }

  /** Stores the batch's files the store does not hold yet. */
  async store(batch: readonly BundleRecord[]): Promise<void> {
    const small: BundleFile[] = [];
    const large: BundleFile[] = [];
    const seen = new Set<string>();
    for (const { file } of batch) {
      if (!file) continue;
      // A content met before is stored once: its bytes count as done.
      if (this.blobs.has(file.sha256) || seen.has(file.sha256)) this.onBytes(file.size);
      else (file.size <= SMALL_FILE_BYTES ? small : large).push(file);
      seen.add(file.sha256);
    }
    const encoded: EncodedBlob[] = [];
    for (const file of small) {
      encoded.push(await this.encoded(file));
      this.onBytes(file.size);
    }
    // The next files are read while these are written.
    this.readAhead();
    const ids = await this.tx.addBlobs(encoded);
    for (const [i, blob] of encoded.entries()) this.blobs.set(blob.sha256, ids[i]!);
    for (const file of large) {
      this.blobs.set(file.sha256, await this.tx.addBlob(file.sha256, file.size, this.streamed(file)));
    }
    for (const file of [...small, ...large]) {
      this.blobsStored++;
      this.bytesStored += file.size;
    }
  }

  /** Stops reading ahead; resolves once no file is read any more (the bundle's files may then be closed). */
  async close(): Promise<void> {
    await this.encoder?.close();
  }

  /** A small file's chunks, read ahead by the worker or now. */
  private encoded(file: BundleFile): Promise<EncodedBlob> {
    const ahead = this.ahead.get(file.sha256);
    if (!ahead) {
      this.taken.add(file.sha256);
      return encodeWhole(file, () => undefined, this.scratch);
    }
    this.ahead.delete(file.sha256);
    this.aheadBytes -= file.size;
    return ahead;
  }

  private readAhead(): void {
    if (!this.encoder) return;
    while (this.next < this.pending.length && this.aheadBytes < AHEAD_BYTES) {
      const file = this.pending[this.next++]!;
      if (this.taken.has(file.sha256)) continue;
      this.taken.add(file.sha256);
      const blob = this.encoder.encode(file);
      // Awaited when its batch is stored; a refusal before then must not go unhandled meanwhile.
      blob.catch(() => undefined);
      this.ahead.set(file.sha256, blob);
      this.aheadBytes += file.size;
    }
  }

  /** A large file's chunks, the event loop turning between them. */
  private async *streamed(file: BundleFile): AsyncGenerator<Buffer> {
    for await (const chunk of fileChunks(file, this.onBytes, this.scratch)) {
      yield chunk;
      await turn();
    }
  }
}
