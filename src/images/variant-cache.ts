/**
 * Resized images kept as files in a bounded folder (cache/bounded-folder.ts), one per
 * variant, named by a hash of its key, with an index beside them (variant-index.ts) that
 * every process using the folder shares: the workers of an instance and any other
 * instance on the machine. The index holds each variant's size and last use, so the bound
 * on the total size holds for all of them together, and eviction drops the least recently
 * used variant whoever made it.
 *
 * Files change only inside a write transaction of the index (its lock): a variant is
 * renamed into place and indexed in one, evicted (row and file) in one. So no process
 * ever deletes a file another has just indexed, and the rows and the files agree but for
 * a crash, which the next start mends. Identical requests in one process wait for one
 * resize; across processes at worst both make the same bytes, and one rename wins.
 *
 * The index also remembers which content each image had when it was last resized, so
 * when an image changes (or is gone), the variants of its old content are deleted.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import {
  BoundedFolder,
  CacheDirError,
  evictionOrder,
  isMissing,
  isTouchDue,
} from '../cache/bounded-folder.ts';
import type { Binary, BinarySource } from '../xml/binary.ts';
import { isOutputFormat, type OutputFormat } from './formats.ts';
import { HotVariants } from './hot-variants.ts';
import { openedFile } from './opened-file.ts';
import { byUse, INDEX_FILE, openVariantIndex, type Row, type VariantIndex } from './variant-index.ts';

export interface VariantCacheOptions {
  /** The folder; undefined keeps nothing (identical concurrent requests still share one resize). */
  readonly dir: string | undefined;
  /** Bound of all variant files in the folder together, whichever process wrote them. */
  readonly maxBytes: number;
  /** Told about files that could not be written or read; the request is answered anyway. */
  readonly onError?: (error: unknown) => void;
  /**
   * Told of each request for a variant: `hit` when it needs no resize of its own (a cached
   * file, or the same variant already being made), `miss` when it is resized for it.
   */
  readonly onLookup?: (result: 'hit' | 'miss') => void;
  /** The clock of last uses (ms); tests move it on. */
  readonly now?: () => number;
  /** Bound of the variants also held in memory, base64 included (HOT_BYTES unless told). */
  readonly memoryBytes?: number;
}

export interface MadeVariant {
  readonly bytes: Uint8Array;
  readonly format: OutputFormat;
}

export interface Variant {
  readonly format: OutputFormat;
  readonly size: number;
  /**
   * The bytes, or for a variant over 1 MiB a source with the content id
   * `variant:<hash>`, the same whether it was just made or is read from its file.
   */
  readonly data: Binary;
}

/** Variants up to this size are read whole; larger ones are streamed from their file. */
const INLINE_BYTES = 1024 * 1024;
/**
 * Of those, the most recently used are held in memory too, up to this much with their
 * base64 (about 100 variants of 640×480): a hit then reads no file and encodes nothing.
 */
export const HOT_BYTES = 8 * 1024 * 1024;
/** Images whose recorded content a process remembers (beyond it, it starts again). */
const MAX_REMEMBERED_IMAGES = 10_000;
const FILE_NAME = /^([0-9a-f]{64})\.([a-z]+)$/;

interface Index extends VariantIndex {
  readonly folder: BoundedFolder;
}

function nameOf(hash: string, format: string): string {
  return `${hash}.${format}`;
}

/** The hash and format a variant file's name holds; undefined for any other file. */
function parseName(name: string): Row | undefined {
  const m = FILE_NAME.exec(name);
  return m && isOutputFormat(m[2]!) ? { hash: m[1]!, format: m[2]! } : undefined;
}

/** A variant's key as its file is named. */
function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** The ETag identity of a variant: its key's hash, so every process names it alike. */
function contentId(hash: string): string {
  return `variant:${hash}`;
}

/** A just-made large variant, with the same identity as when it is later read from its file. */
function inMemory(bytes: Uint8Array, id: string): BinarySource {
  return {
    size: bytes.byteLength,
    contentId: id,
    async *chunks() {
      yield bytes;
    },
  };
}

export class VariantCache {
  private readonly inFlight = new Map<string, Promise<Variant>>();

  private readonly now: () => number;
  /** Only with a folder: a cache turned off holds nothing anywhere. */
  private readonly hot: HotVariants | undefined;
  /** The content this process last recorded for each image, so a repeat costs no index read. */
  private readonly sources = new Map<string, string | undefined>();

  private constructor(
    private readonly options: VariantCacheOptions,
    private readonly index: Index | undefined,
  ) {
    this.now = options.now ?? Date.now;
    this.hot = index ? new HotVariants(options.memoryBytes ?? HOT_BYTES) : undefined;
  }

  /**
   * Opens (creating) the folder and its index, mends what a crash left (files not
   * indexed, rows without a file, old temporary files) and trims the folder to the bound.
   * Throws CacheDirError when the folder cannot be used.
   */
  static async open(options: VariantCacheOptions): Promise<VariantCache> {
    const { dir, maxBytes } = options;
    if (dir === undefined || maxBytes <= 0) return new VariantCache(options, undefined);
    const folder = await BoundedFolder.open({
      cache: 'variant cache',
      dir,
      maxBytes,
      isEntry: (name) => parseName(name) !== undefined,
    });
    let index: VariantIndex | undefined;
    try {
      index = openVariantIndex(folder.path(INDEX_FILE));
      const cache = new VariantCache(options, { ...index, folder });
      cache.write(() => cache.mend());
      return cache;
    } catch (error) {
      index?.db.close();
      throw new CacheDirError('variant cache', dir, error);
    }
  }

  /** A cache that keeps nothing (identical concurrent requests still share one resize). */
  static none(): VariantCache {
    return new VariantCache({ dir: undefined, maxBytes: 0 }, undefined);
  }

  /** Variants in the folder, and their total size: of every process using it. */
  get stats(): { entries: number; bytes: number } {
    return this.index?.s.totals.get() ?? { entries: 0, bytes: 0 };
  }

  close(): void {
    if (this.index?.db.open) this.index.db.close();
  }

  /**
   * Records that `image` now has the content `source` (a SHA-256), or is gone
   * (undefined). When that changes what the index knew, the variants of the content it
   * had are deleted — unless another image still has that content.
   */
  imageContent(image: string, source: string | undefined): void {
    const index = this.index;
    if (!index) return;
    // Recorded by this process already; a change another records meanwhile is looked at
    // when this process sees the image change.
    if (this.sources.has(image) && this.sources.get(image) === source) return;
    let recorded = false;
    this.attempt(() => {
      // Read first: the lock is taken only when something changes, rarely.
      if (index.s.sourceOf.get(image)?.source !== source)
        this.write(() => {
          const before = index.s.sourceOf.get(image)?.source;
          if (before === source) return;
          if (source === undefined) index.s.dropImage.run(image);
          else index.s.setSource.run(image, source);
          if (before === undefined || index.s.sourceWanted.get(before)) return;
          for (const row of index.s.ofSource.all(before)) this.remove(index, row);
        });
      recorded = true;
    });
    if (!recorded) return;
    if (this.sources.size >= MAX_REMEMBERED_IMAGES) this.sources.clear();
    this.sources.set(image, source);
  }

  /**
   * The variant for `key`: from the folder, from a resize already under way in this
   * process, or made by `create`. `source` is the content it is made of; when given, the
   * variant is kept only while some image still has that content (see imageContent).
   */
  async getOrCreate(key: string, create: () => Promise<MadeVariant>, source?: string): Promise<Variant> {
    const hash = hashOf(key);
    const hit = await this.lookup(hash);
    const pending = hit ? undefined : this.inFlight.get(hash);
    this.options.onLookup?.(hit || pending ? 'hit' : 'miss');
    if (hit) return hit;
    if (pending) return pending;
    const making = this.make(hash, create, source).finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, making);
    return making;
  }

  /** The variant for `key` when it is held in memory: no file to read, nothing to wait for. */
  held(key: string): Variant | undefined {
    const hash = hashOf(key);
    const index = this.index;
    const hot = this.hot?.get(hash);
    if (!index || !hot) return undefined;
    const row = this.indexed(index, hash);
    if (!row) return undefined;
    this.options.onLookup?.('hit');
    return { format: hot.format, size: hot.bytes.byteLength, data: hot.bytes };
  }

  /**
   * The index's row of a variant, its use recorded when due; undefined when the index has
   * none (evicted by any process, or its image changed), and then it is not held either:
   * the index stays the truth, a variant held in memory only saves reading its file.
   */
  private indexed(index: Index, hash: string): { format: OutputFormat; size: number } | undefined {
    const row = this.find(index, hash);
    if (!row || !isOutputFormat(row.format)) {
      this.hot?.delete(hash);
      return undefined;
    }
    const now = this.now();
    if (isTouchDue(row.used, now)) this.attempt(() => index.s.touch.run(now, hash));
    return { format: row.format, size: row.size };
  }

  private async lookup(hash: string): Promise<Variant | undefined> {
    const index = this.index;
    if (!index) return undefined;
    const row = this.indexed(index, hash);
    if (!row) return undefined;
    const hot = this.hot?.get(hash);
    if (hot) return { format: hot.format, size: hot.bytes.byteLength, data: hot.bytes };
    const file = index.folder.path(nameOf(hash, row.format));
    let data: Binary;
    try {
      // A small variant is read synchronously: it is at most INLINE_BYTES, written by a
      // process on this machine (the folder is on a local file system, README) and mostly still
      // in the page cache, and fs/promises' readFile makes four thread-pool round trips
      // (open, stat, read, close) that cost more than such a read: 4-10% of the realistic
      // mix's rate (docs/performance.md, "The night's round"). A cold read blocks for one
      // disk read of at most 1 MiB.
      data =
        row.size <= INLINE_BYTES ? readFileSync(file) : await openedFile(file, row.size, contentId(hash));
    } catch (error) {
      if (isMissing(error)) this.dropMissing(index, hash, file, error);
      else this.options.onError?.(error);
      return undefined;
    }
    if (data instanceof Uint8Array) this.hot?.put(hash, row.format, data);
    return { format: row.format, size: data instanceof Uint8Array ? data.byteLength : data.size, data };
  }

  private find(index: Index, hash: string): { format: string; size: number; used: number } | undefined {
    try {
      return index.s.find.get(hash);
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
  }

  /**
   * A row whose file is gone: normally another process evicted it between our read of the
   * row and the open (then the row is gone too); if the row is still there, the file was
   * removed by hand, which is worth telling.
   */
  private dropMissing(index: Index, hash: string, file: string, error: unknown): void {
    this.attempt(() =>
      this.write(() => {
        if (existsSync(file)) return;
        if (index.s.remove.run(hash).changes > 0) this.options.onError?.(error);
      }),
    );
  }

  private async make(hash: string, create: () => Promise<MadeVariant>, source?: string): Promise<Variant> {
    const made = await create();
    await this.keep(hash, made, source);
    const size = made.bytes.byteLength;
    const data = size <= INLINE_BYTES ? made.bytes : inMemory(made.bytes, contentId(hash));
    return { format: made.format, size, data };
  }

  private async keep(hash: string, made: MadeVariant, source: string | undefined): Promise<void> {
    const index = this.index;
    const size = made.bytes.byteLength;
    if (!index || !index.folder.fits(size)) return;
    const name = nameOf(hash, made.format);
    let temporary: string | undefined;
    try {
      const written = await index.folder.writeTemporary(name, made.bytes);
      temporary = written;
      this.write(() => {
        // The image changed while this was being made: its old content is not kept.
        if (source !== undefined && !index.s.sourceWanted.get(source)) return;
        const now = this.now();
        index.folder.placeSync(written, name);
        index.s.upsert.run(hash, made.format, size, now, source ?? null);
        this.evict(index);
        if (size <= INLINE_BYTES) this.hot?.put(hash, made.format, made.bytes);
      });
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      if (temporary !== undefined) await index.folder.discard(temporary);
    }
  }

  /** Inside a write transaction: deletes the least recently used until the total fits. */
  private evict(index: Index): void {
    const total = index.s.totals.get()!.bytes;
    for (const row of evictionOrder(byUse(index.s), total, index.folder.maxBytes)) this.remove(index, row);
  }

  /** Inside a write transaction. A reader that already opened the file keeps it (POSIX unlink). */
  private remove(index: Index, row: Row): void {
    index.s.remove.run(row.hash);
    this.hot?.delete(row.hash);
    try {
      index.folder.removeSync(nameOf(row.hash, row.format));
    } catch (error) {
      this.options.onError?.(error);
    }
  }

  /**
   * Inside a write transaction, on open (after the folder removed old temporary files):
   * indexes variant files the index does not know (a crash between rename and commit, or a
   * folder from before the index), forgets rows whose file is gone, and trims to the bound.
   */
  private mend(): void {
    const index = this.index!;
    const known = new Map(index.s.all.all().map((row) => [row.hash, row.format]));
    for (const name of index.folder.namesSync()) {
      const { hash, format } = parseName(name)!;
      if (known.get(hash) === format) {
        known.delete(hash);
        continue;
      }
      const entry = index.folder.entrySync(name);
      if (entry) index.s.upsert.run(hash, format, entry.size, Math.floor(entry.usedMs), null);
    }
    for (const hash of known.keys()) index.s.remove.run(hash);
    this.evict(index);
  }

  /** Runs `work` holding the index's write lock (SQLite BEGIN IMMEDIATE), all or nothing. */
  private write(work: () => void): void {
    this.index!.db.transaction(work).immediate();
  }

  /** Index trouble during a request is told, not thrown: the answer goes out without the cache. */
  private attempt(work: () => void): void {
    try {
      work();
    } catch (error) {
      this.options.onError?.(error);
    }
  }
}
