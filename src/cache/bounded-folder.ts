/**
 * A folder of files kept under a byte bound, which every process using it shares: the
 * workers of an instance, other instances on the machine, `scoop import`. The base64 cache
 * and the variant cache are each one.
 *
 * - A file is written as a temporary beside its name (`<name>.<random>.tmp`, created
 *   exclusively, so never another writer's) and renamed into place only when complete. A
 *   rename is atomic: a reader finds the whole file or none, and of two processes writing
 *   one name the last rename wins, with no mix of the two.
 * - Past the bound, the least recently used files go first. A file unlinked while another
 *   process reads it stays readable to that reader (POSIX unlink).
 * - A temporary older than STALE_TEMPORARY_MS was left by a crash and goes at open; a
 *   younger one may be another process's write under way, and stays.
 *
 * Sizes and last uses come either from the files themselves (size, and mtime as the last
 * use, moved on by `touch` at most once per TOUCH_INTERVAL_MS), which every process sees
 * alike and `trim` evicts by; or from an index the cache keeps (the variant cache's SQLite
 * index), which orders its entries itself, passes them through `evictionOrder`, and places
 * and removes files synchronously (`placeSync`, `removeSync`) while it holds its own lock.
 */
import { randomBytes } from 'node:crypto';
import { futimesSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A temporary file this old was left by a crash; younger ones may be another process's write. */
const STALE_TEMPORARY_MS = 10 * 60_000;
/** A use is recorded (the eviction order) at most this often per file. */
const TOUCH_INTERVAL_MS = 60_000;
const TEMPORARY_SUFFIX = '.tmp';

export interface BoundedFolderOptions {
  /** What the folder holds, for messages: `base64 cache`, `variant cache`. */
  readonly cache: string;
  readonly dir: string;
  /** Bound of all entries together. */
  readonly maxBytes: number;
  /** Whether a file is an entry; other files (an index, someone's notes) are neither counted nor removed. */
  readonly isEntry: (name: string) => boolean;
}

export interface FolderEntry {
  readonly name: string;
  readonly size: number;
  /** The file's mtime: its last recorded use. */
  readonly usedMs: number;
}

/** A temporary being written, not yet in place. */
export interface Temporary {
  readonly path: string;
  readonly handle: FileHandle;
}

/** The folder cannot be used: not creatable, not writable (or, for the variant cache, its index unreadable). */
export class CacheDirError extends Error {
  /** The first line of the cause's message. */
  readonly reason: string;

  constructor(
    readonly cache: string,
    readonly dir: string,
    cause: unknown,
  ) {
    const reason = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]!;
    super(`the ${cache} folder ${dir} cannot be used: ${reason}`, { cause });
    this.name = 'CacheDirError';
    this.reason = reason;
  }
}

export function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/** Whether a use last recorded at `usedMs` is old enough to record a new one. */
export function isTouchDue(usedMs: number, now: number): boolean {
  return now - usedMs >= TOUCH_INTERVAL_MS;
}

/**
 * The entries to evict so that the rest fit `maxBytes`: `byUse` (least recently used
 * first) until what is left of `total` fits. Lazy, so the caller may remove each entry as
 * it comes, and `byUse` may read the next ones only then (the variant cache reads its
 * index in batches).
 */
export function* evictionOrder<E extends { readonly size: number }>(
  byUse: Iterable<E>,
  total: number,
  maxBytes: number,
): Generator<E> {
  let left = total;
  for (const entry of byUse) {
    if (left <= maxBytes) return;
    yield entry;
    left -= entry.size;
  }
}

export class BoundedFolder {
  private constructor(private readonly options: BoundedFolderOptions) {}

  /**
   * Creates the folder and writes a probe file in it, so a folder that cannot be used is
   * refused at start rather than on every request, and removes the temporaries a crash
   * left. Throws CacheDirError.
   */
  static async open(options: BoundedFolderOptions): Promise<BoundedFolder> {
    const folder = new BoundedFolder(options);
    try {
      await mkdir(options.dir, { recursive: true });
      const probe = folder.path(`.probe-${process.pid}-${randomBytes(4).toString('hex')}${TEMPORARY_SUFFIX}`);
      writeFileSync(probe, '');
      unlinkSync(probe);
      await folder.removeStaleTemporaries();
    } catch (error) {
      throw new CacheDirError(options.cache, options.dir, error);
    }
    return folder;
  }

  get dir(): string {
    return this.options.dir;
  }

  get maxBytes(): number {
    return this.options.maxBytes;
  }

  path(name: string): string {
    return path.join(this.options.dir, name);
  }

  /** Whether a file of `size` bytes can be kept at all. */
  fits(size: number): boolean {
    return size <= this.options.maxBytes;
  }

  /** A new temporary for `name`, open for writing. */
  async openTemporary(name: string): Promise<Temporary> {
    const temporary = this.temporaryFor(name);
    return { path: temporary, handle: await open(temporary, 'wx') };
  }

  /** `bytes` written whole to a new temporary for `name`: its path. Nothing is left when it fails. */
  async writeTemporary(name: string, bytes: Uint8Array): Promise<string> {
    const temporary = this.temporaryFor(name);
    try {
      await writeFile(temporary, bytes, { flag: 'wx' });
      return temporary;
    } catch (error) {
      await this.discard(temporary);
      throw error;
    }
  }

  /** Renames a complete temporary into place. */
  async place(temporary: string, name: string): Promise<void> {
    await rename(temporary, this.path(name));
  }

  /** The same, for a cache that places files while it holds its index's lock. */
  placeSync(temporary: string, name: string): void {
    renameSync(temporary, this.path(name));
  }

  /** Removes a temporary that was not placed (or already was); never fails. */
  async discard(temporary: string): Promise<void> {
    await rm(temporary, { force: true }).catch(() => undefined);
  }

  /** The entries, with their files' sizes and mtimes; one removed meanwhile is left out. */
  async entries(): Promise<FolderEntry[]> {
    const entries: FolderEntry[] = [];
    for (const name of await readdir(this.options.dir)) {
      if (!this.options.isEntry(name)) continue;
      try {
        const info = await stat(this.path(name));
        entries.push({ name, size: info.size, usedMs: info.mtimeMs });
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
    return entries;
  }

  /** The entries' names, for a cache mending its index while it holds its lock. */
  namesSync(): string[] {
    return readdirSync(this.options.dir).filter(this.options.isEntry);
  }

  /** One entry's size and mtime; undefined when its file is gone. */
  entrySync(name: string): FolderEntry | undefined {
    try {
      const info = statSync(this.path(name));
      return { name, size: info.size, usedMs: info.mtimeMs };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async remove(name: string): Promise<void> {
    await rm(this.path(name), { force: true });
  }

  /** Removes an entry's file; a file already gone is no error. */
  removeSync(name: string): void {
    try {
      unlinkSync(this.path(name));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  /** Evicts by the files' mtimes, least recently used first, until the entries fit the bound; the bytes left. */
  async trim(): Promise<number> {
    const entries = (await this.entries()).sort((a, b) => a.usedMs - b.usedMs);
    let total = entries.reduce((sum, entry) => sum + entry.size, 0);
    for (const entry of evictionOrder(entries, total, this.options.maxBytes)) {
      await this.remove(entry.name);
      total -= entry.size;
    }
    return total;
  }

  /** Records a use of an open entry whose mtime is `usedMs`, at most once per TOUCH_INTERVAL_MS; best effort. */
  async touch(handle: FileHandle, usedMs: number): Promise<void> {
    const now = Date.now();
    if (isTouchDue(usedMs, now)) await handle.utimes(now / 1000, now / 1000).catch(() => undefined);
  }

  /** The same for a file descriptor, synchronously. */
  touchSync(fd: number, usedMs: number): void {
    const now = Date.now();
    if (!isTouchDue(usedMs, now)) return;
    try {
      futimesSync(fd, now / 1000, now / 1000);
    } catch {
      // Best effort: the file is only evicted a little early.
    }
  }

  private temporaryFor(name: string): string {
    return `${this.path(name)}.${randomBytes(6).toString('hex')}${TEMPORARY_SUFFIX}`;
  }

  private async removeStaleTemporaries(): Promise<void> {
    const now = Date.now();
    for (const name of await readdir(this.options.dir)) {
      if (!name.endsWith(TEMPORARY_SUFFIX)) continue;
      const file = this.path(name);
      const info = await stat(file).catch(() => undefined);
      if (info && now - info.mtimeMs > STALE_TEMPORARY_MS) await rm(file, { force: true });
    }
  }
}
