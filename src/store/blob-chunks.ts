/**
 * Binaries are stored as rows of chunks, in SQLite and PostgreSQL alike: an import holds
 * one chunk of a file at a time, and a reader streams them back one row at a time.
 *
 * A binary only ever leaves the service base64-encoded, and content only changes on
 * import, so an import stores each chunk's base64 encoding (`encoding = 'base64'`): the
 * file is cut into STORED_INPUT_BYTES pieces, a multiple of 3, so every chunk encodes on
 * its own and the chunks' encodings simply follow each other. Serving a large attachment
 * then copies stored text to the socket, with no encoding per request; the raw bytes (for
 * resizing an image) are decoded chunk by chunk. Blobs stored raw by earlier versions
 * (`encoding = 'raw'`, CHUNK_BYTES a chunk) are read as before and encoded as they stream.
 */
import { decodeBase64, encodeBase64 } from '../xml/base64.ts';
import type { BinarySource } from '../xml/binary.ts';

/** Raw chunk size of blobs stored by earlier versions (encoding 'raw'). */
export const CHUNK_BYTES = 256 * 1024;
/** File bytes per stored chunk: a multiple of 3, encoding to exactly 256 KiB of base64. */
export const STORED_INPUT_BYTES = 192 * 1024;

export type BlobEncoding = 'raw' | 'base64';

/**
 * A file's stream as the stored chunks of a base64 blob: pieces of STORED_INPUT_BYTES, each
 * encoded; `onPiece` sees each piece's bytes before they are encoded (to hash them).
 */
export async function* encodedChunks(
  pieces: AsyncIterable<Uint8Array>,
  onPiece?: (piece: Buffer) => void,
): AsyncGenerator<Buffer> {
  for await (const piece of fixedChunks(pieces, STORED_INPUT_BYTES)) {
    onPiece?.(piece);
    yield encodeBase64(piece);
  }
}

/** Re-cuts a stream of pieces of any size into chunks of exactly `size` bytes (the last shorter). */
export async function* fixedChunks(
  pieces: AsyncIterable<Uint8Array>,
  size = CHUNK_BYTES,
): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of pieces) {
    let rest = Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    while (pendingBytes + rest.length >= size) {
      const take = size - pendingBytes;
      pending.push(rest.subarray(0, take));
      yield Buffer.concat(pending, size);
      rest = rest.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (rest.length > 0) {
      // Copied: the producer may reuse its buffer once we ask for the next piece.
      pending.push(Buffer.from(rest));
      pendingBytes += rest.length;
    }
  }
  // A lone pending piece is a copy of its own already.
  if (pendingBytes > 0) yield pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
}

/**
 * A stored blob read back one chunk row at a time, as the answer goes out: `readChunk`
 * fetches row `seq` (undefined when it is gone), so only one chunk is in memory at once.
 */
export class ChunkedBlobSource implements BinarySource {
  constructor(
    readonly size: number,
    readonly contentId: string,
    private readonly chunkCount: number,
    private readonly encoding: BlobEncoding,
    private readonly readChunk: (seq: number) => Promise<Uint8Array | undefined>,
  ) {}

  private async *stored(from = 0): AsyncGenerator<Uint8Array> {
    for (let seq = from; seq < this.chunkCount; seq++) {
      const data = await this.readChunk(seq);
      if (!data) throw new Error(`blob ${this.contentId} chunk ${seq} is gone`);
      yield data;
    }
  }

  async *chunks(): AsyncGenerator<Uint8Array> {
    if (this.encoding === 'raw') {
      yield* this.stored();
      return;
    }
    for await (const text of this.stored()) yield decodeBase64(text);
  }

  /**
   * The bytes from `offset` on, starting at the chunk that holds it: every chunk but the
   * last holds the same number of bytes (CHUNK_BYTES raw, STORED_INPUT_BYTES encoded), so
   * a byte range of a large file reads only its own chunks.
   */
  async *chunksFrom(offset: number): AsyncGenerator<Uint8Array> {
    const perChunk = this.encoding === 'raw' ? CHUNK_BYTES : STORED_INPUT_BYTES;
    const first = Math.floor(offset / perChunk);
    let skip = offset - first * perChunk;
    for await (const data of this.stored(first)) {
      const bytes = this.encoding === 'raw' ? data : decodeBase64(data);
      yield skip > 0 ? bytes.subarray(skip) : bytes;
      skip = 0;
    }
  }

  /** The stored base64 text, chunk by chunk: what an answer sends, as it is (base64 blobs only). */
  get base64Text(): (() => AsyncIterable<Uint8Array>) | undefined {
    return this.encoding === 'base64' ? () => this.stored() : undefined;
  }
}
