/**
 * An import's files, each distinct content stored once as a blob before the records that
 * name it are written. Small files are read and encoded ahead of the batch that stores
 * them (file-encoder.ts: in a worker thread, for a bundle with many), at most AHEAD_BYTES
 * of them at once, so that encoding overlaps writing; large ones stream a chunk at a time.
 */
import { RECORD_KINDS } from '../contract/documents.ts';
import { STORED_INPUT_BYTES } from './blob-chunks.ts';
import type { Bundle, BundleFile, BundleRecord } from './bundle/bundle.ts';
import type { EncodedBlob, ImportTransaction } from './content-store.ts';
import { fileChunks } from './file-chunks.ts';
import { FileEncoder, WORKER_MIN_BYTES } from './file-encoder.ts';

/** Files up to this size are read whole and stored with others; larger ones stream a chunk at a time. */
export const SMALL_FILE_BYTES = 1024 * 1024;
/** Bytes of small files read ahead of their batch, encoded or being encoded, until they are stored. */
const AHEAD_BYTES = 32 * 1024 * 1024;
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
  /** Every small file whose reading was started, ahead or not: none is read twice. */
  private readonly started = new Set<string>();
  private aheadBytes = 0;
  /** The small files to store, distinct, in the order the batches store them; `next` is the first not started. */
  private readonly pending: BundleFile[] = [];
  private next = 0;
  private readonly encoder: FileEncoder;
  // Large files are read one at a time, each read into this (encodedChunks copies what it keeps).
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
    let bytes = 0;
    for (const file of files) {
      if (found.has(file.sha256) || file.size > SMALL_FILE_BYTES) continue;
      this.pending.push(file);
      bytes += file.size;
    }
    this.encoder = new FileEncoder(bytes >= WORKER_MIN_BYTES);
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
    await this.encoder.close();
  }

  /** A small file's chunks, read ahead or (past AHEAD_BYTES) now. */
  private encoded(file: BundleFile): Promise<EncodedBlob> {
    const ahead = this.ahead.get(file.sha256);
    if (!ahead) {
      this.started.add(file.sha256);
      return this.encoder.encode(file);
    }
    this.ahead.delete(file.sha256);
    this.aheadBytes -= file.size;
    return ahead;
  }

  private readAhead(): void {
    while (this.next < this.pending.length && this.aheadBytes < AHEAD_BYTES) {
      const file = this.pending[this.next++]!;
      if (this.started.has(file.sha256)) continue;
      this.started.add(file.sha256);
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
