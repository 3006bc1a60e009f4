/**
 * Byte ranges of a content answer (RFC 9110 §14): one range of a GET, honoured only while
 * If-Range names the current entity tag (§13.1.5). Several ranges in one request are
 * answered with the whole content (a server may ignore Range, §14.2), which is never
 * worse than a multipart answer for the files a client asks parts of.
 */
import type { BinarySource } from '../xml/binary.ts';
import type { BodyPart } from '../xml/writer.ts';

export type RangeChoice =
  | { readonly kind: 'whole' }
  | { readonly kind: 'part'; readonly start: number; readonly end: number }
  | { readonly kind: 'unsatisfiable' };

const WHOLE: RangeChoice = { kind: 'whole' };
const SPEC = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i;

/** What to send of `size` bytes for a Range header (and If-Range) and the answer's tag. */
export function chooseRange(
  range: string | undefined,
  ifRange: string | undefined,
  etag: string | undefined,
  size: number,
): RangeChoice {
  if (range === undefined) return WHOLE;
  // §13.1.5: If-Range uses the strong comparison; a date or a weak or other tag means the whole.
  if (ifRange !== undefined && (etag === undefined || ifRange.trim() !== etag)) return WHOLE;
  const m = SPEC.exec(range);
  // An unknown unit or a range set with several ranges: ignored, the whole is sent.
  if (!m) return WHOLE;
  const [, first = '', last = ''] = m;
  if (first === '' && last === '') return WHOLE;
  if (first === '') {
    // A suffix range: the last N bytes (§14.1.2); none of an empty file.
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return WHOLE; // invalid: ignored (§14.1.1)
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'part', start, end };
}

/**
 * `length` bytes of a source from `start`: read from there when the source can seek (a
 * stored blob), else the chunks before are read and passed over.
 */
function sliceSource(source: BinarySource, start: number, length: number): BinarySource {
  return {
    size: length,
    async *chunks() {
      const seeking = source.chunksFrom?.(start);
      let at = seeking ? start : 0;
      const end = start + length;
      for await (const chunk of seeking ?? source.chunks()) {
        const from = Math.max(start - at, 0);
        const to = Math.min(end - at, chunk.byteLength);
        at += chunk.byteLength;
        if (to > from) yield chunk.subarray(from, to);
        if (at >= end) return;
      }
    },
  };
}

/** Bytes start..end (inclusive) of a content answer's one part. */
export function partOf(part: BodyPart, start: number, end: number): BodyPart {
  if (Buffer.isBuffer(part)) return part.subarray(start, end + 1);
  if ('bytesOf' in part) return { bytesOf: sliceSource(part.bytesOf, start, end - start + 1) };
  throw new Error('only a binary sent as it is has byte ranges');
}
