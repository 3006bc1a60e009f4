/**
 * Binary content (attachment and image bytes). Small values are plain bytes; large
 * ones are a source read in chunks, so a 200 MB attachment is never held whole.
 */

export interface BinarySource {
  readonly size: number;
  /** Identifies the content (e.g. its SHA-256), for ETags without reading it. */
  readonly contentId?: string;
  chunks(): AsyncIterable<Uint8Array>;
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
 * Base64-encodes a chunked source as it streams, carrying the 0–2 bytes that do not
 * fill a 3-byte group over to the next chunk so the output is one unbroken encoding.
 */
export async function* base64Chunks(source: BinarySource): AsyncGenerator<Buffer> {
  let carry: Buffer = Buffer.alloc(0);
  let seen = 0;
  for await (const chunk of source.chunks()) {
    seen += chunk.byteLength;
    // Content-Length was computed from `size`: stop before writing past it, not after.
    if (seen > source.size) throw sizeMismatch(seen, source.size);
    const bytes: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk]) : Buffer.from(chunk);
    const whole = bytes.length - (bytes.length % 3);
    if (whole > 0) yield Buffer.from(bytes.subarray(0, whole).toString('base64'), 'latin1');
    carry = bytes.subarray(whole);
  }
  if (seen !== source.size) throw sizeMismatch(seen, source.size);
  if (carry.length > 0) yield Buffer.from(carry.toString('base64'), 'latin1');
}
