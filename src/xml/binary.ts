/**
 * Binary content (attachment and image bytes). Small values are plain bytes; large
 * ones are a source read in chunks, so a 200 MB attachment is never held whole.
 */
import { ENCODE_PIECE_BYTES } from './base64.ts';

export interface BinarySource {
  readonly size: number;
  /** Identifies the content (e.g. its SHA-256), for ETags without reading it. */
  readonly contentId?: string;
  chunks(): AsyncIterable<Uint8Array>;
  /**
   * The content from byte `offset` on, without reading what comes before it (a byte range
   * of a large file), when the source can seek; otherwise absent.
   */
  readonly chunksFrom?: ((offset: number) => AsyncIterable<Uint8Array>) | undefined;
  /** The content's base64 encoding as stored, in pieces, when the source holds it so. */
  readonly base64Text?: (() => AsyncIterable<Uint8Array>) | undefined;
  /**
   * Markup written in the content's place, as it is, by an answer kept for later that
   * refers to the content instead of holding it (an import's prepared answers).
   */
  readonly placeholder?: string | undefined;
}

export type Binary = Uint8Array | BinarySource;

export function binarySize(value: Binary): number {
  return value instanceof Uint8Array ? value.byteLength : value.size;
}

export function base64Length(byteCount: number): number {
  return Math.ceil(byteCount / 3) * 4;
}

function sizeMismatch(seen: number, size: number): Error {
  return new Error(`binary source yielded ${seen} bytes, expected ${size}`);
}

/**
 * The source's bytes in pieces whose lengths are multiples of 3 (but the last), so each
 * piece encodes to base64 on its own and the encodings simply follow each other. The 0–2
 * bytes that do not fill a 3-byte group are carried over to the next chunk; only those
 * few bytes are ever copied, never a whole chunk.
 */
async function* base64Groups(source: BinarySource): AsyncGenerator<Uint8Array> {
  let carry: Uint8Array = new Uint8Array(0);
  let seen = 0;
  for await (const chunk of source.chunks()) {
    seen += chunk.byteLength;
    // Content-Length was computed from `size`: stop before writing past it, not after.
    if (seen > source.size) throw sizeMismatch(seen, source.size);
    let offset = 0;
    if (carry.byteLength > 0) {
      offset = Math.min(3 - carry.byteLength, chunk.byteLength);
      const joined = new Uint8Array(carry.byteLength + offset);
      joined.set(carry);
      joined.set(chunk.subarray(0, offset), carry.byteLength);
      if (joined.byteLength < 3) {
        carry = joined;
        continue;
      }
      yield joined;
    }
    const whole = offset + Math.floor((chunk.byteLength - offset) / 3) * 3;
    if (whole > offset) yield chunk.subarray(offset, whole);
    // A copy of the 0–2 bytes left (a Buffer's own slice would share the chunk's memory).
    carry = Uint8Array.prototype.slice.call(chunk, whole);
  }
  if (seen !== source.size) throw sizeMismatch(seen, source.size);
  if (carry.byteLength > 0) yield carry;
}

/**
 * The base64 of a chunked source, piece by piece as it streams: the stored text of a
 * source that holds its encoding, else latin1-safe text encoded here (see base64Groups),
 * written to the socket as text with no Buffer in between.
 */
export async function* base64Chunks(source: BinarySource): AsyncGenerator<string | Buffer> {
  if (source.base64Text) {
    yield* storedText(source, source.base64Text());
    return;
  }
  for await (const group of base64Groups(source)) {
    const bytes = bytesOf(group);
    for (let at = 0; at < bytes.length; at += ENCODE_PIECE_BYTES) {
      yield bytes.toString('base64', at, Math.min(at + ENCODE_PIECE_BYTES, bytes.length));
    }
  }
}

/** A Buffer view of the same memory (no copy). */
function bytesOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Stored base64 text, passed on as it is, checked against the length promised by `size`
 * (Content-Length was computed from it): never more, and exactly that much in the end.
 */
async function* storedText(source: BinarySource, text: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const expected = base64Length(source.size);
  let seen = 0;
  for await (const piece of text) {
    seen += piece.byteLength;
    if (seen > expected)
      throw new Error(`stored base64 holds more than the ${expected} characters of ${source.size} bytes`);
    yield bytesOf(piece);
  }
  if (seen !== expected) throw new Error(`stored base64 holds ${seen} characters, expected ${expected}`);
}
