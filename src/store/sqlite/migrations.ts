/** Versioned schema of the SQLite store; each entry runs once, in order. */
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
];
