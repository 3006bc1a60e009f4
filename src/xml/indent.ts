/**
 * The indented layout of markup from its compact one, as XmlWriter (writer.ts) lays both
 * out: a tag that follows a tag (or starts the markup) begins a line indented two spaces
 * a level; a tag after text (the end of a leaf) does not. That is exact for what the
 * writer makes, where an element holds either text or elements, never both, text never
 * holds `<` (escaped) and a tag never holds `>` (names and `xsi:nil="true"`), so an import
 * stores only the compact layout and the indented one of HTTP GET/POST is made from it
 * when read (prepare/prepared-answer.ts, prepare/pack-filler.ts). A prepared fragment's
 * binary references (`NUL id NUL`, prepare/fragment.ts) are text to it.
 */
const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const NEWLINE = 0x0a;
const SPACE = 0x20;

/** Below this many bytes a run of text is copied byte by byte (a call to copy costs more). */
const COPY_FROM = 32;

/** Where markup is laid out before it is copied into a buffer of its exact length; grows as needed. */
let scratch = Buffer.allocUnsafeSlow(64 * 1024);

function room(used: number, more: number): Buffer {
  if (used + more > scratch.length) {
    const larger = Buffer.allocUnsafeSlow(Math.max(2 * scratch.length, used + more));
    scratch.copy(larger, 0, 0, used);
    scratch = larger;
  }
  return scratch;
}

/**
 * `compact` laid out indented, its first element at `depth` (an answer's inside: 1, as the
 * HTTP envelope has it). Bytes in, bytes out: UTF-8 text passes through unchanged.
 */
export function indentMarkup(compact: Uint8Array, depth: number): Buffer {
  const source = Buffer.from(compact.buffer, compact.byteOffset, compact.byteLength);
  let out = room(0, source.length);
  let at = 0;
  let level = depth;
  let afterTag = true;
  let i = 0;
  while (i < source.length) {
    if (source[i] !== LT) {
      let next = source.indexOf(LT, i);
      if (next === -1) next = source.length;
      out = room(at, next - i);
      if (next - i >= COPY_FROM) at += source.copy(out, at, i, next);
      else while (i < next) out[at++] = source[i++]!;
      i = next;
      afterTag = false;
      continue;
    }
    const closing = source[i + 1] === SLASH;
    if (closing && --level < depth) throw new Error('markup closes an element it did not open');
    const end = source.indexOf(GT, i);
    if (end === -1) throw new Error('markup ends inside a tag');
    out = room(at, end + 1 - i + (afterTag ? 1 + 2 * level : 0));
    if (afterTag) {
      out[at++] = NEWLINE;
      for (let n = 2 * level; n > 0; n--) out[at++] = SPACE;
    }
    while (i <= end) out[at++] = source[i++]!;
    if (!closing && source[end - 1] !== SLASH) level++;
    afterTag = true;
  }
  if (level !== depth) throw new Error('markup ends with an element open');
  const laidOut = Buffer.allocUnsafe(at);
  out.copy(laidOut, 0, 0, at);
  return laidOut;
}
