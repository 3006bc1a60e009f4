/**
 * A row of `records` joined with its blob, as both stores select it, and the record it
 * stands for. A blob of one chunk comes with its bytes (small binaries are read whole, in
 * the read's snapshot, and cached); a larger one streams chunk by chunk through `readChunk`.
 */
import { type BlobEncoding, ChunkedBlobSource, decodeChunk } from './blob-chunks.ts';
import type { StoredRecord } from './content-store.ts';

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
  return { doc: row.doc, blob: { ...blob, bytes: encoding === 'raw' ? onlyChunk : decodeChunk(onlyChunk) } };
}
