/**
 * Base64 between buffers, a piece at a time. Node converts through a JS string, and V8
 * makes a string of more than 128 KiB in its large-object space: measured on this machine
 * (node 20), encoding 99,000 bytes at once took 1,050 µs, in 48 KiB pieces 24 µs; decoding
 * 256 KiB of text 1,930 µs against 44 µs (docs/performance.md, "The eighth round"). Every
 * piece's string stays far below that size.
 */

/**
 * Input bytes per piece: a multiple of 3 (so the pieces' encodings join), 64 KiB of text:
 * small enough for V8's young generation and for a heap (not mmap) copy when written, so
 * streaming (binary.ts base64Chunks) reuses memory instead of faulting in fresh pages.
 */
export const ENCODE_PIECE_BYTES = 48 * 1024;
/** Text per piece when decoding: a multiple of 4 (whole groups), 48 KiB of bytes. */
const DECODE_PIECE_CHARS = 64 * 1024;
const PAD = 0x3d; // '='

/** The base64 text of `bytes` (RFC 4648 §4, padded), as latin1 bytes. */
export function encodeBase64(bytes: Uint8Array): Buffer {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.length <= ENCODE_PIECE_BYTES) return Buffer.from(view.toString('base64'), 'latin1');
  const text = Buffer.allocUnsafe(Math.ceil(view.length / 3) * 4);
  let written = 0;
  for (let at = 0; at < view.length; at += ENCODE_PIECE_BYTES) {
    const piece = view.toString('base64', at, Math.min(at + ENCODE_PIECE_BYTES, view.length));
    written += text.write(piece, written, 'latin1');
  }
  return text;
}

/**
 * The bytes of a base64 text as `encodeBase64` makes it: padded, without whitespace (the
 * stored chunks of a blob). Anything else is decoded as leniently as Buffer.from(…, 'base64').
 */
export function decodeBase64(text: Uint8Array): Buffer {
  const view = Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  if (view.length <= DECODE_PIECE_CHARS || view.length % 4 !== 0)
    return Buffer.from(view.toString('latin1'), 'base64');
  const padding = (view[view.length - 1] === PAD ? 1 : 0) + (view[view.length - 2] === PAD ? 1 : 0);
  const bytes = Buffer.allocUnsafe((view.length / 4) * 3 - padding);
  let written = 0;
  for (let at = 0; at < view.length; at += DECODE_PIECE_CHARS) {
    const piece = view.toString('latin1', at, Math.min(at + DECODE_PIECE_CHARS, view.length));
    written += bytes.write(piece, written, 'base64');
  }
  // Padding or whitespace inside (no text of ours) decodes to fewer bytes, and a piece may
  // have ended inside a group: decoded again at once, as Buffer.from does.
  return written === bytes.length ? bytes : Buffer.from(view.toString('latin1'), 'base64');
}
