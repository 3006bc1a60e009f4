/**
 * The embedded store: one SQLite file in WAL mode. Readers run in a read transaction
 * (one snapshot per request); an import writes through its own connection, so readers
 * keep seeing the previous state until it commits.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { TokenInfo } from '../../auth/tokens.ts';
import type { CacheObserver } from '../../cache/observer.ts';
import { openSqliteFile } from '../../support/sqlite-file.ts';
import { encodedChunks } from '../blob-chunks.ts';
import type {
  ContentStore,
  ImportRun,
  ImportRuns,
  ImportTransaction,
  RecordKind,
  Snapshot,
  StoredRecord,
} from '../content-store.ts';
import { type StoreHealth, StoreUnavailableError, schemaVersionOf } from '../content-store.ts';
import { RecordCache, type RecordSource } from '../record-cache.ts';
import { type RecordRow, storedRecord } from '../record-rows.ts';
import { SQLITE_MIGRATIONS } from './migrations.ts';

type Db = Database.Database;

const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;
const MAX_READ_ATTEMPTS = 5;
const KNOWN_VERSION_MS = 20;

const INSERT_RUN =
  'INSERT INTO import_runs (finished_at, outcome, content_version, detail) VALUES (?, ?, ?, ?)';

interface RunRow {
  outcome: string;
  finished_at: string;
  content_version: number | null;
  detail: string | null;
}

function toRun(row: RunRow): ImportRun {
  return {
    outcome: row.outcome === 'refused' ? 'refused' : 'imported',
    finishedAt: row.finished_at,
    contentVersion: row.content_version,
    detail: row.detail,
  };
}

/**
 * SQLite result codes that mean "the database cannot be used right now" rather than a
 * bug: answered as UNAVAILABLE (503) so clients retry, and the next request tries again.
 */
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|NOTADB|CORRUPT|FULL|READONLY)/;

function unavailableOnIoError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.test(code)) {
      throw new StoreUnavailableError(`SQLite store unavailable (${code})`, { cause: error });
    }
    throw error;
  }
}

/** `busyMs`: how long a statement waits for a lock; better-sqlite3 waits synchronously. */
function openConnection(file: string, busyMs = 10_000): { db: Db; applied: number[] } {
  const { db, prepared } = openSqliteFile(file, busyMs, (opened) => {
    // Binaries are chunk rows of 256 KiB: with 64 KiB pages a chunk is 4 page reads, not 64.
    // Takes effect only on a new, empty file (before WAL mode); an existing file keeps its size.
    opened.pragma('page_size = 65536');
    opened.pragma('journal_mode = WAL');
    opened.pragma('synchronous = NORMAL');
    opened.pragma('foreign_keys = ON');
    // The statements of the store need the tables, so a SQLite store is migrated as it opens.
    return migrate(opened);
  });
  return { db, applied: prepared };
}

function pendingMigrations(db: Db): { sql: string; version: number }[] {
  const hasTable = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  const applied = new Set(
    hasTable
      ? (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(
          (r) => r.version,
        )
      : [],
  );
  return SQLITE_MIGRATIONS.map((sql, index) => ({ sql, version: index + 1 })).filter(
    (migration) => !applied.has(migration.version),
  );
}

/**
 * Applies the migrations not yet applied, returning their versions. A file that is up to
 * date is only read (an import may hold the write lock for minutes); otherwise one
 * IMMEDIATE transaction, so processes opening a new file at once take turns, and each sees
 * what the one before it applied.
 */
export function migrate(db: Db): number[] {
  if (pendingMigrations(db).length === 0) return [];
  return db
    .transaction(() => {
      db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
      );
      const now: number[] = [];
      for (const { sql, version } of pendingMigrations(db)) {
        db.exec(sql);
        db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(
          version,
          new Date().toISOString(),
        );
        now.push(version);
      }
      return now;
    })
    .immediate();
}

export class SqliteStore implements ContentStore {
  private readonly db: Db;
  private readonly statements;

  /**
   * `busyTimeoutMs`: how long a statement waits for a lock. A server keeps it short: its
   * readers are not blocked by writers in WAL mode, and a wait would stall every request
   * of the process, so a locked database fails fast (UNAVAILABLE) instead.
   */
  private readonly cache: RecordCache;
  /** What opening the file migrated, reported by the first migrate() call (`scoop migrate`). */
  private appliedAtOpen: number[];

  constructor(
    private readonly file: string,
    options: { busyTimeoutMs?: number; cacheBytes?: number; cacheObserver?: CacheObserver } = {},
  ) {
    this.cache = new RecordCache(
      this.source,
      options.cacheBytes ?? DEFAULT_CACHE_BYTES,
      options.cacheObserver,
    );
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const opened = openConnection(file, options.busyTimeoutMs ?? 10_000);
    this.db = opened.db;
    this.appliedAtOpen = opened.applied;
    const db = this.db;
    const select = `SELECT r.id, r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id`;
    this.statements = {
      get: db.prepare<[string, string], RecordRow>(`${select} WHERE r.kind = ? AND r.id = ?`),
      all: db.prepare<[string], RecordRow>(`${select} WHERE r.kind = ? ORDER BY CAST(r.id AS INTEGER), r.id`),
      chunk: db.prepare<[number, number], { data: Buffer }>(
        'SELECT data FROM blob_chunks WHERE blob_id = ? AND seq = ?',
      ),
      version: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'content_version'"),
      // Orphaned blobs (no record since the last import) wait for their sweep; they are not in use.
      binaryInUse: db.prepare<[string], { one: number }>(
        'SELECT 1 AS one FROM blobs WHERE sha256 = ? AND orphaned_at IS NULL',
      ),
      versions: db.prepare<[], { key: string; value: string }>(
        "SELECT key, value FROM meta WHERE key IN ('content_version', 'tokens_version')",
      ),
      bumpTokens: db.prepare(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'tokens_version'",
      ),
      addToken: db.prepare('INSERT INTO tokens (hash, label, created_at) VALUES (?, ?, ?)'),
      runCounts: db.prepare<[], { committed: number; refused: number }>(
        "SELECT COALESCE(SUM(outcome = 'imported'), 0) AS committed, COALESCE(SUM(outcome = 'refused'), 0) AS refused FROM import_runs",
      ),
      lastRun: db.prepare<[string], RunRow>(
        'SELECT outcome, finished_at, content_version, detail FROM import_runs WHERE outcome = ? ORDER BY id DESC LIMIT 1',
      ),
      addRun: db.prepare(INSERT_RUN),
      findToken: db.prepare<[Buffer], { hash: Buffer }>(
        'SELECT hash FROM tokens WHERE hash = ? AND revoked_at IS NULL',
      ),
      revokeToken: db.prepare('UPDATE tokens SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL'),
      touchToken: db.prepare('UPDATE tokens SET last_used_at = ? WHERE hash = ?'),
      listTokens: db.prepare<
        [],
        { label: string; created_at: string; last_used_at: string | null; revoked_at: string | null }
      >('SELECT label, created_at, last_used_at, revoked_at FROM tokens ORDER BY created_at, label'),
    };
  }

  private toRecord(row: RecordRow): StoredRecord {
    const onlyChunk = row.chunk_count === 1 ? this.statements.chunk.get(row.blob_id!, 0)!.data : undefined;
    return storedRecord(row, this.readChunk, onlyChunk);
  }

  private readonly readChunk = async (blobId: number, seq: number) => {
    // Let other requests run between chunks of a large binary: better-sqlite3 reads synchronously.
    if (seq > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    return unavailableOnIoError(() => this.statements.chunk.get(blobId, seq)?.data);
  };

  /** One statement at a time; the record cache's version check makes a read consistent. */
  private readonly snapshot: Snapshot = {
    get: async (kind, id) =>
      unavailableOnIoError(() => {
        const row = this.statements.get.get(kind, id);
        return row ? this.toRecord(row) : undefined;
      }),
    getMany: async (kind, ids) =>
      unavailableOnIoError(() => {
        const found = new Map<string, StoredRecord>();
        for (const id of ids) {
          if (found.has(id)) continue;
          const row = this.statements.get.get(kind, id);
          if (row) found.set(id, this.toRecord(row));
        }
        return found;
      }),
    all: async (kind) =>
      unavailableOnIoError(() =>
        this.statements.all.all(kind).map((row) => ({ id: row.id, record: this.toRecord(row) })),
      ),
  };

  /**
   * better-sqlite3 transactions cannot span awaits, so a multi-statement read checks the
   * content version before and after instead: an import bumps it in the same transaction
   * as its data, so an unchanged version means every statement saw the same state.
   */
  private readonly source: RecordSource = {
    knownVersion: () => this.knownVersion(),
    consistent: async (read) => {
      for (let attempt = 0; attempt < MAX_READ_ATTEMPTS; attempt++) {
        const before = await this.contentVersion();
        const result = await read(this.snapshot, before);
        if ((await this.contentVersion()) === before) return result;
      }
      throw new StoreUnavailableError('the content kept changing while it was read');
    },
  };

  async read<T>(read: (snapshot: Snapshot) => Promise<T>): Promise<T> {
    return this.cache.read(read);
  }

  private known = { version: -1, tokens: -1, at: 0 };

  /**
   * The content and token versions, read from the database at most every
   * KNOWN_VERSION_MS: an import or a token change shows up that much later at worst, and a
   * request does no database work on a cache hit.
   */
  private refreshKnown(): void {
    const now = performance.now();
    if (now - this.known.at < KNOWN_VERSION_MS) return;
    const rows = unavailableOnIoError(() => this.statements.versions.all());
    const value = (key: string) => Number(rows.find((row) => row.key === key)?.value ?? 0);
    this.known = { version: value('content_version'), tokens: value('tokens_version'), at: now };
  }

  /** This process sees its own import or token change at once. */
  private forgetKnown(): void {
    this.known = { version: -1, tokens: -1, at: Number.NEGATIVE_INFINITY };
  }

  async knownVersion(): Promise<number> {
    this.refreshKnown();
    return this.known.version;
  }

  async knownTokensVersion(): Promise<number> {
    this.refreshKnown();
    return this.known.tokens;
  }

  /** better-sqlite3 is synchronous: the versions can always be told at once, or not at all (an I/O error). */
  private peekKnown(): { version: number; tokens: number } | undefined {
    try {
      this.refreshKnown();
      return this.known;
    } catch {
      return undefined;
    }
  }

  peekVersion(): number | undefined {
    return this.peekKnown()?.version;
  }

  peekTokensVersion(): number | undefined {
    return this.peekKnown()?.tokens;
  }

  async contentVersion(): Promise<number> {
    return unavailableOnIoError(() => Number(this.statements.version.get()!.value));
  }

  async binaryInUse(sha256: string): Promise<boolean> {
    return unavailableOnIoError(() => this.statements.binaryInUse.get(sha256) !== undefined);
  }

  async migrate(): Promise<number[]> {
    const applied = [...this.appliedAtOpen, ...unavailableOnIoError(() => migrate(this.db))];
    this.appliedAtOpen = [];
    return applied;
  }

  async health(): Promise<StoreHealth> {
    return unavailableOnIoError(() => {
      const rows = this.db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all();
      const schemaVersion = schemaVersionOf(rows.map((r) => r.version));
      const latestSchemaVersion = SQLITE_MIGRATIONS.length;
      if (schemaVersion < latestSchemaVersion) return { schemaVersion, latestSchemaVersion };
      return {
        schemaVersion,
        latestSchemaVersion,
        contentVersion: Number(this.statements.version.get()!.value),
      };
    });
  }

  async importTransaction<T>(work: (tx: ImportTransaction) => Promise<T>): Promise<T> {
    const db = this.file === ':memory:' ? this.db : openConnection(this.file).db;
    try {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = await work(new SqliteImportTransaction(db));
        db.exec('COMMIT');
        this.forgetKnown();
        return result;
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    } finally {
      if (db !== this.db) db.close();
    }
  }

  async importRuns(): Promise<ImportRuns> {
    return unavailableOnIoError(() => {
      const counts = this.statements.runCounts.get()!;
      const last = this.statements.lastRun.get('imported');
      const lastRefused = this.statements.lastRun.get('refused');
      return {
        committed: counts.committed,
        refused: counts.refused,
        last: last ? toRun(last) : undefined,
        lastRefused: lastRefused ? toRun(lastRefused) : undefined,
      };
    });
  }

  async recordRefusedImport(finishedAt: string, detail: string): Promise<void> {
    unavailableOnIoError(() => this.statements.addRun.run(finishedAt, 'refused', null, detail));
  }

  /** Runs a token change and bumps the token version in one transaction. */
  private changeTokens<T>(change: () => T): T {
    const result = this.db.transaction(() => {
      const done = change();
      this.statements.bumpTokens.run();
      return done;
    })();
    this.forgetKnown();
    return result;
  }

  async addToken(hash: Buffer, label: string, createdAt: string): Promise<void> {
    this.changeTokens(() => this.statements.addToken.run(hash, label, createdAt));
  }

  async findActiveToken(hash: Buffer): Promise<Buffer | undefined> {
    return this.statements.findToken.get(hash)?.hash;
  }

  async revokeToken(hash: Buffer, revokedAt: string): Promise<boolean> {
    return this.changeTokens(() => this.statements.revokeToken.run(revokedAt, hash).changes > 0);
  }

  async touchToken(hash: Buffer, usedAt: string): Promise<void> {
    this.statements.touchToken.run(usedAt, hash);
  }

  async listTokens(): Promise<TokenInfo[]> {
    return this.statements.listTokens.all().map((r) => ({
      label: r.label,
      createdAt: r.created_at,
      lastUsedAt: r.last_used_at,
      revokedAt: r.revoked_at,
    }));
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

class SqliteImportTransaction implements ImportTransaction {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      get: db.prepare<[string, string], { doc: string; blob_id: number | null }>(
        'SELECT doc, blob_id FROM records WHERE kind = ? AND id = ?',
      ),
      ids: db.prepare<[string], { id: string }>('SELECT id FROM records WHERE kind = ? ORDER BY id'),
      docs: db.prepare<[string], { id: string; doc: string }>(
        'SELECT id, doc FROM records WHERE kind = ? ORDER BY id',
      ),
      put: db.prepare(
        'INSERT INTO records (kind, id, doc, blob_id) VALUES (?, ?, ?, ?) ON CONFLICT (kind, id) DO UPDATE SET doc = excluded.doc, blob_id = excluded.blob_id',
      ),
      delete: db.prepare('DELETE FROM records WHERE kind = ? AND id = ?'),
      findBlob: db.prepare<[string], { blob_id: number }>('SELECT blob_id FROM blobs WHERE sha256 = ?'),
      addBlob: db.prepare(
        "INSERT INTO blobs (sha256, size, chunk_count, encoding) VALUES (?, ?, 0, 'base64')",
      ),
      addChunk: db.prepare('INSERT INTO blob_chunks (blob_id, seq, data) VALUES (?, ?, ?)'),
      setChunkCount: db.prepare('UPDATE blobs SET chunk_count = ? WHERE blob_id = ?'),
      adopt: db.prepare(
        'UPDATE blobs SET orphaned_at = NULL WHERE orphaned_at IS NOT NULL AND blob_id IN (SELECT blob_id FROM records WHERE blob_id IS NOT NULL)',
      ),
      orphan: db.prepare(
        'UPDATE blobs SET orphaned_at = ? WHERE orphaned_at IS NULL AND blob_id NOT IN (SELECT blob_id FROM records WHERE blob_id IS NOT NULL)',
      ),
      sweep: db.prepare('DELETE FROM blobs WHERE orphaned_at IS NOT NULL AND orphaned_at < ?'),
      addRun: db.prepare(INSERT_RUN),
      bump: db.prepare<[], { value: string }>(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'content_version' RETURNING value",
      ),
    };
  }

  async get(kind: RecordKind, id: string) {
    const row = this.s.get.get(kind, id);
    return row ? { doc: row.doc, blobId: row.blob_id } : undefined;
  }

  async ids(kind: RecordKind): Promise<string[]> {
    return this.s.ids.all(kind).map((r) => r.id);
  }

  async docs(kind: RecordKind) {
    return this.s.docs.all(kind);
  }

  async put(kind: RecordKind, id: string, doc: string, blobId: number | null): Promise<void> {
    this.s.put.run(kind, id, doc, blobId);
  }

  async delete(kind: RecordKind, id: string): Promise<void> {
    this.s.delete.run(kind, id);
  }

  async findBlob(sha256: string): Promise<number | undefined> {
    return this.s.findBlob.get(sha256)?.blob_id;
  }

  async addBlob(sha256: string, size: number, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const blobId = Number(this.s.addBlob.run(sha256, size).lastInsertRowid);
    let seq = 0;
    for await (const chunk of encodedChunks(chunks)) this.s.addChunk.run(blobId, seq++, chunk);
    this.s.setChunkCount.run(seq, blobId);
    return blobId;
  }

  async collectBlobs(now: number, deleteBefore: number): Promise<number> {
    this.s.adopt.run();
    this.s.orphan.run(now);
    return this.s.sweep.run(deleteBefore).changes;
  }

  async recordImportRun(run: ImportRun): Promise<void> {
    this.s.addRun.run(run.finishedAt, run.outcome, run.contentVersion, run.detail);
  }

  async bumpContentVersion(): Promise<number> {
    return Number(this.s.bump.get()!.value);
  }
}
