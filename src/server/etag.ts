/** Entity tags for HTTP GET answers, and If-None-Match (RFC 9110 §8.8.3, §13.1.2). */
import { createHash } from 'node:crypto';
import type { BodyPart } from '../xml/writer.ts';

/** A strong tag from the bytes of the answer; binaries count by their content id. */
export function entityTag(parts: readonly BodyPart[]): string | undefined {
  const hash = createHash('sha256');
  for (const part of parts) {
    if (Buffer.isBuffer(part)) {
      hash.update(part);
    } else {
      // The same content sent raw and in base64 are different bodies, with different tags.
      const [form, source] = 'base64Of' in part ? ['binary', part.base64Of] : ['bytes', part.bytesOf];
      if (source.contentId === undefined) return undefined;
      hash.update(`\u0000${form}:${source.contentId}:${source.size}\u0000`);
    }
  }
  return `"${hash.digest('base64url').slice(0, 32)}"`;
}

/** RFC 9110 §13.1.2: If-None-Match uses the weak comparison; `*` matches any current answer. */
export function noneMatch(header: string | undefined, tag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === opaque);
}
