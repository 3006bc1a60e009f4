/**
 * A row of `records` joined with its blob, as both stores select it, and the record it
 * stands for. A blob of one chunk comes with its bytes (small binaries are read whole, in
 * the read's snapshot, and cached); a larger one streams chunk by chunk through `readChunk`.
 */
import { type BlobEncoding, ChunkedBlobSource, decodeChunk } from './blob-chunks.ts';
import type { StoredAnswer, StoredRecord } from './content-store.ts';

export interface RecordRow {
  readonly id: string;
  readonly doc: string;
  readonly blob_id: number | null;
  readonly size: number | null;
  readonly chunk_count: number | null;
  readonly sha256: string | null;
  readonly encoding: BlobEncoding | null;
}

export function storedRecord(
  row: RecordRow,
  readChunk: (blobId: number, seq: number) => Promise<Uint8Array | undefined>,
  onlyChunk?: Uint8Array,
): StoredRecord {
  if (row.blob_id === null) return { doc: row.doc };
  const blobId = row.blob_id;
  const sha256 = row.sha256!;
  const encoding = row.encoding ?? 'raw';
  const source = new ChunkedBlobSource(row.size!, sha256, row.chunk_count!, encoding, (seq) =>
    readChunk(blobId, seq),
  );
  const blob = { id: blobId, sha256, size: row.size!, source };
  if (!onlyChunk) return { doc: row.doc, blob };
  if (encoding === 'raw') return { doc: row.doc, blob: { ...blob, bytes: onlyChunk } };
  // Kept as stored, which is what an answer sends; decoded only where the bytes are needed
  // (resizing), and not kept decoded, so a cached record costs its stored size once.
  const base64 = Buffer.from(onlyChunk.buffer, onlyChunk.byteOffset, onlyChunk.byteLength);
  return {
    doc: row.doc,
    blob: {
      ...blob,
      base64,
      get bytes() {
        return decodeChunk(base64);
      },
    },
  };
}

/** A row of `answers` in one layout, as both stores select it. */
export interface AnswerRow {
  readonly fragment: Buffer;
  readonly visible_from: number | string | null;
  readonly visible_until: number | string | null;
}

const instant = (value: number | string | null) => (value === null ? null : Number(value));

export function storedAnswer(row: AnswerRow | undefined): StoredAnswer | undefined {
  if (!row) return undefined;
  return {
    fragment: row.fragment,
    visibleFrom: instant(row.visible_from),
    visibleUntil: instant(row.visible_until),
  };
}
