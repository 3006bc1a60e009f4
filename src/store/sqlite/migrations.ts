/**
 * Versioned schema of the SQLite store and how a file is brought up to it; the order,
 * the record and the schema version are migration-runner.ts's rules.
 */
import type Database from 'better-sqlite3';
import { appliedAt, numbered, pendingMigrations } from '../migration-runner.ts';

export const SQLITE_MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('content_version', '0');
  CREATE TABLE blobs (
    blob_id INTEGER PRIMARY KEY,
    sha256 TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    orphaned_at INTEGER
  );
  CREATE TABLE blob_chunks (
    blob_id INTEGER NOT NULL REFERENCES blobs (blob_id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (blob_id, seq)
  );
  CREATE TABLE records (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    doc TEXT NOT NULL,
    blob_id INTEGER REFERENCES blobs (blob_id),
    PRIMARY KEY (kind, id)
  ) WITHOUT ROWID;
  CREATE INDEX records_blob ON records (blob_id) WHERE blob_id IS NOT NULL;
  CREATE TABLE tokens (
    hash BLOB PRIMARY KEY,
    label TEXT NOT NULL,
    created_at TEXT NOT NULL,
    last_used_at TEXT,
    revoked_at TEXT
  ) WITHOUT ROWID;
  `,
  `
  CREATE TABLE import_runs (
    id INTEGER PRIMARY KEY,
    finished_at TEXT NOT NULL,
    outcome TEXT NOT NULL,
    content_version INTEGER,
    detail TEXT
  );
  `,
  `
  INSERT INTO meta (key, value) VALUES ('tokens_version', '0');
  `,
  `
  ALTER TABLE blobs ADD COLUMN encoding TEXT NOT NULL DEFAULT 'raw';
  `,
  `
  CREATE TABLE answers (
    operation TEXT NOT NULL,
    key TEXT NOT NULL,
    format TEXT NOT NULL,
    compact BLOB NOT NULL,
    indented BLOB NOT NULL,
    visible_from INTEGER,
    visible_until INTEGER,
    PRIMARY KEY (operation, key)
  );
  INSERT INTO meta (key, value) VALUES ('answers_format', '');
  `,
  // Records in a table of rowids, keyed by a unique index: in a WITHOUT ROWID table a
  // document over about 4 KB (a quarter of a page) spilled into an overflow page of its own,
  // mostly empty, so the table took 186 MB for 82 MB of documents (the realistic mix), and
  // listing a kind's ids read every document's page (docs/performance.md, "The twelfth round").
  `
  CREATE TABLE records_by_rowid (
    kind TEXT NOT NULL,
    id TEXT NOT NULL,
    doc TEXT NOT NULL,
    blob_id INTEGER REFERENCES blobs (blob_id)
  );
  INSERT INTO records_by_rowid (kind, id, doc, blob_id) SELECT kind, id, doc, blob_id FROM records ORDER BY kind, id;
  DROP TABLE records;
  ALTER TABLE records_by_rowid RENAME TO records;
  CREATE UNIQUE INDEX records_key ON records (kind, id);
  CREATE INDEX records_blob ON records (blob_id) WHERE blob_id IS NOT NULL;
  `,
  // What each import changed of the prepared answers (answer-changes.ts).
  `
  CREATE TABLE content_changes (
    version INTEGER PRIMARY KEY,
    token TEXT NOT NULL,
    changes TEXT
  );
  `,
];

export const MIGRATIONS = numbered(SQLITE_MIGRATIONS);

/** The versions recorded as applied; none when the file was never migrated. */
export function appliedMigrations(db: Database.Database): number[] {
  const recorded = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
    .get();
  if (!recorded) return [];
  return db
    .prepare<[], { version: number }>('SELECT version FROM schema_migrations ORDER BY version')
    .all()
    .map((row) => row.version);
}

/**
 * Applies the migrations not yet applied, returning their versions. A file that is up to
 * date is only read (an import may hold the write lock for minutes); otherwise one
 * IMMEDIATE transaction, so processes opening a new file at once take turns, and each sees
 * what the one before it applied.
 */
export function migrate(db: Database.Database): number[] {
  if (pendingMigrations(MIGRATIONS, appliedMigrations(db)).length === 0) return [];
  return db
    .transaction(() => {
      db.exec(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)',
      );
      const record = db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
      const pending = pendingMigrations(MIGRATIONS, appliedMigrations(db));
      for (const { sql, version } of pending) {
        db.exec(sql);
        record.run(version, appliedAt());
      }
      return pending.map((migration) => migration.version);
    })
    .immediate();
}
