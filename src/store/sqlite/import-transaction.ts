/**
 * The import primitives (content-store.ts ImportTransaction) on one SQLite connection
 * inside one transaction, which sqlite-store.ts opens (BEGIN IMMEDIATE) and commits.
 *
 * Every write is a single-row statement SQLite can check before it changes anything: an
 * UPSERT or UPDATE of `records`, whose blob_id is a foreign key, may abort halfway, so
 * SQLite keeps a statement journal for it — a copy of each page (64 KiB then) the statement
 * touches, written to a temporary file on every statement. A record is replaced by a
 * DELETE and an INSERT instead (6 GB of such copies in an import of 58,000 records).
 */
import type Database from 'better-sqlite3';
import type { ArtikelReference } from '../../contract/documents.ts';
import { type AnswerChanges, changeRow, KEPT_VERSIONS } from '../answer-changes.ts';
import type {
  EncodedBlob,
  ImportRun,
  ImportTransaction,
  PreparedAnswerRow,
  RecordKind,
  RecordRow,
  StoredRow,
} from '../content-store.ts';
import { RECORD_RUN } from './import-runs.ts';

interface Row {
  id: string;
  doc: string;
  blob_id: number | null;
  size: number | null;
}

const ROW = 'SELECT r.id, r.doc, r.blob_id, b.size FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id';

function stored(row: Row): StoredRow {
  return { doc: row.doc, blobId: row.blob_id, size: row.size };
}

export class SqliteImportTransaction implements ImportTransaction {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      row: db.prepare<[string, string], Row>(`${ROW} WHERE r.kind = ? AND r.id = ?`),
      rows: db.prepare<[string], Row>(`${ROW} WHERE r.kind = ?`),
      ids: db.prepare<[string], { id: string }>('SELECT id FROM records WHERE kind = ? ORDER BY id'),
      referencing: db.prepare<[string, string, string], { id: string }>(
        "SELECT r.id FROM records r WHERE r.kind = ? AND EXISTS (SELECT 1 FROM json_each(r.doc, '$.' || ?) j WHERE CAST(j.value AS TEXT) IN (SELECT value FROM json_each(?))) ORDER BY r.id",
      ),
      insert: db.prepare('INSERT INTO records (kind, id, doc, blob_id) VALUES (?, ?, ?, ?)'),
      delete: db.prepare('DELETE FROM records WHERE kind = ? AND id = ?'),
      findBlob: db.prepare<[string], { blob_id: number }>('SELECT blob_id FROM blobs WHERE sha256 = ?'),
      addBlob: db.prepare(
        "INSERT INTO blobs (sha256, size, chunk_count, encoding) VALUES (?, ?, ?, 'base64')",
      ),
      addChunk: db.prepare('INSERT INTO blob_chunks (blob_id, seq, data) VALUES (?, ?, ?)'),
      setChunkCount: db.prepare('UPDATE blobs SET chunk_count = ? WHERE blob_id = ?'),
      adopt: db.prepare(
        'UPDATE blobs SET orphaned_at = NULL WHERE orphaned_at IS NOT NULL AND blob_id IN (SELECT blob_id FROM records WHERE blob_id IS NOT NULL)',
      ),
      orphan: db.prepare(
        'UPDATE blobs SET orphaned_at = ? WHERE orphaned_at IS NULL AND blob_id NOT IN (SELECT blob_id FROM records WHERE blob_id IS NOT NULL)',
      ),
      sweep: db.prepare<[number], { blob_id: number }>(
        'DELETE FROM blobs WHERE orphaned_at IS NOT NULL AND orphaned_at < ? RETURNING blob_id',
      ),
      addChanges: db.prepare('INSERT INTO content_changes (version, token, changes) VALUES (?, ?, ?)'),
      forgetChanges: db.prepare('DELETE FROM content_changes WHERE version <= ?'),
      addRun: db.prepare(RECORD_RUN),
      bump: db.prepare<[], { value: string }>(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'content_version' RETURNING value",
      ),
      version: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'content_version'"),
      answersFormat: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'answers_format'"),
      setAnswersFormat: db.prepare("UPDATE meta SET value = ? WHERE key = 'answers_format'"),
      clearAnswers: db.prepare('DELETE FROM answers'),
      putAnswer: db.prepare(
        // `indented` is empty: an older build still reads the column (a rolling deploy), never a row of this format.
        "INSERT INTO answers (operation, key, format, compact, indented, visible_from, visible_until) VALUES (?, ?, ?, ?, X'', ?, ?) ON CONFLICT (operation, key) DO UPDATE SET format = excluded.format, compact = excluded.compact, indented = X'', visible_from = excluded.visible_from, visible_until = excluded.visible_until",
      ),
      deleteAnswer: db.prepare('DELETE FROM answers WHERE operation = ? AND key = ?'),
    };
  }

  async rows(kind: RecordKind, ids?: readonly string[]): Promise<Map<string, StoredRow>> {
    const found = new Map<string, StoredRow>();
    if (ids === undefined) {
      for (const row of this.s.rows.iterate(kind)) found.set(row.id, stored(row));
      return found;
    }
    for (const id of ids) {
      const row = this.s.row.get(kind, id);
      if (row) found.set(id, stored(row));
    }
    return found;
  }

  async ids(kind: RecordKind): Promise<string[]> {
    return this.s.ids.all(kind).map((r) => r.id);
  }

  async referencing(
    kind: 'artikel',
    field: ArtikelReference['field'],
    ids: readonly string[],
  ): Promise<string[]> {
    return this.s.referencing.all(kind, field, JSON.stringify(ids)).map((r) => r.id);
  }

  async putRecords(kind: RecordKind, rows: readonly RecordRow[]): Promise<void> {
    for (const { id, doc, blobId, replaces } of rows) {
      // A new record needs no DELETE (a b-tree lookup each: about 1% of a first import).
      if (replaces) this.s.delete.run(kind, id);
      this.s.insert.run(kind, id, doc, blobId);
    }
  }

  async deleteRecords(kind: RecordKind, ids: readonly string[]): Promise<void> {
    for (const id of ids) this.s.delete.run(kind, id);
  }

  async findBlobs(sha256s: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const sha256 of sha256s) {
      const row = this.s.findBlob.get(sha256);
      if (row) found.set(sha256, row.blob_id);
    }
    return found;
  }

  /** One INSERT per chunk as the file is read: never more than a chunk in memory. */
  async addBlob(sha256: string, size: number, chunks: AsyncIterable<Buffer>): Promise<number> {
    const blobId = Number(this.s.addBlob.run(sha256, size, 0).lastInsertRowid);
    let seq = 0;
    for await (const chunk of chunks) this.s.addChunk.run(blobId, seq++, chunk);
    this.s.setChunkCount.run(seq, blobId);
    return blobId;
  }

  async addBlobs(blobs: readonly EncodedBlob[]): Promise<number[]> {
    return blobs.map(({ sha256, size, chunks }) => {
      const blobId = Number(this.s.addBlob.run(sha256, size, chunks.length).lastInsertRowid);
      for (const [seq, chunk] of chunks.entries()) this.s.addChunk.run(blobId, seq, chunk);
      return blobId;
    });
  }

  async collectBlobs(now: number, deleteBefore: number): Promise<number[]> {
    this.s.adopt.run();
    this.s.orphan.run(now);
    return this.s.sweep.all(deleteBefore).map((row) => row.blob_id);
  }

  async recordChanges(version: number, changes: AnswerChanges | undefined): Promise<void> {
    const row = changeRow(version, changes);
    this.s.forgetChanges.run(version - KEPT_VERSIONS);
    this.s.addChanges.run(row.version, row.token, row.changes);
  }

  async recordImportRun(run: ImportRun): Promise<void> {
    this.s.addRun.run(run.finishedAt, run.outcome, run.contentVersion, run.detail);
  }

  async bumpContentVersion(): Promise<number> {
    return Number(this.s.bump.get()!.value);
  }

  async contentVersion(): Promise<number> {
    return Number(this.s.version.get()!.value);
  }

  async answersFormat(): Promise<string> {
    return this.s.answersFormat.get()?.value ?? '';
  }

  async clearAnswers(format: string): Promise<void> {
    this.s.clearAnswers.run();
    this.s.setAnswersFormat.run(format);
  }

  async putAnswers(format: string, answers: readonly PreparedAnswerRow[]): Promise<void> {
    for (const { operation, key, answer } of answers) {
      const { compact, visibleFrom, visibleUntil } = answer;
      this.s.putAnswer.run(operation, key, format, compact, visibleFrom, visibleUntil);
    }
  }

  async deleteAnswers(operation: string, keys: readonly string[]): Promise<void> {
    for (const key of keys) this.s.deleteAnswer.run(operation, key);
  }
}
