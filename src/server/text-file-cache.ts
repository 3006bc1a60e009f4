/**
 * The base64 text of large binaries kept as files, one per content (`<sha256>.b64`), so
 * that answering a large attachment again reads a file into a few reused buffers instead
 * of reading database rows. Content only changes on import and a binary's content id is
 * the SHA-256 of its bytes, so a file never goes stale: it is only evicted, oldest use
 * first, when the folder outgrows its bound.
 *
 * Why files and not the store: every stored chunk read through better-sqlite3 (or pg)
 * arrives in a freshly allocated buffer. For a 200 MB attachment that is 267 MiB of
 * short-lived external memory per answer, which drives V8 into back-to-back mark-compact
 * collections and, measured, doubled the CPU an answer costs (docs/performance.md).
 *
 * A miss answers from the store as before and writes the same pieces to a temporary file
 * as they go out; only a complete file is renamed into place. Several processes may share
 * the folder: a rename is atomic, identical content makes duplicate writes harmless, and a
 * file unlinked by another process's eviction stays readable to whoever has it open.
 */
import { randomBytes } from 'node:crypto';
import { type FileHandle, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { isStaleTemporary, prepareCacheFolder } from '../cache/folder.ts';
import { type BinarySource, base64Chunks, base64Length } from '../xml/binary.ts';

export interface TextFileCacheOptions {
  /** The folder; undefined keeps nothing. */
  readonly dir: string | undefined;
  /** Bound of all files in the folder together; 0 keeps nothing. */
  readonly maxBytes: number;
  /** Binaries smaller than this are answered from the store, never kept. */
  readonly minBinaryBytes?: number;
  /** Told about files that could not be written or read; the answer goes out anyway. */
  readonly onError?: (error: unknown) => void;
  readonly onLookup?: (result: 'hit' | 'miss') => void;
}

/** A piece of an answer's text; `release` hands a lent buffer back once it has been written. */
export interface TextPiece {
  readonly bytes: Buffer | string;
  readonly release?: () => void;
}

/** The folder cannot be used: not creatable or not writable. */
export class TextCacheDirError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the binary cache folder ${dir} cannot be used: ${reason}`, options);
    this.name = 'TextCacheDirError';
  }
}

/** 8 MiB: below this, reading the rows costs little and the answer may be in the response cache. */
export const DEFAULT_MIN_BINARY_BYTES = 8 * 1024 * 1024;
/** Bytes read from a file per piece (and the size of each reused buffer). */
const PIECE_BYTES = 256 * 1024;
/** Reused buffers kept between answers (4 MiB). */
const POOL_LIMIT = 16;
/** A miss's answer waits for its file's writes past this much queued: memory stays bounded on a slow disk. */
const MAX_UNWRITTEN_BYTES = 8 * 1024 * 1024;
/** A hit records its use (the eviction order, as the file's mtime) at most this often. */
const TOUCH_INTERVAL_MS = 60_000;
const CONTENT_ID = /^[0-9a-f]{64}$/;
const SUFFIX = '.b64';

/** Large enough to keep, small enough for the bound, and named by its SHA-256. */
export function worthKeeping(
  source: BinarySource,
  maxBytes: number,
  minBinaryBytes = DEFAULT_MIN_BINARY_BYTES,
): boolean {
  return (
    source.size >= minBinaryBytes &&
    base64Length(source.size) <= maxBytes &&
    source.contentId !== undefined &&
    CONTENT_ID.test(source.contentId)
  );
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
}

/** The text of one binary being written to a temporary file as its answer goes out. */
class Fill {
  private written = Promise.resolve();
  private unwritten = 0;
  private bytes = 0;
  private failed: unknown;

  constructor(
    readonly handle: FileHandle,
    readonly temporary: string,
  ) {}

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
          ? this.handle.write(piece, null, 'latin1')
          : this.handle.write(piece));
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
    await this.handle.close().catch((error: unknown) => {
      this.failed ??= error;
    });
    if (this.failed === undefined && this.bytes !== expectedBytes)
      return new Error(`wrote ${this.bytes} characters, expected ${expectedBytes}`);
    return this.failed;
  }
}

export class TextFileCache {
  private readonly pool: Buffer[] = [];
  private readonly filling = new Set<string>();
  private readonly pending = new Set<Promise<void>>();
  private readonly minBinaryBytes: number;

  private constructor(
    private readonly options: TextFileCacheOptions,
    private readonly dir: string | undefined,
  ) {
    this.minBinaryBytes = options.minBinaryBytes ?? DEFAULT_MIN_BINARY_BYTES;
  }

  /** Creates the folder, removes temporary files a crash left, and trims it to the bound. */
  static async open(options: TextFileCacheOptions): Promise<TextFileCache> {
    const { dir, maxBytes } = options;
    if (dir === undefined || maxBytes <= 0) return new TextFileCache(options, undefined);
    try {
      await prepareCacheFolder(dir);
    } catch (error) {
      throw new TextCacheDirError(dir, reasonOf(error), { cause: error });
    }
    const cache = new TextFileCache(options, dir);
    await cache.trim(true);
    return cache;
  }

  static none(): TextFileCache {
    return new TextFileCache({ dir: undefined, maxBytes: 0 }, undefined);
  }

  /** Whether answers of this binary go through the cache: large, identified by its SHA-256. */
  applies(source: BinarySource): boolean {
    return this.dir !== undefined && worthKeeping(source, this.options.maxBytes, this.minBinaryBytes);
  }

  /** The base64 text of `source` (see `applies`), piece by piece: from its file, or from the source while its file is made. */
  async *text(source: BinarySource): AsyncGenerator<TextPiece> {
    const id = source.contentId!;
    const length = base64Length(source.size);
    const file = this.fileOf(id);
    const handle = await this.openFile(file, length);
    this.options.onLookup?.(handle ? 'hit' : 'miss');
    if (handle) yield* this.fromFile(handle, length);
    else yield* this.fromSource(source, id, length);
  }

  /**
   * Writes the files of the sources that go through the cache and have none yet, one at a
   * time (after an import, so that even the first answer of a large binary is read from a
   * file); how many were written.
   */
  async keep(sources: Iterable<BinarySource>): Promise<number> {
    let written = 0;
    for (const source of sources) {
      if (!this.applies(source)) continue;
      const id = source.contentId!;
      const length = base64Length(source.size);
      const present = await stat(this.fileOf(id)).catch(() => undefined);
      if (present?.size === length) continue;
      // Nobody waits for these: each piece waits for its write, which keeps the memory of
      // reading back a 160 MB binary near that of importing it (+80 MB with a queue).
      for await (const _piece of this.fromSource(source, id, length, 0));
      await this.settled();
      if ((await stat(this.fileOf(id)).catch(() => undefined))?.size === length) written++;
    }
    return written;
  }

  /** Resolves when the files being written now are in place (or given up). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  /** Removes the files of contents that `inUse` says no record has any more; how many went. */
  async forgetUnused(inUse: (contentId: string) => Promise<boolean>): Promise<number> {
    let removed = 0;
    for (const { file } of await this.listed()) {
      const id = path.basename(file, SUFFIX);
      if (this.filling.has(id) || (await inUse(id))) continue;
      await rm(file, { force: true });
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
    if (this.dir === undefined) return () => undefined;
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
        this.options.onError?.(error);
      } finally {
        running = false;
      }
    };
    void check();
    const timer = setInterval(check, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  private fileOf(id: string): string {
    return path.join(this.dir!, `${id}${SUFFIX}`);
  }

  /** The file opened, or undefined when there is none; a file of the wrong length is removed. */
  private async openFile(file: string, length: number): Promise<FileHandle | undefined> {
    let handle: FileHandle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (!isMissing(error)) this.options.onError?.(error);
      return undefined;
    }
    try {
      const info = await handle.stat();
      if (info.size !== length) {
        await unlink(file).catch(() => undefined);
        throw new Error(`${file} holds ${info.size} characters, expected ${length}: removed`);
      }
      const now = Date.now();
      if (now - info.mtimeMs >= TOUCH_INTERVAL_MS)
        await handle.utimes(now / 1000, now / 1000).catch(() => undefined);
      return handle;
    } catch (error) {
      await handle.close().catch(() => undefined);
      this.options.onError?.(error);
      return undefined;
    }
  }

  private borrow(): Buffer {
    return this.pool.pop() ?? Buffer.allocUnsafeSlow(PIECE_BYTES);
  }

  private giveBack(buffer: Buffer): void {
    if (this.pool.length < POOL_LIMIT) this.pool.push(buffer);
  }

  private async *fromFile(handle: FileHandle, length: number): AsyncGenerator<TextPiece> {
    try {
      let position = 0;
      while (position < length) {
        const buffer = this.borrow();
        const { bytesRead } = await handle.read(
          buffer,
          0,
          Math.min(PIECE_BYTES, length - position),
          position,
        );
        if (bytesRead === 0) {
          this.giveBack(buffer);
          throw new Error(`the cached text ended at ${position} of ${length} characters`);
        }
        position += bytesRead;
        let lent = true;
        yield {
          bytes: bytesRead === PIECE_BYTES ? buffer : buffer.subarray(0, bytesRead),
          release: () => {
            if (!lent) return;
            lent = false;
            this.giveBack(buffer);
          },
        };
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private async *fromSource(
    source: BinarySource,
    id: string,
    length: number,
    maxUnwritten = MAX_UNWRITTEN_BYTES,
  ): AsyncGenerator<TextPiece> {
    const fill = await this.startFill(id);
    let complete = false;
    try {
      for await (const piece of base64Chunks(source)) {
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
    const temporary = `${this.fileOf(id)}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      return new Fill(await open(temporary, 'wx'), temporary);
    } catch (error) {
      this.filling.delete(id);
      this.options.onError?.(error);
      return undefined;
    }
  }

  private async finishFill(fill: Fill, id: string, length: number, complete: boolean): Promise<void> {
    try {
      const failed = await fill.close(length);
      if (!complete) return;
      if (failed !== undefined) {
        this.options.onError?.(failed);
        return;
      }
      await rename(fill.temporary, this.fileOf(id));
      await this.trim(false);
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      await rm(fill.temporary, { force: true }).catch(() => undefined);
      this.filling.delete(id);
    }
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  private async listed(): Promise<Array<{ file: string; size: number; mtimeMs: number }>> {
    if (this.dir === undefined) return [];
    const files: Array<{ file: string; size: number; mtimeMs: number }> = [];
    for (const name of await readdir(this.dir)) {
      if (!name.endsWith(SUFFIX) || !CONTENT_ID.test(name.slice(0, -SUFFIX.length))) continue;
      const file = path.join(this.dir, name);
      try {
        const info = await stat(file);
        files.push({ file, size: info.size, mtimeMs: info.mtimeMs });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return files;
  }

  /** Removes the least recently used files until the folder fits; on open, also stale temporary files. */
  private async trim(removeStale: boolean): Promise<void> {
    if (this.dir === undefined) return;
    if (removeStale) {
      const now = Date.now();
      for (const name of await readdir(this.dir)) {
        if (!name.endsWith('.tmp')) continue;
        const file = path.join(this.dir, name);
        const info = await stat(file).catch(() => undefined);
        if (info && isStaleTemporary(info.mtimeMs, now)) await rm(file, { force: true });
      }
    }
    const files = await this.listed();
    let total = files.reduce((sum, f) => sum + f.size, 0);
    files.sort((a, b) => a.mtimeMs - b.mtimeMs);
    for (const f of files) {
      if (total <= this.options.maxBytes) return;
      await rm(f.file, { force: true });
      total -= f.size;
    }
  }
}
