/** Writes body parts to the response with backpressure, base64-encoding binaries as they stream. */
import type { Base64Cache } from '../cache/base64-cache.ts';
import { type BinarySource, base64Chunks } from '../xml/binary.ts';
import { type BodyPart, bodyLength } from '../xml/writer.ts';
import type { ResponseLike } from './exchange.ts';

/**
 * How many bytes may wait in the socket's queue while the next piece is read (and, for a
 * binary stored raw, encoded). Waiting for 'drain' after each piece would leave the socket
 * idle meanwhile; this keeps it busy while holding a bounded amount.
 */
const BYTES_IN_FLIGHT = 1024 * 1024;

function ignore(): void {}

/** Writes pieces with at most BYTES_IN_FLIGHT queued: each write's callback says when its piece left. */
class PieceWriter {
  private pending = 0;
  private wake: (() => void) | undefined;
  private readonly closed = () => this.wake?.();

  constructor(
    private readonly res: ResponseLike,
    private readonly base64Cache: Base64Cache | undefined,
  ) {
    res.on('close', this.closed);
  }

  /** `written` is called once the piece has left (a lent buffer may then be reused). */
  async write(piece: Buffer | string, written?: () => void): Promise<void> {
    const size = piece.length;
    this.pending += size;
    const flushed = () => {
      this.pending -= size;
      written?.();
      this.wake?.();
    };
    if (typeof piece === 'string') this.res.write(piece, 'latin1', flushed);
    else this.res.write(piece, flushed);
    while (this.pending >= BYTES_IN_FLIGHT && !this.res.destroyed) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  async writeBinary(source: BinarySource): Promise<void> {
    if (this.base64Cache?.applies(source)) {
      for await (const piece of this.base64Cache.text(source)) {
        if (this.res.destroyed) {
          piece.release?.();
          return;
        }
        await this.write(piece.bytes, piece.release);
      }
      return;
    }
    for await (const text of base64Chunks(source)) {
      if (this.res.destroyed) return;
      await this.write(text);
    }
  }

  /** A binary as it is, chunk by chunk; never more than the `size` Content-Length was computed from. */
  async writeBytes(source: BinarySource): Promise<void> {
    let seen = 0;
    for await (const chunk of source.chunks()) {
      seen += chunk.byteLength;
      if (seen > source.size) throw new Error(`binary source yielded more than its ${source.size} bytes`);
      if (this.res.destroyed) return;
      await this.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
  }

  done(): void {
    this.res.off('close', this.closed);
  }
}

/**
 * `sent.bytesOut` is given the body's length as the head is written (for the request log).
 * Large binaries go through `base64Cache` when one is given (cache/base64-cache.ts).
 */
export async function sendParts(
  res: ResponseLike,
  status: number,
  headers: Readonly<Record<string, string>>,
  parts: readonly BodyPart[],
  withBody: boolean,
  sent?: { bytesOut: number },
  base64Cache?: Base64Cache,
): Promise<void> {
  const length = bodyLength(parts);
  if (sent) sent.bytesOut = length;
  res.writeHead(status, { ...headers, 'content-length': String(length) });
  if (!withBody) {
    res.end();
    return;
  }
  if (parts.length === 1 && Buffer.isBuffer(parts[0])) {
    res.end(parts[0]);
    return;
  }
  if (length <= BYTES_IN_FLIGHT && allBuffers(parts)) {
    // All at hand and within the bound: nothing to wait for between pieces, so they are
    // written in this turn (one writev once node uncorks) without a promise or callback each.
    for (const part of parts) res.write(part, ignore);
    res.end();
    return;
  }
  const writer = new PieceWriter(res, base64Cache);
  try {
    for (const part of parts) {
      if (res.destroyed) return;
      if (Buffer.isBuffer(part)) await writer.write(part);
      else if ('base64Of' in part) await writer.writeBinary(part.base64Of);
      else await writer.writeBytes(part.bytesOf);
    }
  } finally {
    writer.done();
  }
  res.end();
}

/** Whether every part is a buffer at hand (no binary to stream). */
export function allBuffers(parts: readonly BodyPart[]): parts is readonly Buffer[] {
  for (const part of parts) if (!Buffer.isBuffer(part)) return false;
  return true;
}

/** The whole body as one buffer (binaries base64-encoded), for answers small enough to keep. */
export async function materialize(parts: readonly BodyPart[]): Promise<Buffer> {
  if (parts.length === 1 && Buffer.isBuffer(parts[0])) return parts[0];
  const out: Buffer[] = [];
  for (const part of parts) {
    if (Buffer.isBuffer(part)) out.push(part);
    else if ('base64Of' in part)
      for await (const text of base64Chunks(part.base64Of))
        out.push(typeof text === 'string' ? Buffer.from(text, 'latin1') : text);
    else for await (const chunk of part.bytesOf.chunks()) out.push(Buffer.from(chunk));
  }
  return Buffer.concat(out);
}
