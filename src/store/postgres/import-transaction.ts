/**
 * The import primitives (content-store.ts ImportTransaction) on one PostgreSQL
 * connection inside one transaction, which postgres-store.ts opens, locks and commits.
 * Rows go in batches: a statement of many rows (`unnest` or `= ANY` of arrays) instead
 * of a round trip per row. Records, blob chunks and prepared answers go in with COPY
 * (copy-rows.ts), each long value sent as its own buffer.
 */
import type pg from 'pg';
import type { ArtikelReference } from '../../contract/documents.ts';
import { batches as batchesOf } from '../../support/batches.ts';
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
import { copyRows } from './copy-rows.ts';
import { RECORD_RUN } from './import-runs.ts';

/** Byte order, as SQLite compares text: the same order whatever the database's collation. */
const BY_ID = 'ORDER BY id COLLATE "C"';

/** Items per statement (each statement takes them as arrays). */
const BATCH_ROWS = 1000;

/** `items` in batches of at most BATCH_ROWS. */
const batches = <T>(items: readonly T[]) => batchesOf(items, BATCH_ROWS);

const RECORD_COLUMNS = [
  ['kind', 'text'],
  ['id', 'text'],
  ['doc', 'text'],
  ['blob_id', 'int4'],
] as const;

const CHUNK_COLUMNS = [
  ['blob_id', 'int4'],
  ['seq', 'int4'],
  ['data', 'bytea'],
] as const;

const NO_BYTES = Buffer.alloc(0);

const ANSWER_COLUMNS = [
  ['operation', 'text'],
  ['key', 'text'],
  ['format', 'text'],
  ['compact', 'bytea'],
  // Empty: an older build still reads the column (a rolling deploy), never a row of this format.
  ['indented', 'bytea'],
  ['visible_from', 'int8'],
  ['visible_until', 'int8'],
  ['blob_ids', 'int4[]'],
] as const;

const ROW =
  'SELECT r.id, r.doc, r.blob_id, b.size FROM records r LEFT JOIN blobs b ON b.blob_id = r.blob_id WHERE r.kind = $1';

interface Row {
  id: string;
  doc: string;
  blob_id: number | null;
  size: number | null;
}

export class PostgresImportTransaction implements ImportTransaction {
  /** The content version this import committed, once bumped. */
  bumpedTo: number | undefined;

  constructor(
    private readonly client: pg.ClientBase,
    private readonly channel: string,
  ) {}

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    return (await this.client.query<R>(text, values)).rows;
  }

  async rows(kind: RecordKind, ids?: readonly string[]): Promise<Map<string, StoredRow>> {
    const found = new Map<string, StoredRow>();
    const read = async (text: string, params: unknown[]) => {
      for (const row of await this.query<Row>(text, params))
        found.set(row.id, { doc: row.doc, blobId: row.blob_id, size: row.size });
    };
    if (ids === undefined) await read(ROW, [kind]);
    else for (const some of batches(ids)) await read(`${ROW} AND r.id = ANY($2)`, [kind, some]);
    return found;
  }

  async ids(kind: RecordKind): Promise<string[]> {
    const rows = await this.query<{ id: string }>(`SELECT id FROM records WHERE kind = $1 ${BY_ID}`, [kind]);
    return rows.map((r) => r.id);
  }

  /**
   * `doc` is text, parsed here for each article (about as long as node's reading and parsing
   * them all was, without the memory); scoop's documents carry no U+0000, which jsonb refuses
   * (bundle/validate.ts checkString).
   */
  async referencing(
    kind: 'artikel',
    field: ArtikelReference['field'],
    ids: readonly string[],
  ): Promise<string[]> {
    const rows = await this.query<{ id: string }>(
      `SELECT id FROM (SELECT id, doc::jsonb -> $2 AS refs FROM records WHERE kind = $1) r
        WHERE jsonb_typeof(r.refs) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.refs) e WHERE e = ANY($3::text[]))
        ORDER BY id`,
      [kind, field, ids],
    );
    return rows.map((r) => r.id);
  }

  /** A record stored before is deleted first (COPY cannot upsert), as SQLite's import does. */
  async putRecords(kind: RecordKind, rows: readonly RecordRow[]): Promise<void> {
    await this.deleteRecords(
      kind,
      rows.filter((r) => r.replaces).map((r) => r.id),
    );
    if (rows.length === 0) return;
    await copyRows(
      this.client,
      'records',
      RECORD_COLUMNS,
      rows.map((r) => [kind, r.id, r.doc, r.blobId]),
    );
  }

  async deleteRecords(kind: RecordKind, ids: readonly string[]): Promise<void> {
    for (const some of batches(ids))
      await this.client.query('DELETE FROM records WHERE kind = $1 AND id = ANY($2)', [kind, some]);
  }

  async findBlobs(sha256s: readonly string[]): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    for (const some of batches(sha256s)) {
      const rows = await this.query<{ sha256: string; blob_id: number }>(
        'SELECT sha256, blob_id FROM blobs WHERE sha256 = ANY($1)',
        [some],
      );
      for (const row of rows) found.set(row.sha256, row.blob_id);
    }
    return found;
  }

  /** Its chunks copied in as the file is read: never more than a chunk or two in memory. */
  async addBlob(sha256: string, size: number, chunks: AsyncIterable<Buffer>): Promise<number> {
    const [blob] = await this.query<{ blob_id: number }>(
      "INSERT INTO blobs (sha256, size, chunk_count, encoding) VALUES ($1, $2, 0, 'base64') RETURNING blob_id",
      [sha256, size],
    );
    const blobId = blob!.blob_id;
    let seq = 0;
    await copyRows(
      this.client,
      'blob_chunks',
      CHUNK_COLUMNS,
      (async function* () {
        for await (const chunk of chunks) yield [blobId, seq++, chunk];
      })(),
    );
    await this.client.query('UPDATE blobs SET chunk_count = $1 WHERE blob_id = $2', [seq, blobId]);
    return blobId;
  }

  /** The blobs' SHA-256s are distinct (the import stores each content once). */
  async addBlobs(blobs: readonly EncodedBlob[]): Promise<number[]> {
    if (blobs.length === 0) return [];
    const ids = new Map<string, number>();
    for (const some of batches(blobs)) {
      const rows = await this.query<{ sha256: string; blob_id: number }>(
        "INSERT INTO blobs (sha256, size, chunk_count, encoding) SELECT sha256, size, chunk_count, 'base64' FROM unnest($1::text[], $2::bigint[], $3::integer[]) AS b (sha256, size, chunk_count) RETURNING sha256, blob_id",
        [some.map((b) => b.sha256), some.map((b) => b.size), some.map((b) => b.chunks.length)],
      );
      for (const row of rows) ids.set(row.sha256, row.blob_id);
    }
    await copyRows(
      this.client,
      'blob_chunks',
      CHUNK_COLUMNS,
      blobs.flatMap((b) => b.chunks.map((data, seq) => [ids.get(b.sha256)!, seq, data])),
    );
    return blobs.map((b) => ids.get(b.sha256)!);
  }

  async collectBlobs(now: number, deleteBefore: number): Promise<number[]> {
    const used = 'SELECT blob_id FROM records WHERE blob_id IS NOT NULL';
    await this.client.query(
      `UPDATE blobs SET orphaned_at = NULL WHERE orphaned_at IS NOT NULL AND blob_id IN (${used})`,
    );
    await this.client.query(
      `UPDATE blobs SET orphaned_at = $1 WHERE orphaned_at IS NULL AND blob_id NOT IN (${used})`,
      [now],
    );
    const swept = await this.client.query<{ blob_id: number }>(
      'DELETE FROM blobs WHERE orphaned_at IS NOT NULL AND orphaned_at < $1 RETURNING blob_id',
      [deleteBefore],
    );
    return swept.rows.map((row) => row.blob_id);
  }

  async recordChanges(version: number, changes: AnswerChanges | undefined): Promise<void> {
    const row = changeRow(version, changes);
    await this.client.query('DELETE FROM content_changes WHERE version <= $1', [version - KEPT_VERSIONS]);
    await this.client.query('INSERT INTO content_changes (version, token, changes) VALUES ($1, $2, $3)', [
      row.version,
      row.token,
      row.changes,
    ]);
  }

  async recordImportRun(run: ImportRun): Promise<void> {
    await this.client.query(RECORD_RUN, [run.finishedAt, run.outcome, run.contentVersion, run.detail]);
  }

  /** Bumps the version and tells every listener, both taking effect when the import commits. */
  async bumpContentVersion(): Promise<number> {
    const [row] = await this.query<{ value: string }>(
      "UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'content_version' RETURNING value",
      [],
    );
    const version = Number(row!.value);
    await this.client.query('SELECT pg_notify($1, $2)', [this.channel, String(version)]);
    this.bumpedTo = version;
    return version;
  }

  async contentVersion(): Promise<number> {
    const [row] = await this.query<{ value: string }>(
      "SELECT value FROM meta WHERE key = 'content_version'",
      [],
    );
    return Number(row!.value);
  }

  async answersFormat(): Promise<string> {
    const [row] = await this.query<{ value: string }>(
      "SELECT value FROM meta WHERE key = 'answers_format'",
      [],
    );
    return row?.value ?? '';
  }

  async clearAnswers(format: string): Promise<void> {
    await this.client.query('DELETE FROM answers');
    await this.client.query("UPDATE meta SET value = $1 WHERE key = 'answers_format'", [format]);
  }

  /**
   * The (operation, key) pairs are distinct. An answer stored before is deleted, then each
   * is copied in: the same as an upsert inside the transaction, and COPY cannot upsert.
   */
  async putAnswers(format: string, answers: readonly PreparedAnswerRow[]): Promise<void> {
    if (answers.length === 0) return;
    for (const some of batches(answers)) {
      await this.client.query(
        'DELETE FROM answers a USING unnest($1::text[], $2::text[]) AS d (operation, key) WHERE a.operation = d.operation AND a.key = d.key',
        [some.map((a) => a.operation), some.map((a) => a.key)],
      );
    }
    await copyRows(
      this.client,
      'answers',
      ANSWER_COLUMNS,
      answers.map(({ operation, key, answer }) => [
        operation,
        key,
        format,
        answer.compact,
        NO_BYTES,
        answer.visibleFrom,
        answer.visibleUntil,
        answer.blobIds,
      ]),
    );
  }

  async deleteAnswers(operation: string, keys: readonly string[]): Promise<void> {
    for (const some of batches(keys))
      await this.client.query('DELETE FROM answers WHERE operation = $1 AND key = ANY($2)', [
        operation,
        some,
      ]);
  }
}
