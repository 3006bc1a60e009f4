/**
 * Binaries are stored as rows of CHUNK_BYTES each (the last one shorter), in SQLite and
 * PostgreSQL alike: an import holds one chunk of a file at a time, and a reader streams
 * them back one row at a time.
 */
import type { BinarySource } from '../xml/binary.ts';

export const CHUNK_BYTES = 256 * 1024;

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
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
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
    private readonly readChunk: (seq: number) => Promise<Uint8Array | undefined>,
  ) {}

  async *chunks(): AsyncGenerator<Uint8Array> {
    for (let seq = 0; seq < this.chunkCount; seq++) {
      const data = await this.readChunk(seq);
      if (!data) throw new Error(`blob ${this.contentId} chunk ${seq} is gone`);
      yield data;
    }
  }
}
