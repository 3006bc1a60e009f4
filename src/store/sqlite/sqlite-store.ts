/**
 * The embedded store: one SQLite file in WAL mode. An import writes through its own
 * connection in one transaction, so readers keep seeing the previous state until it
 * commits; a read is vouched for as one content version by the versions its statements
 * saw (read-versions.ts), and made again when an import committed in its midst. The
 * statements of one turn of the event loop share one read transaction (read-batch.ts).
 */

import path from 'node:path';
import type Database from 'better-sqlite3';
import type { CacheObserver } from '../../cache/observer.ts';
import { makeFolders } from '../../support/folders.ts';
import { isBusy, openSqliteFile } from '../../support/sqlite-file.ts';
import type { BinarySource } from '../../xml/binary.ts';
import { type ChangeRow, type ChangesSince, changesSince, type VersionMark } from '../answer-changes.ts';
import type {
  AnswerKey,
  AnswerPage,
  ContentStore,
  ImportRuns,
  ImportTransaction,
  Snapshot,
  StoredRecord,
  StoreHealth,
} from '../content-store.ts';
import { schemaStatus } from '../migration-runner.ts';
import { type ReadVersions, vouchedRead } from '../read-versions.ts';
import { DEFAULT_RECORD_CACHE_BYTES, RecordCache, type RecordSource } from '../record-cache.ts';
import {
  type AnswerRow,
  answerPage,
  blobReference,
  type PagedAnswerRow,
  type RecordRow,
  storedAnswer,
  storedBlob,
  storedRecord,
} from '../record-rows.ts';
import { StoreTokens, TokenCommandsOf } from '../tokens.ts';
import { storeError, unavailableOnIoError } from './connection-errors.ts';
import { FileFlusher } from './file-flusher.ts';
import { SqliteImportRuns } from './import-runs.ts';
import { SqliteImportTransaction } from './import-transaction.ts';
import { appliedMigrations, MIGRATIONS, migrate } from './migrations.ts';
import { ReadBatch } from './read-batch.ts';
import { SqliteTokenTable } from './tokens.ts';
import { SqliteVersionWatch } from './version-watch.ts';

type Db = Database.Database;

/** The page size of a SQLite file this store creates. */
const PAGE_BYTES = 16 * 1024;

/** A row that carries the content version its statement saw: one row even when nothing matched. */
type Versioned<R> = R & { readonly content_version: string };
type Nullable<R> = { readonly [K in keyof R]: R[K] | null };
const VERSION_COLUMN = 'm.value AS content_version';
const OF_VERSION = "WHERE m.key = 'content_version'";

export interface SqliteStoreOptions {
  /**
   * How long a statement waits for a lock. A server keeps it short: its readers are not
   * blocked by writers in WAL mode, and a wait would stall every request of the process
   * (better-sqlite3 waits synchronously), so a locked database fails fast (UNAVAILABLE).
   */
  readonly busyTimeoutMs?: number;
  readonly cacheBytes?: number;
  readonly cacheObserver?: CacheObserver;
  /**
   * The file was just created by a process that only imports and reads nothing meanwhile
   * (`scoop import`): its first import may then write it with a rollback journal instead of
   * the write-ahead log (see importTransaction).
   */
  readonly newForImport?: boolean;
}

/**
 * Leaves WAL mode for a rollback journal, which SQLite allows only to the one connection
 * that has the file open: false (and nothing changed) when another has it, in any process.
 */
function leaveWal(db: Db): boolean {
  const waits = db.pragma('busy_timeout', { simple: true });
  db.pragma('busy_timeout = 0');
  try {
    return db.pragma('journal_mode = DELETE', { simple: true }) === 'delete';
  } catch (error) {
    if (isBusy(error)) return false;
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${Number(waits)}`);
  }
}

/**
 * In a rollback journal, a commit is the journal's deletion: only EXTRA also syncs the
 * folder after it, so that a power cut just after a commit cannot bring the journal back
 * and undo it (SQLite's PRAGMA synchronous); NORMAL could even leave a corrupt file.
 */
const ROLLBACK_SYNC = 'synchronous = EXTRA';

/**
 * Back in WAL mode. Never throws (it runs after the import's outcome is known): when it
 * cannot switch now, every connection that opens the file later sets WAL mode, and until
 * then this one keeps writing its own rows (tokens, import runs) with the rollback sync.
 */
function backToWal(db: Db): void {
  try {
    if (db.pragma('journal_mode = WAL', { simple: true }) === 'wal') return;
  } catch {
    // Busy (another process is opening the file) or an I/O error: stay, safely, below.
  }
  try {
    db.pragma(ROLLBACK_SYNC);
  } catch {
    // A connection that cannot even set a pragma fails its next statement on its own.
  }
}

/**
 * SQLite's own page cache for the connection requests read through, in KiB: about SQLite's
 * default (2,000 KiB), not the 16,000 better-sqlite3 compiles in. Its pages are copies of what
 * the kernel's page cache holds anyway, and most answers come from the answer pack; but
 * scanning the answers to fill the pack after every import filled all 16 MiB, emptied it
 * at the next import and filled it again, each time in new allocations: the server's peak
 * RSS under the realistic mix came 28-44 MB lower with 2 MiB, at the same rate
 * (docs/performance.md, "The sixteenth round"). An import into a file writes on a
 * connection of its own, with the default.
 */
const READ_CACHE_KIB = 2048;

function openConnection(file: string, busyMs = 10_000, wal = true): { db: Db; applied: number[] } {
  const { db, prepared } = openSqliteFile(file, busyMs, (opened) => {
    // A request's point lookups each copy a whole page from the OS: 16 KiB pages served
    // the realistic mix 11-20% faster than 64 KiB ones, and a 256 KiB chunk row is still
    // only 16 page reads (docs/performance.md, "The night's round"). Takes effect only on
    // a new, empty file (before WAL mode); an existing file keeps its size.
    opened.pragma(`page_size = ${PAGE_BYTES}`);
    if (wal) opened.pragma('journal_mode = WAL');
    opened.pragma('synchronous = NORMAL');
    opened.pragma('foreign_keys = ON');
    // The statements of the store need the tables, so a SQLite store is migrated as it opens.
    return migrate(opened);
  });
  return { db, applied: prepared };
}

export class SqliteStore extends TokenCommandsOf implements ContentStore {
  private readonly db: Db;
  private readonly statements;
  private readonly cache: RecordCache;
  private readonly watch: SqliteVersionWatch;
  private readonly reads: ReadBatch;
  private readonly runs: SqliteImportRuns;
  protected readonly tokens: StoreTokens;
  /** What opening the file migrated, reported by the first migrate() call (`scoop migrate`). */
  private appliedAtOpen: number[];
  /** Until the first import: whether it may use a rollback journal (SqliteStoreOptions.newForImport). */
  private firstImportAlone: boolean;

  constructor(
    private readonly file: string,
    options: SqliteStoreOptions = {},
  ) {
    super();
    this.cache = new RecordCache(
      this.source,
      options.cacheBytes ?? DEFAULT_RECORD_CACHE_BYTES,
      options.cacheObserver,
    );
    if (file !== ':memory:') makeFolders(path.dirname(path.resolve(file)));
    this.firstImportAlone = options.newForImport === true && file !== ':memory:';
    const opened = openConnection(file, options.busyTimeoutMs ?? 10_000);
    this.db = opened.db;
    this.db.pragma(`cache_size = -${READ_CACHE_KIB}`);
    this.appliedAtOpen = opened.applied;
    const db = this.db;
    const select = `SELECT r.id, r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id`;
    this.statements = {
      get: db.prepare<[string, string], RecordRow>(`${select} WHERE r.kind = ? AND r.id = ?`),
      all: db.prepare<[string], RecordRow>(`${select} WHERE r.kind = ? ORDER BY CAST(r.id AS INTEGER), r.id`),
      // A blob and, when it is one chunk, that chunk, with the content version (read-versions.ts).
      blob: db.prepare<[number], Versioned<Omit<RecordRow, 'id' | 'doc'> & { data: Buffer | null }>>(
        `SELECT ${VERSION_COLUMN}, b.blob_id, b.size, b.chunk_count, b.sha256, b.encoding, c.data FROM meta m LEFT JOIN blobs b ON b.blob_id = ? LEFT JOIN blob_chunks c ON c.blob_id = b.blob_id AND c.seq = 0 AND b.chunk_count = 1 ${OF_VERSION}`,
      ),
      blobReference: db.prepare<[number], Versioned<Omit<RecordRow, 'id' | 'doc'>>>(
        `SELECT ${VERSION_COLUMN}, b.blob_id, b.size, b.chunk_count, b.sha256, b.encoding FROM meta m LEFT JOIN blobs b ON b.blob_id = ? ${OF_VERSION}`,
      ),
      chunk: db.prepare<[number, number], { data: Buffer }>(
        'SELECT data FROM blob_chunks WHERE blob_id = ? AND seq = ?',
      ),
      version: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'content_version'"),
      answer: db.prepare<[string, string, string], Versioned<Nullable<AnswerRow>>>(
        `SELECT ${VERSION_COLUMN}, a.compact AS fragment, a.visible_from, a.visible_until FROM meta m LEFT JOIN answers a ON a.operation = ? AND a.key = ? AND a.format = ? ${OF_VERSION}`,
      ),
      answerPage: db.prepare<[string, string, string, number], PagedAnswerRow>(
        `SELECT ${VERSION_COLUMN}, a.operation, a.key, a.compact, a.visible_from, a.visible_until FROM meta m LEFT JOIN (SELECT * FROM answers WHERE format = ? AND (operation, key) > (?, ?) ORDER BY operation, key LIMIT ?) a ON 1 ${OF_VERSION} ORDER BY a.operation, a.key`,
      ),
      changes: db.prepare<[number], ChangeRow>(
        'SELECT version, token, changes FROM content_changes WHERE version >= ? ORDER BY version',
      ),
      // Orphaned blobs (no record since the last import) wait for their sweep; they are not in use.
      large: db.prepare<[number], RecordRow>(`${select} WHERE b.size >= ?`),
      binaryInUse: db.prepare<[string], { one: number }>(
        'SELECT 1 AS one FROM blobs WHERE sha256 = ? AND orphaned_at IS NULL',
      ),
    };
    this.reads = new ReadBatch(db);
    this.watch = new SqliteVersionWatch(db);
    this.runs = new SqliteImportRuns(db);
    this.tokens = new StoreTokens(new SqliteTokenTable(db, this.reads.end), () => this.watch.forget());
  }

  private toRecord(row: RecordRow, readChunk = true): StoredRecord {
    const onlyChunk =
      readChunk && row.chunk_count === 1 ? this.statements.chunk.get(row.blob_id!, 0)!.data : undefined;
    return storedRecord(row, this.readChunk, onlyChunk);
  }

  private readonly readChunk = async (blobId: number, seq: number) => {
    // Let other requests run between chunks of a large binary: better-sqlite3 reads synchronously.
    if (seq > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    return this.statement(() => this.statements.chunk.get(blobId, seq)?.data);
  };

  /** A read statement, in this turn's read transaction (read-batch.ts). */
  private statement<T>(work: () => T): T {
    try {
      return this.reads.read(work);
    } catch (error) {
      throw storeError(error);
    }
  }

  /**
   * One statement at a time, for one read: the answer and blob statements select the content
   * version with their rows, the record statements are vouched for around them (read-versions.ts).
   */
  private snapshotFor(versions: ReadVersions): Snapshot {
    const { statements } = this;
    const unvouched = async <T>(read: () => T): Promise<T> => {
      await versions.beforeUnvouched();
      return this.statement(read);
    };
    const vouched = <R extends { content_version: string }>(row: R): R => {
      versions.saw(Number(row.content_version));
      return row;
    };
    return {
      get: (kind, id, readChunk = true) =>
        unvouched(() => {
          const row = statements.get.get(kind, id);
          return row ? this.toRecord(row, readChunk) : undefined;
        }),
      getMany: (kind, ids) =>
        unvouched(() => {
          const found = new Map<string, StoredRecord>();
          for (const id of ids) {
            if (found.has(id)) continue;
            const row = statements.get.get(kind, id);
            if (row) found.set(id, this.toRecord(row));
          }
          return found;
        }),
      all: (kind) =>
        unvouched(() => statements.all.all(kind).map((row) => ({ id: row.id, record: this.toRecord(row) }))),
      blob: async (blobId, readChunk = true) =>
        this.statement(() => {
          if (!readChunk) {
            const reference = blobReference(vouched(statements.blobReference.get(blobId)!));
            return reference && storedBlob(reference, this.readChunk);
          }
          const row = vouched(statements.blob.get(blobId)!);
          const reference = blobReference(row);
          if (!reference || (reference.chunkCount === 1 && !row.data)) return undefined;
          return storedBlob(reference, this.readChunk, row.data ?? undefined);
        }),
      answer: async (operation, key, format) =>
        this.statement(() => {
          const row = vouched(statements.answer.get(operation, key, format)!);
          return row.fragment === null ? undefined : storedAnswer({ ...row, fragment: row.fragment });
        }),
    };
  }

  private readonly source: RecordSource = {
    knownVersion: () => this.knownVersion(),
    consistent: (read) =>
      vouchedRead(
        () => this.contentVersion(),
        (versions) => read(this.snapshotFor(versions)),
      ),
  };

  async read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    return this.cache.read(read);
  }

  async knownVersion(): Promise<number> {
    return this.watch.current().version;
  }

  async knownTokensVersion(): Promise<number> {
    return this.watch.current().tokens;
  }

  peekVersion(): number | undefined {
    return this.watch.peek()?.version;
  }

  peekTokensVersion(): number | undefined {
    return this.watch.peek()?.tokens;
  }

  async contentVersion(): Promise<number> {
    return this.statement(() => Number(this.statements.version.get()!.value));
  }

  async answerPage(format: string, after: AnswerKey | undefined, limit: number): Promise<AnswerPage> {
    const rows = this.statement(() =>
      this.statements.answerPage.all(format, after?.operation ?? '', after?.key ?? '', limit),
    );
    return answerPage(rows);
  }

  async answerChanges(since: VersionMark | undefined): Promise<ChangesSince> {
    // One turn's statements share its read transaction (read-batch.ts): one state of the store.
    return this.statement(() => {
      const version = Number(this.statements.version.get()!.value);
      return changesSince(version, since, this.statements.changes.all(since?.version ?? version));
    });
  }

  async binaryInUse(sha256: string): Promise<boolean> {
    return this.statement(() => this.statements.binaryInUse.get(sha256) !== undefined);
  }

  async largeBinaries(minBytes: number): Promise<BinarySource[]> {
    return this.statement(() =>
      this.statements.large.all(minBytes).flatMap((row) => this.toRecord(row).blob?.source ?? []),
    );
  }

  async migrate(): Promise<number[]> {
    this.reads.end();
    const applied = [...this.appliedAtOpen, ...unavailableOnIoError(() => migrate(this.db))];
    this.appliedAtOpen = [];
    return applied;
  }

  async health(): Promise<StoreHealth> {
    return unavailableOnIoError(() => {
      const { migrated, schemaVersion, latestSchemaVersion } = schemaStatus(
        MIGRATIONS,
        appliedMigrations(this.db),
      );
      if (!migrated) return { schemaVersion, latestSchemaVersion };
      return {
        schemaVersion,
        latestSchemaVersion,
        contentVersion: Number(this.statements.version.get()!.value),
      };
    });
  }

  /**
   * A connection of its own (the file's lock makes a second import wait for the first),
   * in BEGIN IMMEDIATE: readers on other connections keep the state before it until it commits.
   *
   * The first import into a file `scoop import` just created, while no other connection
   * has it open, runs with a rollback journal instead: the write-ahead log would have every
   * page written twice (into the log, then by the commit's checkpoint into the file), 750 MB
   * each for the realistic mix, while the pages of a new file need no journal at all (a
   * rollback cuts the file back to its size before). It is as atomic: a crash leaves a hot
   * journal that the next opening rolls back. The file is locked for the import's length
   * (a command opening it meanwhile waits, README), and back in WAL mode after.
   */
  async importTransaction<T>(work: (tx: ImportTransaction) => Promise<T>): Promise<T> {
    // Its own transaction (an in-memory store's) or a change of journal mode needs none open.
    this.reads.end();
    const alone = this.firstImportAlone && leaveWal(this.db);
    this.firstImportAlone = false;
    try {
      return await this.importOnOwnConnection(alone, work);
    } finally {
      if (alone) {
        this.reads.end();
        backToWal(this.db);
      }
    }
  }

  private async importOnOwnConnection<T>(
    alone: boolean,
    work: (tx: ImportTransaction) => Promise<T>,
  ): Promise<T> {
    const db = this.file === ':memory:' ? this.db : openConnection(this.file, 10_000, !alone).db;
    if (alone) db.pragma(ROLLBACK_SYNC);
    let flusher: FileFlusher | undefined;
    try {
      db.exec('BEGIN IMMEDIATE');
      if (db !== this.db) flusher = FileFlusher.start(alone ? this.file : `${this.file}-wal`);
      try {
        const result = await work(new SqliteImportTransaction(db));
        db.exec('COMMIT');
        // This process sees its import at once: no read of this turn's batch, begun before
        // the commit, may tell the version watch the version before it (read-batch.ts).
        this.reads.end();
        this.watch.forget();
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      // The connection first: closing any descriptor of the file (the flusher's) drops every
      // POSIX lock this process holds on it (close(2)), the connection's included.
      if (db !== this.db) db.close();
      await flusher?.stop();
    }
  }

  async importRuns(): Promise<ImportRuns> {
    return this.runs.summary();
  }

  async recordRefusedImport(finishedAt: string, detail: string): Promise<void> {
    this.reads.end();
    this.runs.recordRefused(finishedAt, detail);
  }

  async close(): Promise<void> {
    this.reads.end();
    this.db.close();
  }
}
