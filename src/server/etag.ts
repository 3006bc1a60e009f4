/** Entity tags for HTTP GET answers, and If-None-Match (RFC 9110 §8.8.3, §13.1.2). */
import { createHash } from 'node:crypto';
import { wholeTextOrigin } from '../xml/binary-text.ts';
import { isKeptBase64 } from '../xml/kept-base64.ts';
import type { BodyPart } from '../xml/writer.ts';

/**
 * The last tag made of an answer around each kept base64 text (xml/kept-base64.ts), with
 * that answer's parts: the text never changes, so an answer whose other parts are the same
 * bytes has the same tag, and the text (most of the answer) is not hashed again.
 */
const around = new WeakMap<Buffer, { readonly parts: readonly BodyPart[]; readonly tag: string }>();

function samePart(a: BodyPart, b: BodyPart): boolean {
  return a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && !isKeptBase64(a) && a.equals(b));
}

/** A strong tag from the bytes of the answer; binaries count by their content id. */
export function entityTag(parts: readonly BodyPart[]): string | undefined {
  const kept = parts.find((part): part is Buffer => Buffer.isBuffer(part) && isKeptBase64(part));
  const known = kept && around.get(kept);
  if (known && known.parts.length === parts.length && known.parts.every((p, i) => samePart(p, parts[i]!)))
    return known.tag;
  const tag = hashOf(parts);
  if (kept && tag) around.set(kept, { parts: [...parts], tag });
  return tag;
}

function hashOf(parts: readonly BodyPart[]): string | undefined {
  const hash = createHash('sha256');
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      const origin = wholeTextOrigin(part);
      if (origin === undefined) hash.update(part);
      else hash.update(binaryMark('binary', origin.contentId, origin.size));
    } else {
      // The same content sent raw and in base64 are different bodies, with different tags.
      const [form, source] = 'base64Of' in part ? ['binary', part.base64Of] : ['bytes', part.bytesOf];
      if (source.contentId === undefined) return undefined;
      hash.update(binaryMark(form, source.contentId, source.size));
    }
  }
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

/** What a binary counts as in a tag: its form, content id and size, never its bytes. */
function binaryMark(form: string, contentId: string, size: number): string {
  return `\u0000${form}:${contentId}:${size}\u0000`;
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current answer. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque);
}
