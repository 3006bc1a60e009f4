/**
 * Bytes answered again and again (a variant the image cache holds in memory), with their
 * base64 made once: the writer sends the kept text instead of encoding it for every
 * answer, and server/etag.ts remembers the tag of an answer around it. The bytes must not
 * change once their text is kept.
 */
import { encodeBase64 } from './base64.ts';

const texts = new WeakMap<Uint8Array, Buffer>();
const kept = new WeakSet<Buffer>();

/** The base64 of `bytes`, made on the first call and kept for as long as the bytes live. */
export function keepBase64(bytes: Uint8Array): Buffer {
  let text = texts.get(bytes);
  if (text === undefined) {
    text = encodeBase64(bytes);
    texts.set(bytes, text);
    kept.add(text);
  }
  return text;
}

/** The kept base64 of `bytes`, if `keepBase64` made it. */
export function keptBase64(bytes: Uint8Array): Buffer | undefined {
  return texts.get(bytes);
}

/** Whether `part` is kept base64 text, which never changes. */
export function isKeptBase64(part: Buffer): boolean {
  return kept.has(part);
}
