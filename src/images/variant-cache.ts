/**
 * Resized images kept as files (one per variant, named by a hash of its key) with a
 * bound on their total size, evicting the least recently used. Identical requests that
 * arrive while a variant is being made wait for that one resize instead of starting
 * their own. Files are written to a temporary name and renamed, so a crash never leaves
 * a half-written variant under a real name; the index is rebuilt from the folder on start.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Binary } from '../xml/binary.ts';
import { isOutputFormat, type OutputFormat } from './formats.ts';
import { openedFile } from './opened-file.ts';

export interface VariantCacheOptions {
  /** The folder; undefined keeps nothing (identical concurrent requests still share one resize). */
  readonly dir: string | undefined;
  readonly maxBytes: number;
  /** Told about files that could not be written or read; the request is answered anyway. */
  readonly onError?: (error: unknown) => void;
}

export interface MadeVariant {
  readonly bytes: Uint8Array;
  readonly format: OutputFormat;
}

export interface Variant {
  readonly format: OutputFormat;
  readonly size: number;
  /** The bytes, or for a large cached variant a source reading its file. */
  readonly data: Binary;
}

interface Entry {
  readonly format: OutputFormat;
  readonly size: number;
  touched: number;
}

/** Variants up to this size are read whole; larger ones are streamed from their file. */
const INLINE_BYTES = 1024 * 1024;
/** A hit refreshes the file's mtime (the LRU order after a restart) at most this often. */
const TOUCH_INTERVAL_MS = 60_000;
const FILE_NAME = /^([0-9a-f]{64})\.([a-z]+)$/;

export class VariantCache {
  /** Least recently used first: a Map keeps insertion order, and a hit re-inserts. */
  private readonly index = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<Variant>>();
  private total = 0;

  private constructor(private readonly options: VariantCacheOptions) {}

  /** Opens (creating) the folder and indexes the variants already in it, oldest first. */
  static async open(options: VariantCacheOptions): Promise<VariantCache> {
    const cache = new VariantCache(options);
    if (options.dir !== undefined && options.maxBytes > 0) await cache.scan(options.dir);
    return cache;
  }

  /** A cache that keeps nothing (identical concurrent requests still share one resize). */
  static none(): VariantCache {
    return new VariantCache({ dir: undefined, maxBytes: 0 });
  }

  get stats(): { entries: number; bytes: number } {
    return { entries: this.index.size, bytes: this.total };
  }

  /** The variant for `key`: from the folder, from a resize already under way, or made by `create`. */
  async getOrCreate(key: string, create: () => Promise<MadeVariant>): Promise<Variant> {
    const hash = createHash('sha256').update(key).digest('hex');
    const hit = await this.lookup(hash);
    if (hit) return hit;
    const pending = this.inFlight.get(hash);
    if (pending) return pending;
    const making = this.make(hash, create).finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, making);
    return making;
  }

  private fileOf(hash: string, format: OutputFormat): string {
    return path.join(this.options.dir!, `${hash}.${format}`);
  }

  private async lookup(hash: string): Promise<Variant | undefined> {
    const entry = this.index.get(hash);
    if (!entry) return undefined;
    this.index.delete(hash);
    this.index.set(hash, entry);
    const file = this.fileOf(hash, entry.format);
    try {
      const data =
        entry.size <= INLINE_BYTES
          ? await readFile(file)
          : await openedFile(file, entry.size, `variant:${hash}`);
      this.touch(file, entry);
      return { format: entry.format, size: entry.size, data };
    } catch (error) {
      // Removed behind our back (or unreadable): forget it and make it again.
      this.forget(hash);
      this.options.onError?.(error);
      return undefined;
    }
  }

  private async make(hash: string, create: () => Promise<MadeVariant>): Promise<Variant> {
    const made = await create();
    await this.keep(hash, made);
    return { format: made.format, size: made.bytes.byteLength, data: made.bytes };
  }

  private async keep(hash: string, made: MadeVariant): Promise<void> {
    const { dir, maxBytes } = this.options;
    const size = made.bytes.byteLength;
    if (dir === undefined || size > maxBytes) return;
    const file = this.fileOf(hash, made.format);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, made.bytes, { flag: 'wx' });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      this.options.onError?.(error);
      return;
    }
    this.forget(hash);
    this.index.set(hash, { format: made.format, size, touched: Date.now() });
    this.total += size;
    this.evict();
  }

  private evict(): void {
    for (const [hash, entry] of this.index) {
      if (this.total <= this.options.maxBytes) return;
      this.forget(hash);
      // A reader that already opened the file keeps it until it is done (POSIX unlink semantics).
      unlink(this.fileOf(hash, entry.format)).catch((error: unknown) => this.options.onError?.(error));
    }
  }

  private forget(hash: string): void {
    const entry = this.index.get(hash);
    if (!entry) return;
    this.index.delete(hash);
    this.total -= entry.size;
  }

  private touch(file: string, entry: Entry): void {
    const now = Date.now();
    if (now - entry.touched < TOUCH_INTERVAL_MS) return;
    entry.touched = now;
    const date = new Date(now);
    utimes(file, date, date).catch(() => undefined);
  }

  private async scan(dir: string): Promise<void> {
    await mkdir(dir, { recursive: true });
    const found: Array<{ hash: string; entry: Entry }> = [];
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      // Left over by a crash between write and rename.
      if (name.endsWith('.tmp')) {
        await rm(file, { force: true });
        continue;
      }
      const m = FILE_NAME.exec(name);
      if (!m || !isOutputFormat(m[2]!)) continue;
      const info = await stat(file);
      found.push({ hash: m[1]!, entry: { format: m[2], size: info.size, touched: info.mtimeMs } });
    }
    found.sort((a, b) => a.entry.touched - b.entry.touched);
    for (const { hash, entry } of found) {
      this.index.set(hash, entry);
      this.total += entry.size;
    }
    this.evict();
  }
}
