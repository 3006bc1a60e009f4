/**
 * The import primitives (content-store.ts ImportTransaction) on one SQLite connection
 * inside one transaction, which sqlite-store.ts opens (BEGIN IMMEDIATE) and commits.
 */
import type Database from 'better-sqlite3';
import { encodedChunks } from '../blob-chunks.ts';
import type { ImportRun, ImportTransaction, PreparedAnswer, RecordKind } from '../content-store.ts';
import { blobReference, type RecordRow } from '../record-rows.ts';
import { RECORD_RUN } from './import-runs.ts';

export class SqliteImportTransaction implements ImportTransaction {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      get: db.prepare<[string, string], Omit<RecordRow, 'id'>>(
        'SELECT r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id WHERE r.kind = ? AND r.id = ?',
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
      addRun: db.prepare(RECORD_RUN),
      bump: db.prepare<[], { value: string }>(
        "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'content_version' RETURNING value",
      ),
      version: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'content_version'"),
      answersFormat: db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'answers_format'"),
      setAnswersFormat: db.prepare("UPDATE meta SET value = ? WHERE key = 'answers_format'"),
      clearAnswers: db.prepare('DELETE FROM answers'),
      putAnswer: db.prepare(
        'INSERT INTO answers (operation, key, format, compact, indented, visible_from, visible_until) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (operation, key) DO UPDATE SET format = excluded.format, compact = excluded.compact, indented = excluded.indented, visible_from = excluded.visible_from, visible_until = excluded.visible_until',
      ),
      deleteAnswer: db.prepare('DELETE FROM answers WHERE operation = ? AND key = ?'),
    };
  }

  async get(kind: RecordKind, id: string) {
    const row = this.s.get.get(kind, id);
    return row ? { doc: row.doc, blobId: row.blob_id, blob: blobReference(row) } : undefined;
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

  /** One INSERT per chunk (192 KiB of the file, stored base64-encoded) as the file is read: never more than a chunk in memory. */
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

  async putAnswer(operation: string, key: string, format: string, answer: PreparedAnswer): Promise<void> {
    const { compact, indented, visibleFrom, visibleUntil } = answer;
    this.s.putAnswer.run(operation, key, format, compact, indented, visibleFrom, visibleUntil);
  }

  async deleteAnswer(operation: string, key: string): Promise<void> {
    this.s.deleteAnswer.run(operation, key);
  }
}
