/**
 * A row of `records` joined with its blob, as both stores select it, and the record it
 * stands for. A blob of one chunk comes with its bytes (small binaries are read whole, in
 * the read's snapshot, and cached); a larger one streams chunk by chunk through `readChunk`.
 */
import { decodeBase64 } from '../xml/base64.ts';
import { type BlobEncoding, ChunkedBlobSource } from './blob-chunks.ts';
import type { AnswerPage, BlobReference, StoredAnswer, StoredBlob, StoredRecord } from './content-store.ts';

export interface RecordRow {
  readonly id: string;
  readonly doc: string;
  readonly blob_id: number | null;
  readonly size: number | null;
  readonly chunk_count: number | null;
  readonly sha256: string | null;
  readonly encoding: BlobEncoding | null;
}

/** The reference to a row's blob (what a prepared answer keeps), or undefined when it has none. */
export function blobReference(row: Omit<RecordRow, 'id' | 'doc'>): BlobReference | undefined {
  if (row.blob_id === null) return undefined;
  return {
    id: row.blob_id,
    size: Number(row.size),
    chunkCount: Number(row.chunk_count),
    encoding: row.encoding ?? 'raw',
    sha256: row.sha256!,
  };
}

/**
 * A blob: with its bytes when it is one chunk (`onlyChunk`, read with the row, in the
 * read's snapshot), else streamed chunk by chunk through `readChunk`.
 */
export function storedBlob(
  reference: BlobReference,
  readChunk: (blobId: number, seq: number) => Promise<Uint8Array | undefined>,
  onlyChunk?: Uint8Array,
): StoredBlob {
  const { id, sha256, size, chunkCount, encoding } = reference;
  const source = new ChunkedBlobSource(size, sha256, chunkCount, encoding, (seq) => readChunk(id, seq));
  const blob = { id, sha256, size, source };
  if (!onlyChunk) return blob;
  if (encoding === 'raw') return { ...blob, bytes: onlyChunk };
  // Kept as stored, which is what an answer sends; decoded only where the bytes are needed
  // (resizing), and not kept decoded, so a cached record costs its stored size once.
  const base64 = Buffer.from(onlyChunk.buffer, onlyChunk.byteOffset, onlyChunk.byteLength);
  return {
    ...blob,
    base64,
    get bytes() {
      return decodeBase64(base64);
    },
  };
}

export function storedRecord(
  row: RecordRow,
  readChunk: (blobId: number, seq: number) => Promise<Uint8Array | undefined>,
  onlyChunk?: Uint8Array,
): StoredRecord {
  const reference = blobReference(row);
  if (!reference) return { doc: row.doc };
  return { doc: row.doc, blob: storedBlob(reference, readChunk, onlyChunk) };
}

/** A row of `answers` in one layout, as both stores select it. */
export interface AnswerRow {
  readonly fragment: Buffer;
  readonly visible_from: number | string | null;
  readonly visible_until: number | string | null;
  readonly content_version?: string | number;
}

/**
 * A row of answerPage's statement (both stores name its columns alike): the content version
 * left-joined with the page, so a page past the last answer is one row without an answer.
 */
export interface PagedAnswerRow {
  readonly content_version: string | number;
  readonly operation: string | null;
  readonly key: string | null;
  readonly compact: Buffer | null;
  readonly visible_from: number | string | null;
  readonly visible_until: number | string | null;
}

export function answerPage(rows: readonly PagedAnswerRow[]): AnswerPage {
  return {
    version: Number(rows[0]!.content_version),
    answers: rows.flatMap((row) =>
      row.operation === null || row.key === null || row.compact === null
        ? []
        : [
            {
              operation: row.operation,
              key: row.key,
              compact: row.compact,
              visibleFrom: instant(row.visible_from),
              visibleUntil: instant(row.visible_until),
            },
          ],
    ),
  };
}

const instant = (value: number | string | null) => (value === null ? null : Number(value));

export function storedAnswer(row: AnswerRow | undefined): StoredAnswer | undefined {
  if (!row) return undefined;
  return {
    fragment: row.fragment,
    visibleFrom: instant(row.visible_from),
    visibleUntil: instant(row.visible_until),
    ...(row.content_version === undefined ? {} : { version: Number(row.content_version) }),
  };
}
