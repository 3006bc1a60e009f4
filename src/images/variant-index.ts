/**
 * The variant cache's index, `index.sqlite` in its folder: each variant's format, size,
 * last use and the content it was made of; which content each image has; and the totals
 * (kept by triggers), so that every process using the folder sees one bound and one
 * eviction order. Opened in WAL mode; every change is a short write transaction.
 */
import type Database from 'better-sqlite3';
import { openSqliteFile } from '../support/sqlite-file.ts';

/** How long a process waits for another's write transaction (each is short) before giving up. */
const BUSY_TIMEOUT_MS = 5_000;
export const INDEX_FILE = 'index.sqlite';

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

export interface Row {
  readonly hash: string;
  readonly format: string;
}

export interface SizedRow extends Row {
  readonly size: number;
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
    oldest: db.prepare<[], SizedRow>('SELECT hash, format, size FROM variants ORDER BY used LIMIT 64'),
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

export type Statements = ReturnType<typeof statements>;

export interface VariantIndex {
  readonly db: Database.Database;
  readonly s: Statements;
}

/** Opens (creating) the index file. Throws what SQLite throws. */
export function openVariantIndex(file: string): VariantIndex {
  const { db } = openSqliteFile(file, BUSY_TIMEOUT_MS, (opened) => {
    opened.pragma('journal_mode = WAL');
    // A cache: losing the last transactions in a power cut only costs resizes.
    opened.pragma('synchronous = NORMAL');
    opened.transaction(() => opened.exec(SCHEMA)).immediate();
  });
  return { db, s: statements(db) };
}

/**
 * The variants, least recently used first. In batches: a row cannot be deleted while a
 * statement iterates the table, and the caller deletes each row it takes before the next
 * batch is read.
 */
export function* byUse(s: Statements): Generator<SizedRow> {
  for (;;) {
    const rows = s.oldest.all();
    if (rows.length === 0) return;
    yield* rows;
  }
}
