/**
 * The base64 cache: the base64 text of large binaries kept as files in a bounded folder
 * (bounded-folder.ts), one per content (`<sha256>.b64`), so that answering a large
 * attachment again reads a file into a few reused buffers instead of reading database rows.
 * Content only changes on import and a binary's content id is the SHA-256 of its bytes, so
 * a file never goes stale: it is only evicted, oldest use first, when the folder outgrows
 * its bound.
 *
 * Why files and not the store: every stored chunk read through better-sqlite3 (or pg)
 * arrives in a freshly allocated buffer. For a 200 MB attachment that is 267 MiB of
 * short-lived external memory per answer, which drives V8 into back-to-back mark-compact
 * collections and, measured, doubled the CPU an answer costs (docs/performance.md).
 *
 * A miss answers from the store as before and writes the same pieces to a temporary file
 * as they go out; only a complete file is renamed into place. Several processes may share
 * the folder: besides what the folder guarantees, identical content makes duplicate writes
 * harmless.
 *
 * The text of a binary of one stored chunk (most attachments and images) is kept too, and
 * read whole (`textNow`): reading the file costs less than the chunk's row, which SQLite
 * assembles from overflow pages and pg transfers and decodes (docs/performance.md). So is
 * a longer one up to TEXT_NOW_BYTES once its file is there (`readsNow`).
 */
import { closeSync, fstatSync, openSync, readSync, rmSync } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { BufferPool } from '../support/buffer-pool.ts';
import { BoundedFolder, isMissing, type Temporary } from './bounded-folder.ts';

/**
 * A binary as this cache takes it: the shape of xml/binary.ts's BinarySource, declared here
 * because cache/ imports nothing above it. Its text comes from the `encode` option.
 */
export interface Base64Source {
  readonly size: number;
  /** Identifies the content; only a SHA-256 (which names the file) is ever kept. */
  readonly contentId?: string;
  chunks(): AsyncIterable<Uint8Array>;
  readonly base64Text?: (() => AsyncIterable<Uint8Array>) | undefined;
}

export interface Base64CacheOptions {
  /** The folder; undefined keeps nothing. */
  readonly dir: string | undefined;
  /** Bound of all files in the folder together; 0 keeps nothing. */
  readonly maxBytes: number;
  /** A binary's base64 text in pieces, as it is answered without the cache (xml/binary.ts's base64Chunks). */
  readonly encode: (source: Base64Source) => AsyncIterable<Buffer | string>;
  /** Binaries smaller than this are answered from the store, never kept. */
  readonly minBinaryBytes?: number;
  /** Told about files that could not be written or read; the answer goes out anyway. */
  readonly onError?: (error: unknown) => void;
  readonly onLookup?: (result: 'hit' | 'miss') => void;
}

/** A piece of an answer's text; `release` hands a lent buffer back once it has been written. */
export interface Base64Piece {
  readonly bytes: Buffer | string;
  readonly release?: () => void;
}

/**
 * A text up to this length (one stored chunk's) is read whole and at once (`textNow`): from
 * a file that is in the page cache, that costs less than the chunk's row, which SQLite
 * assembles from its overflow pages and pg from its rows (docs/performance.md, "The sixth
 * round").
 */
export const WHOLE_TEXT_BYTES = 256 * 1024;
/**
 * Binaries of more than one stored chunk (whose text is longer than WHOLE_TEXT_BYTES) go
 * through their file, never the store's chunks: each chunk read from the store is a fresh
 * buffer the collector must free, a file's pieces go through a few reused ones
 * (docs/performance.md, "The eighth round": images of 0.3–1.7 MB at about three quarters of
 * the CPU). Up to TEXT_NOW_BYTES the file is read whole, longer ones stream from it.
 */
export const DEFAULT_MIN_BINARY_BYTES = (WHOLE_TEXT_BYTES / 4) * 3 + 1;
/**
 * A text of more than one stored chunk up to this length is read whole and at once too
 * when its file is there (`readsNow`), into a buffer lent to its answer, and the answer goes
 * out in one write: streamed, each of its pieces cost an open, a read and a close through
 * the thread pool and a write of its own, and its answer was never kept in the answer pack
 * (prepare/answer-pack.ts), so its record was read from the store each time. Under the
 * realistic mix such answers (images of 0.2–1.5 MB) cost about three times the ceiling's
 * (docs/performance.md, "The thirtieth round"). It is also what one answer may read whole
 * in all (prepare/prepared-answer.ts): past it, its other long texts stream. Like the
 * answer pack's reads and the texts of one chunk, the read is synchronous: from the page
 * cache, about what writing the same bytes to the socket costs.
 */
export const TEXT_NOW_BYTES = 2 * 1024 * 1024;
/**
 * An import writes the files of binaries of this size or more (cli/keep-binaries.ts), so
 * that even their first answer streams from a file; smaller ones are written by the first
 * request that needs one, which costs the import no time.
 */
export const KEPT_AFTER_IMPORT_BYTES = 8 * 1024 * 1024;
/** Whole texts being written at once, at most: past it, a miss is answered without keeping its text. */
const MAX_WHOLE_FILLS = 16;
/**
 * After a whole text could not be written (a full disk, a folder gone), none is tried for
 * this long: every miss would try again, and tell of it, many times a second.
 */
const WHOLE_FILL_PAUSE_MS = 60_000;
/** Bytes read from a file per piece (and the size of each reused buffer). */
const PIECE_BYTES = 256 * 1024;
/** Reused buffers kept between answers: 16 of them (4 MiB), half the bound, the most of one size. */
const POOL_BYTES = 32 * PIECE_BYTES;
/** A miss's answer waits for its file's writes past this much queued: memory stays bounded on a slow disk. */
const MAX_UNWRITTEN_BYTES = 8 * 1024 * 1024;
const CONTENT_ID = /^[0-9a-f]{64}$/;
const SUFFIX = '.b64';

/** The length of the base64 text of `size` bytes. */
function textLength(size: number): number {
  return Math.ceil(size / 3) * 4;
}

function nameOf(id: string): string {
  return `${id}${SUFFIX}`;
}

function isEntry(name: string): boolean {
  return name.endsWith(SUFFIX) && CONTENT_ID.test(name.slice(0, -SUFFIX.length));
}

function namedBySha256(source: Base64Source): boolean {
  return source.contentId !== undefined && CONTENT_ID.test(source.contentId);
}

/** Removes a kept file of the wrong length (a write cut short, a hand that changed it); the error to tell. */
function removedMisfit(file: string, size: number, length: number): Error {
  rmSync(file, { force: true });
  return new Error(`${file} holds ${size} characters, expected ${length}: removed`);
}

/** Large enough to keep, small enough for the bound, and named by its SHA-256. */
export function worthKeeping(
  source: Base64Source,
  maxBytes: number,
  minBinaryBytes = DEFAULT_MIN_BINARY_BYTES,
): boolean {
  return source.size >= minBinaryBytes && textLength(source.size) <= maxBytes && namedBySha256(source);
}

/** The text of one binary being written to a temporary file as its answer goes out. */
class Fill {
  private written = Promise.resolve();
  private unwritten = 0;
  private bytes = 0;
  private failed: unknown;

  constructor(readonly temporary: Temporary) {}

  /** Queues a piece's write; past MAX_UNWRITTEN_BYTES queued, returns a promise of the queue's end. */
  add(piece: Buffer | string, maxUnwritten: number): Promise<void> | undefined {
    if (this.failed !== undefined) return undefined;
    const size = piece.length;
    this.bytes += size;
    this.unwritten += size;
    this.written = this.written.then(async () => {
      if (this.failed !== undefined) return;
      try {
        await (typeof piece === 'string'
          ? this.temporary.handle.write(piece, null, 'latin1')
          : this.temporary.handle.write(piece));
      } catch (error) {
        this.failed = error;
      }
      this.unwritten -= size;
    });
    return this.unwritten > maxUnwritten ? this.written : undefined;
  }

  /** Waits for the writes and closes; the error that stopped the fill, if any. */
  async close(expectedBytes: number): Promise<unknown> {
    await this.written;
    await this.temporary.handle.close().catch((error: unknown) => {
      this.failed ??= error;
    });
    if (this.failed === undefined && this.bytes !== expectedBytes)
      return new Error(`wrote ${this.bytes} characters, expected ${expectedBytes}`);
    return this.failed;
  }
}

export class Base64Cache {
  /** Buffers for streamed pieces, each lent until its piece has been written. */
  private readonly pool = new BufferPool(POOL_BYTES, PIECE_BYTES);
  private readonly filling = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private wholeFills = 0;
  private wholeFillsPausedUntil = 0;
  /** The folder's bytes as this process last counted them, plus what it placed since. */
  private counted = 0;
  private trimming = false;

  private constructor(
    /** Undefined for a cache that keeps nothing (`none`). */
    private readonly options: Base64CacheOptions | undefined,
    private readonly folder: BoundedFolder | undefined,
  ) {}

  /** Creates the folder, removes temporary files a crash left, and trims it to the bound. Throws CacheDirError. */
  static async open(options: Base64CacheOptions): Promise<Base64Cache> {
    const { dir, maxBytes } = options;
    if (dir === undefined || maxBytes <= 0) return new Base64Cache(options, undefined);
    const folder = await BoundedFolder.open({ cache: 'base64 cache', dir, maxBytes, isEntry });
    const cache = new Base64Cache(options, folder);
    cache.counted = await folder.trim();
    return cache;
  }

  static none(): Base64Cache {
    return new Base64Cache(undefined, undefined);
  }

  /** Whether answers of this binary go through the cache: large, identified by its SHA-256. */
  applies(source: Base64Source): boolean {
    return (
      this.folder !== undefined &&
      worthKeeping(source, this.folder.maxBytes, this.options?.minBinaryBytes ?? DEFAULT_MIN_BINARY_BYTES)
    );
  }

  /** Whether the cache keeps files at all (a folder and a bound above 0). */
  get keepsFiles(): boolean {
    return this.folder !== undefined;
  }

  /** Whether the text of this binary is read whole (`textNow`) and kept (`keepText`): one chunk's, named by its SHA-256. */
  keepsWhole(source: Base64Source): boolean {
    return this.wholeUpTo(source, WHOLE_TEXT_BYTES);
  }

  /** What one answer may read whole of texts longer than one chunk (prepare/prepared-answer.ts). */
  readonly wholeBytesPerAnswer = TEXT_NOW_BYTES;

  /**
   * Whether the text of this binary is read whole from its file when the file is there
   * (`textNow`): any text `keepsWhole` takes, and a longer one up to TEXT_NOW_BYTES.
   */
  readsNow(source: Base64Source): boolean {
    return this.wholeUpTo(source, TEXT_NOW_BYTES);
  }

  /** A folder to keep it in, a text of at most `limit` within its bound, named by its SHA-256. */
  private wholeUpTo(source: Base64Source, limit: number): boolean {
    return (
      this.folder !== undefined &&
      textLength(source.size) <= Math.min(limit, this.folder.maxBytes) &&
      namedBySha256(source)
    );
  }

  /**
   * The text of a binary `readsNow` takes, read from its file now (synchronously, as the
   * store's rows are); undefined when there is no file, or it had the wrong length (then
   * it is removed). A missing file is counted as a miss unless `countMiss` is false (the
   * caller then streams the text, whose lookup counts).
   */
  textNow(
    source: Base64Source,
    allocate: (length: number) => Buffer = Buffer.allocUnsafe,
    countMiss = true,
  ): Buffer | undefined {
    const file = this.folder!.path(nameOf(source.contentId!));
    const length = textLength(source.size);
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch (error) {
      if (!isMissing(error)) this.tell(error);
      if (countMiss) this.options?.onLookup?.('miss');
      return undefined;
    }
    try {
      const info = fstatSync(fd);
      if (info.size !== length) throw removedMisfit(file, info.size, length);
      const text = allocate(length);
      for (let at = 0; at < length; ) {
        const read = readSync(fd, text, at, length - at, at);
        if (read === 0) throw new Error(`${file} ended at ${at} of ${length} characters`);
        at += read;
      }
      this.folder!.touchSync(fd, info.mtimeMs);
      this.options?.onLookup?.('hit');
      return text;
    } catch (error) {
      this.tell(error);
      if (countMiss) this.options?.onLookup?.('miss');
      return undefined;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Puts the text of a binary `keepsWhole` takes, as the store gave it, in its file, after
   * the answer (nobody waits); at most MAX_WHOLE_FILLS at once, the rest left for a later miss,
   * and none for WHOLE_FILL_PAUSE_MS after one failed.
   */
  keepText(source: Base64Source, text: Buffer): void {
    const id = source.contentId!;
    if (
      text.length !== textLength(source.size) ||
      this.filling.has(id) ||
      this.wholeFills >= MAX_WHOLE_FILLS ||
      Date.now() < this.wholeFillsPausedUntil
    )
      return;
    this.filling.add(id);
    this.wholeFills++;
    this.track(this.writeWhole(id, text));
  }

  /** The base64 text of `source` (see `applies`), piece by piece: from its file, or from the source while its file is made. */
  async *text(source: Base64Source): AsyncGenerator<Base64Piece> {
    const id = source.contentId!;
    const length = textLength(source.size);
    const handle = await this.openFile(nameOf(id), length);
    this.options?.onLookup?.(handle ? 'hit' : 'miss');
    if (handle) yield* this.fromFile(handle, length);
    else yield* this.fromSource(source, id, length);
  }

  /**
   * Writes the files of the sources that go through the cache and have none yet, one at a
   * time (after an import, so that even the first answer of a large binary is read from a
   * file); how many were written.
   */
  async keep(sources: Iterable<Base64Source>): Promise<number> {
    let written = 0;
    for (const source of sources) {
      if (!this.applies(source)) continue;
      const id = source.contentId!;
      const length = textLength(source.size);
      const file = this.folder!.path(nameOf(id));
      const present = await stat(file).catch(() => undefined);
      if (present?.size === length) continue;
      // Nobody waits for these: each piece waits for its write, which keeps the memory of
      // reading back a 160 MB binary near that of importing it (+80 MB with a queue).
      for await (const _piece of this.fromSource(source, id, length, 0));
      await this.settled();
      if ((await stat(file).catch(() => undefined))?.size === length) written++;
    }
    return written;
  }

  /** Resolves when the files being written now are in place (or given up). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Removes the files of contents that `inUse` says no record has any more; how many went. */
  async forgetUnused(inUse: (contentId: string) => Promise<boolean>): Promise<number> {
    if (this.folder === undefined) return 0;
    let removed = 0;
    for (const { name } of await this.folder.entries()) {
      const id = name.slice(0, -SUFFIX.length);
      if (this.filling.has(id) || (await inUse(id))) continue;
      await this.folder.remove(name);
      removed++;
    }
    return removed;
  }

  /**
   * Every `intervalMs`, and once now, when `version()` has moved (an import committed),
   * forgets the files of contents no record has any more: an attachment deleted or
   * replaced in the CMS does not stay on this disk until it happens to be evicted.
   * Returns the function that stops the watch.
   */
  watchContent(
    version: () => Promise<number>,
    inUse: (contentId: string) => Promise<boolean>,
    intervalMs = 60_000,
  ): () => void {
    if (this.folder === undefined) return () => undefined;
    let seen: number | undefined;
    let running = false;
    const check = async () => {
      if (running) return;
      running = true;
      try {
        const now = await version();
        if (now !== seen) {
          await this.forgetUnused(inUse);
          seen = now;
        }
      } catch (error) {
        this.tell(error);
      } finally {
        running = false;
      }
    };
    void check();
    const timer = setInterval(check, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private tell(error: unknown): void {
    this.options?.onError?.(error);
  }

  /** The file opened, or undefined when there is none; a file of the wrong length is removed. */
  private async openFile(name: string, length: number): Promise<FileHandle | undefined> {
    const file = this.folder!.path(name);
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (!isMissing(error)) this.tell(error);
      return undefined;
    }
    try {
      const info = await handle.stat();
      if (info.size !== length) throw removedMisfit(file, info.size, length);
      await this.folder!.touch(handle, info.mtimeMs);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      this.tell(error);
      return undefined;
    }
  }

  private async *fromFile(handle: FileHandle, length: number): AsyncGenerator<Base64Piece> {
    try {
      let position = 0;
      while (position < length) {
        const buffer = this.pool.borrow(PIECE_BYTES);
        const { bytesRead } = await handle.read(
          buffer,
          0,
          Math.min(PIECE_BYTES, length - position),
          position,
        );
        if (bytesRead === 0) {
          this.pool.giveBack(buffer);
          throw new Error(`the cached text ended at ${position} of ${length} characters`);
        }
        position += bytesRead;
        let lent = true;
        yield {
          bytes: bytesRead === PIECE_BYTES ? buffer : buffer.subarray(0, bytesRead),
          release: () => {
            if (!lent) return;
            lent = false;
            this.pool.giveBack(buffer);
          },
        };
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private async *fromSource(
    source: Base64Source,
    id: string,
    length: number,
    maxUnwritten = MAX_UNWRITTEN_BYTES,
  ): AsyncGenerator<Base64Piece> {
    const fill = await this.startFill(id);
    let complete = false;
    try {
      for await (const piece of this.options!.encode(source)) {
        const behind = fill?.add(piece, maxUnwritten);
        if (behind) await behind;
        yield { bytes: piece };
      }
      complete = true;
    } finally {
      // The answer does not wait for the disk: the file is put in place (or dropped) after it.
      if (fill) this.track(this.finishFill(fill, id, length, complete));
    }
  }

  private async startFill(id: string): Promise<Fill | undefined> {
    if (this.filling.has(id)) return undefined;
    this.filling.add(id);
    try {
      return new Fill(await this.folder!.openTemporary(nameOf(id)));
    } catch (error) {
      this.filling.delete(id);
      this.tell(error);
      return undefined;
    }
  }

  private async finishFill(fill: Fill, id: string, length: number, complete: boolean): Promise<void> {
    const folder = this.folder!;
    try {
      const failed = await fill.close(length);
      if (!complete) return;
      if (failed !== undefined) {
        this.tell(failed);
        return;
      }
      await folder.place(fill.temporary.path, nameOf(id));
      this.counted += length;
      await this.trimWhenFull();
    } catch (error) {
      this.tell(error);
    } finally {
      await folder.discard(fill.temporary.path);
      this.filling.delete(id);
    }
  }

  private async writeWhole(id: string, text: Buffer): Promise<void> {
    const folder = this.folder!;
    let temporary: string | undefined;
    try {
      temporary = await folder.writeTemporary(nameOf(id), text);
      await folder.place(temporary, nameOf(id));
      temporary = undefined;
      this.counted += text.length;
      await this.trimWhenFull();
    } catch (error) {
      // Told once: the fills under way when it failed may fail alike, unseen.
      if (Date.now() >= this.wholeFillsPausedUntil) this.tell(error);
      this.wholeFillsPausedUntil = Date.now() + WHOLE_FILL_PAUSE_MS;
    } finally {
      if (temporary !== undefined) await folder.discard(temporary);
      this.filling.delete(id);
      this.wholeFills--;
    }
  }

  /**
   * Trims once the folder, as this process counts it, has outgrown its bound: a trim reads
   * every file's size, too much to do for each small file placed. Other processes' files
   * are counted at this process's next trim, and theirs trim for them.
   */
  private async trimWhenFull(): Promise<void> {
    if (this.trimming || this.counted <= this.folder!.maxBytes) return;
    this.trimming = true;
    try {
      this.counted = await this.folder!.trim();
    } finally {
      this.trimming = false;
    }
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }
}
