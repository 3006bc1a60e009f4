/**
 * The import primitives (content-store.ts ImportTransaction) on one PostgreSQL
 * connection inside one transaction, which postgres-store.ts opens, locks and commits.
 */
import type pg from 'pg';
import { encodedChunks } from '../blob-chunks.ts';
import type { ImportRun, ImportTransaction, PreparedAnswer, RecordKind } from '../content-store.ts';
import { blobReference, type RecordRow } from '../record-rows.ts';
import { RECORD_RUN } from './import-runs.ts';

/** Byte order, as SQLite compares text: the same order whatever the database's collation. */
const BY_ID = 'ORDER BY id COLLATE "C"';

export class PostgresImportTransaction implements ImportTransaction {
  /** The content version this import committed, once bumped. */
  bumpedTo: number | undefined;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly channel: string,
  ) {}

  private async rows<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return (await this.client.query<R>(text, values)).rows;
  }

  async get(kind: RecordKind, id: string) {
    const [row] = await this.rows<Omit<RecordRow, 'id'>>(
      'SELECT r.doc, r.blob_id, b.size, b.chunk_count, b.sha256, b.encoding FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id WHERE r.kind = $1 AND r.id = $2',
      [kind, id],
    );
    return row ? { doc: row.doc, blobId: row.blob_id, blob: blobReference(row) } : undefined;
  }

  async ids(kind: RecordKind): Promise<string[]> {
    const rows = await this.rows<{ id: string }>(`SELECT id FROM records WHERE kind = $1 ${BY_ID}`, [kind]);
    return rows.map((r) => r.id);
  }

  async docs(kind: RecordKind) {
    return this.rows<{ id: string; doc: string }>(`SELECT id, doc FROM records WHERE kind = $1 ${BY_ID}`, [
      kind,
    ]);
  }

  async put(kind: RecordKind, id: string, doc: string, blobId: number | null): Promise<void> {
    await this.client.query(
      'INSERT INTO records (kind, id, doc, blob_id) VALUES ($1, $2, $3, $4) ON CONFLICT (kind, id) DO UPDATE SET doc = excluded.doc, blob_id = excluded.blob_id',
      [kind, id, doc, blobId],
    );
  }

  async delete(kind: RecordKind, id: string): Promise<void> {
    await this.client.query('DELETE FROM records WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async findBlob(sha256: string): Promise<number | undefined> {
    const [row] = await this.rows<{ blob_id: number }>('SELECT blob_id FROM blobs WHERE sha256 = $1', [
      sha256,
    ]);
    return row?.blob_id;
  }

  /** One INSERT per chunk (192 KiB of the file, stored base64-encoded) as the file is read: never more than a chunk in memory. */
  async addBlob(sha256: string, size: number, chunks: AsyncIterable<Uint8Array>): Promise<number> {
    const [blob] = await this.rows<{ blob_id: number }>(
      "INSERT INTO blobs (sha256, size, chunk_count, encoding) VALUES ($1, $2, 0, 'base64') RETURNING blob_id",
      [sha256, size],
    );
    const blobId = blob!.blob_id;
    let seq = 0;
    for await (const chunk of encodedChunks(chunks)) {
      // Named: parsed once per connection. A Buffer goes over the wire as binary, not hex text.
      await this.client.query({
        name: 'scoop_add_chunk',
        text: 'INSERT INTO blob_chunks (blob_id, seq, data) VALUES ($1, $2, $3)',
        values: [blobId, seq++, chunk],
      });
    }
    await this.client.query('UPDATE blobs SET chunk_count = $1 WHERE blob_id = $2', [seq, blobId]);
    return blobId;
  }

  async collectBlobs(now: number, deleteBefore: number): Promise<number> {
    const used = 'SELECT blob_id FROM records WHERE blob_id IS NOT NULL';
    await this.client.query(
      `UPDATE blobs SET orphaned_at = NULL WHERE orphaned_at IS NOT NULL AND blob_id IN (${used})`,
    );
    await this.client.query(
      `UPDATE blobs SET orphaned_at = $1 WHERE orphaned_at IS NULL AND blob_id NOT IN (${used})`,
      [now],
    );
    const swept = await this.client.query(
      'DELETE FROM blobs WHERE orphaned_at IS NOT NULL AND orphaned_at < $1',
      [deleteBefore],
    );
    return swept.rowCount ?? 0;
  }

  async recordImportRun(run: ImportRun): Promise<void> {
    await this.client.query(RECORD_RUN, [run.finishedAt, run.outcome, run.contentVersion, run.detail]);
  }

  /** Bumps the version and tells every listener, both taking effect when the import commits. */
  async bumpContentVersion(): Promise<number> {
    const [row] = await this.rows<{ value: string }>(
      "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'content_version' RETURNING value",
      [],
    );
    const version = Number(row!.value);
    await this.client.query('SELECT pg_notify($1, $2)', [this.channel, String(version)]);
    this.bumpedTo = version;
    return version;
  }

  async contentVersion(): Promise<number> {
    const [row] = await this.rows<{ value: string }>(
      "SELECT value FROM meta WHERE key = 'content_version'",
      [],
    );
    return Number(row!.value);
  }

  async answersFormat(): Promise<string> {
    const [row] = await this.rows<{ value: string }>(
      "SELECT value FROM meta WHERE key = 'answers_format'",
      [],
    );
    return row?.value ?? '';
  }

  async clearAnswers(format: string): Promise<void> {
    await this.client.query('DELETE FROM answers');
    await this.client.query("UPDATE meta SET value = $1 WHERE key = 'answers_format'", [format]);
  }

  async putAnswer(operation: string, key: string, format: string, answer: PreparedAnswer): Promise<void> {
    await this.client.query({
      name: 'scoop_put_answer',
      text: 'INSERT INTO answers (operation, key, format, compact, indented, visible_from, visible_until) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (operation, key) DO UPDATE SET format = excluded.format, compact = excluded.compact, indented = excluded.indented, visible_from = excluded.visible_from, visible_until = excluded.visible_until',
      values: [
        operation,
        key,
        format,
        answer.compact,
        answer.indented,
        answer.visibleFrom,
        answer.visibleUntil,
      ],
    });
  }

  async deleteAnswer(operation: string, key: string): Promise<void> {
    await this.client.query('DELETE FROM answers WHERE operation = $1 AND key = $2', [operation, key]);
  }
}
