/**
 * Resized images kept as files in one folder (one per variant, named by a hash of its
 * key), with an index beside them, `index.sqlite`, that every process using the folder
 * shares: the workers of an instance and any other instance on the machine. The index
 * holds each variant's size and last use, so the bound on the total size holds for all
 * of them together, and eviction drops the least recently used variant whoever made it.
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
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { isStaleTemporary, prepareCacheFolder } from '../cache/folder.ts';
import { openSqliteFile } from '../support/sqlite-file.ts';
import type { Binary, BinarySource } from '../xml/binary.ts';
import { isOutputFormat, type OutputFormat } from './formats.ts';
import { openedFile } from './opened-file.ts';

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

/** The variant folder cannot be used: not creatable, not writable, or its index unreadable. */
export class VariantDirError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`the variant folder ${dir} cannot be used: ${reason}`, options);
    this.name = 'VariantDirError';
  }
}

/** Variants up to this size are read whole; larger ones are streamed from their file. */
const INLINE_BYTES = 1024 * 1024;
/** A hit records its use (the LRU order) at most this often per variant. */
const TOUCH_INTERVAL_MS = 60_000;
/** How long a process waits for another's write transaction (each is short) before giving up. */
const BUSY_TIMEOUT_MS = 5_000;
const INDEX_FILE = 'index.sqlite';
const FILE_NAME = /^([0-9a-f]{64})\.([a-z]+)$/;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS variants (
  hash TEXT PRIMARY KEY,
  format TEXT NOT NULL,
  size INTEGER NOT NULL,
  used INTEGER NOT NULL,
  source TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS variants_by_use ON variants (used);
CREATE INDEX IF NOT EXISTS variants_by_source ON variants (source);
CREATE TABLE IF NOT EXISTS images (image TEXT PRIMARY KEY, source TEXT NOT NULL) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS images_by_source ON images (source);
CREATE TABLE IF NOT EXISTS totals (
  id INTEGER PRIMARY KEY CHECK (id = 0),
  entries INTEGER NOT NULL,
  bytes INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (0, 0, 0);
CREATE TRIGGER IF NOT EXISTS variant_added AFTER INSERT ON variants BEGIN
  UPDATE totals SET entries = entries + 1, bytes = bytes + NEW.size;
END;
CREATE TRIGGER IF NOT EXISTS variant_removed AFTER DELETE ON variants BEGIN
  UPDATE totals SET entries = entries - 1, bytes = bytes - OLD.size;
END;
CREATE TRIGGER IF NOT EXISTS variant_replaced AFTER UPDATE OF size ON variants BEGIN
  UPDATE totals SET bytes = bytes - OLD.size + NEW.size;
END;
`;

interface Row {
  readonly hash: string;
  readonly format: string;
}

function statements(db: Database.Database) {
  return {
    find: db.prepare<[string], { format: string; size: number; used: number }>(
      'SELECT format, size, used FROM variants WHERE hash = ?',
    ),
    touch: db.prepare<[number, string]>('UPDATE variants SET used = ? WHERE hash = ?'),
    upsert: db.prepare<[string, string, number, number, string | null]>(
      `INSERT INTO variants (hash, format, size, used, source) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (hash) DO UPDATE SET
         format = excluded.format, size = excluded.size, used = excluded.used, source = excluded.source`,
    ),
    remove: db.prepare<[string]>('DELETE FROM variants WHERE hash = ?'),
    oldest: db.prepare<[], Row>('SELECT hash, format FROM variants ORDER BY used LIMIT 64'),
    all: db.prepare<[], Row>('SELECT hash, format FROM variants'),
    ofSource: db.prepare<[string], Row>('SELECT hash, format FROM variants WHERE source = ?'),
    totals: db.prepare<[], { entries: number; bytes: number }>('SELECT entries, bytes FROM totals'),
    sourceOf: db.prepare<[string], { source: string }>('SELECT source FROM images WHERE image = ?'),
    setSource: db.prepare<[string, string]>(
      'INSERT INTO images (image, source) VALUES (?, ?) ON CONFLICT (image) DO UPDATE SET source = excluded.source',
    ),
    dropImage: db.prepare<[string]>('DELETE FROM images WHERE image = ?'),
    sourceWanted: db.prepare<[string], { one: number }>(
      'SELECT 1 AS one FROM images WHERE source = ? LIMIT 1',
    ),
  };
}

type Statements = ReturnType<typeof statements>;

interface Index {
  readonly dir: string;
  readonly db: Database.Database;
  readonly s: Statements;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
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

  private constructor(
    private readonly options: VariantCacheOptions,
    private readonly index: Index | undefined,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Opens (creating) the folder and its index, mends what a crash left (files not
   * indexed, rows without a file, old temporary files) and trims the folder to the bound.
   * Throws VariantDirError when the folder cannot be used.
   */
  static async open(options: VariantCacheOptions): Promise<VariantCache> {
    const { dir, maxBytes } = options;
    if (dir === undefined || maxBytes <= 0) return new VariantCache(options, undefined);
    let db: Database.Database | undefined;
    try {
      await prepareCacheFolder(dir);
      db = openSqliteFile(path.join(dir, INDEX_FILE), BUSY_TIMEOUT_MS, (opened) => {
        opened.pragma('journal_mode = WAL');
        // A cache: losing the last transactions in a power cut only costs resizes.
        opened.pragma('synchronous = NORMAL');
        opened.transaction(() => opened.exec(SCHEMA)).immediate();
      }).db;
      const cache = new VariantCache(options, { dir, db, s: statements(db) });
      cache.write(() => cache.mend());
      return cache;
    } catch (error) {
      db?.close();
      throw new VariantDirError(dir, reasonOf(error), { cause: error });
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
    this.attempt(() => {
      // Read first: the lock is taken only when something changes, rarely.
      if (index.s.sourceOf.get(image)?.source === source) return;
      this.write(() => {
        const before = index.s.sourceOf.get(image)?.source;
        if (before === source) return;
        if (source === undefined) index.s.dropImage.run(image);
        else index.s.setSource.run(image, source);
        if (before === undefined || index.s.sourceWanted.get(before)) return;
        for (const row of index.s.ofSource.all(before)) this.remove(index, row);
      });
    });
  }

  /**
   * The variant for `key`: from the folder, from a resize already under way in this
   * process, or made by `create`. `source` is the content it is made of; when given, the
   * variant is kept only while some image still has that content (see imageContent).
   */
  async getOrCreate(key: string, create: () => Promise<MadeVariant>, source?: string): Promise<Variant> {
    const hash = createHash('sha256').update(key).digest('hex');
    const hit = await this.lookup(hash);
    const pending = hit ? undefined : this.inFlight.get(hash);
    this.options.onLookup?.(hit || pending ? 'hit' : 'miss');
    if (hit) return hit;
    if (pending) return pending;
    const making = this.make(hash, create, source).finally(() => this.inFlight.delete(hash));
    this.inFlight.set(hash, making);
    return making;
  }

  private fileOf(dir: string, hash: string, format: string): string {
    return path.join(dir, `${hash}.${format}`);
  }

  private async lookup(hash: string): Promise<Variant | undefined> {
    const index = this.index;
    if (!index) return undefined;
    const row = this.find(index, hash);
    if (!row || !isOutputFormat(row.format)) return undefined;
    const file = this.fileOf(index.dir, hash, row.format);
    let data: Binary;
    try {
      data =
        row.size <= INLINE_BYTES ? await readFile(file) : await openedFile(file, row.size, contentId(hash));
    } catch (error) {
      if (isMissing(error)) this.dropMissing(index, hash, file, error);
      else this.options.onError?.(error);
      return undefined;
    }
    const now = this.now();
    if (now - row.used >= TOUCH_INTERVAL_MS) this.attempt(() => index.s.touch.run(now, hash));
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
    if (!index || size > this.options.maxBytes) return;
    const file = this.fileOf(index.dir, hash, made.format);
    const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await writeFile(temporary, made.bytes, { flag: 'wx' });
      this.write(() => {
        // The image changed while this was being made: its old content is not kept.
        if (source !== undefined && !index.s.sourceWanted.get(source)) return;
        renameSync(temporary, file);
        index.s.upsert.run(hash, made.format, size, this.now(), source ?? null);
        this.evict(index);
      });
    } catch (error) {
      this.options.onError?.(error);
    } finally {
      await rm(temporary, { force: true }).catch(() => undefined);
    }
  }

  /** Inside a write transaction: deletes the least recently used until the total fits. */
  private evict(index: Index): void {
    for (;;) {
      const oldest = index.s.oldest.all();
      if (oldest.length === 0) return;
      for (const row of oldest) {
        if (index.s.totals.get()!.bytes <= this.options.maxBytes) return;
        this.remove(index, row);
      }
    }
  }

  /** Inside a write transaction. A reader that already opened the file keeps it (POSIX unlink). */
  private remove(index: Index, row: Row): void {
    index.s.remove.run(row.hash);
    try {
      unlinkSync(this.fileOf(index.dir, row.hash, row.format));
    } catch (error) {
      if (!isMissing(error)) this.options.onError?.(error);
    }
  }

  /**
   * Inside a write transaction, on open: indexes variant files the index does not know
   * (a crash between rename and commit, or a folder from before the index), forgets rows
   * whose file is gone, removes old temporary files, and trims to the bound.
   */
  private mend(): void {
    const index = this.index!;
    const known = new Map(index.s.all.all().map((row) => [row.hash, row.format]));
    const now = Date.now();
    for (const name of readdirSync(index.dir)) {
      const file = path.join(index.dir, name);
      if (name.endsWith('.tmp')) {
        try {
          if (isStaleTemporary(statSync(file).mtimeMs, now)) rmSync(file, { force: true });
        } catch (error) {
          if (!isMissing(error)) throw error;
        }
        continue;
      }
      const m = FILE_NAME.exec(name);
      if (!m || !isOutputFormat(m[2]!)) continue;
      const hash = m[1]!;
      if (known.get(hash) === m[2]) {
        known.delete(hash);
        continue;
      }
      const info = statSync(file);
      index.s.upsert.run(hash, m[2], info.size, Math.floor(info.mtimeMs), null);
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
