/**
 * bundle.json's bytes as JSON. A refusal says where (a byte offset, or a line and column)
 * and what, but never quotes the file: its bytes may be anything (JSON.parse's own
 * messages quote the text around the error).
 */
import { isUtf8 } from 'node:buffer';
import { BundleError } from './validate.ts';

/** RFC 8259 §8.1: JSON text is UTF-8; invalid bytes are refused, not replaced. */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The offset of the first byte that starts no valid UTF-8 sequence (RFC 3629 §4), or -1. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    let follow = 0;
    let low = 0x80;
    let high = 0xbf;
    if (b < 0x80) follow = 0;
    else if (b >= 0xc2 && b <= 0xdf) follow = 1;
    else if (b === 0xe0) [follow, low] = [2, 0xa0];
    else if (b === 0xed) [follow, high] = [2, 0x9f];
    else if (b >= 0xe1 && b <= 0xef) follow = 2;
    else if (b === 0xf0) [follow, low] = [3, 0x90];
    else if (b === 0xf4) [follow, high] = [3, 0x8f];
    else if (b >= 0xf1 && b <= 0xf3) follow = 3;
    else return i;
    for (let k = 1; k <= follow; k++) {
      const c = bytes[i + k];
      const [min, max] = k === 1 ? [low, high] : [0x80, 0xbf];
      if (c === undefined || c < min || c > max) return i;
    }
    i += follow + 1;
  }
  return -1;
}

interface Breach {
  readonly index: number;
  readonly reason: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const HEX4 = /[0-9a-fA-F]{4}/y;

/** Scans a string literal starting at its quote; returns the index after it, or an error. */
function scanString(text: string, start: number): number | Breach {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { index: i, reason: 'a control character in a string' };
    if (c === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        HEX4.lastIndex = i + 2;
        if (!HEX4.test(text)) return { index: i, reason: 'an invalid \\u escape' };
        i += 6;
        continue;
      }
      if (next === undefined || !ESCAPES.has(next)) return { index: i, reason: 'an invalid escape' };
      i += 2;
      continue;
    }
    i++;
  }
  return { index: start, reason: 'an unterminated string' };
}

type Expect = 'value' | 'value or ]' | 'name or }' | 'name' | ':' | ', or close' | 'end';

/** Where the JSON text first breaks the grammar (RFC 8259 §2–7), iteratively (nesting is unbounded). */
export function syntaxErrorIn(text: string): Breach | undefined {
  const open: string[] = [];
  let expect: Expect = 'value';
  let i = 0;
  const closed = () => {
    open.pop();
    i++;
    expect = open.length > 0 ? ', or close' : 'end';
  };
  for (;;) {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
    if (i >= text.length) return expect === 'end' ? undefined : { index: i, reason: 'an unexpected end' };
    const c = text[i]!;
    const top = open.at(-1);
    if (expect === 'end') return { index: i, reason: 'text after the end of the value' };
    if (expect === ':') {
      if (c !== ':') return { index: i, reason: 'an unexpected character (":" expected)' };
      i++;
      expect = 'value';
      continue;
    }
    if (expect === ', or close') {
      if (c === ',') {
        i++;
        expect = top === '{' ? 'name' : 'value';
      } else if (c === (top === '{' ? '}' : ']')) closed();
      else
        return { index: i, reason: `an unexpected character ("," or "${top === '{' ? '}' : ']'}" expected)` };
      continue;
    }
    if ((expect === 'name or }' && c === '}') || (expect === 'value or ]' && c === ']')) {
      closed();
      continue;
    }
    if (expect === 'name or }' || expect === 'name') {
      if (c !== '"')
        return { index: i, reason: 'an unexpected character (a name in double quotes expected)' };
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
      expect = ':';
      continue;
    }
    if (c === '{' || c === '[') {
      open.push(c);
      i++;
      expect = c === '{' ? 'name or }' : 'value or ]';
      continue;
    }
    if (c === '"') {
      const end = scanString(text, i);
      if (typeof end !== 'number') return end;
      i = end;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      if (!NUMBER.test(text)) return { index: i, reason: 'an invalid number' };
      i = NUMBER.lastIndex;
    } else {
      const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, i));
      if (!literal) return { index: i, reason: 'an unexpected character (a value expected)' };
      i += literal.length;
    }
    expect = open.length > 0 ? ', or close' : 'end';
  }
}

/** Line and column (both from 1; the column counts characters) of a string index. */
export function lineAndColumn(text: string, index: number): { line: number; column: number } {
  let line = 1;
  let column = 1;
  for (let i = 0; i < index; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      column = 1;
    } else if (c < 0xdc00 || c > 0xdfff) {
      // A low surrogate is the second half of the character before it.
      column++;
    }
  }
  return { line, column };
}

/** A piece's value; undefined when it is not valid JSON alone. */
type Parsed = { readonly value: unknown } | undefined;

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(bytes: Buffer, from: number): number {
  let i = from;
  while (isSpace(bytes[i])) i++;
  return i;
}

/** The index after the string literal whose quote is at `start`, or -1. */
function stringEnd(bytes: Buffer, start: number): number {
  for (let from = start + 1; ; ) {
    const quote = bytes.indexOf(0x22, from);
    if (quote === -1) return -1;
    let before = quote - 1;
    while (bytes[before] === 0x5c) before--;
    // An even run of backslashes escapes itself, not the quote.
    if ((quote - 1 - before) % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Where the value starting at `start` ends: only its extent; JSON.parse judges the bytes. -1 when it does not end. */
function valueEnd(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === 0x22) return stringEnd(bytes, start);
  if (first === 0x7b || first === 0x5b) {
    let depth = 0;
    for (let i = start; i < bytes.length; ) {
      const byte = bytes[i]!;
      if (byte === 0x22) {
        i = stringEnd(bytes, i);
        if (i === -1) return -1;
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if ((byte === 0x7d || byte === 0x5d) && --depth === 0) return i + 1;
      i++;
    }
    return -1;
  }
  let i = start;
  for (let byte = bytes[i]; byte !== undefined; byte = bytes[++i]) {
    if (byte === 0x2c || byte === 0x7d || byte === 0x5d || isSpace(byte)) break;
  }
  return i;
}

function parsedPiece(bytes: Buffer, start: number, end: number): Parsed {
  try {
    return { value: JSON.parse(bytes.toString('utf8', start, end)) };
  } catch {
    return undefined;
  }
}

/** The array whose `[` is at `start`, each element parsed alone; undefined when anything is amiss. */
function arrayAt(bytes: Buffer, start: number): { value: unknown[]; end: number } | undefined {
  const items: unknown[] = [];
  let i = skipSpace(bytes, start + 1);
  if (bytes[i] === 0x5d) return { value: items, end: i + 1 };
  for (;;) {
    const end = valueEnd(bytes, i);
    if (end <= i) return undefined;
    const item = parsedPiece(bytes, i, end);
    if (!item) return undefined;
    items.push(item.value);
    i = skipSpace(bytes, end);
    if (bytes[i] === 0x2c) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === 0x5d) return { value: items, end: i + 1 };
    else return undefined;
  }
}

/**
 * A JSON object parsed member by member, and each array member element by element, from
 * the bytes: each piece is decoded into a string of its own, most of them one byte a
 * character and short-lived, where the whole file decoded at once is one string of two
 * bytes a character (a bundle with any non-ASCII text), twice its size in fresh memory
 * (docs/performance.md, "The fourteenth round"). Only the pieces' extents are found here;
 * JSON.parse judges each piece. Undefined when anything is amiss (the caller parses the
 * whole text, which finds and reports the error); the bytes must be valid UTF-8. Exported
 * for its tests.
 */
export function parsedByPieces(bytes: Buffer): Parsed {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let i = skipSpace(bytes, bom);
  if (bytes[i] !== 0x7b) return undefined;
  const result: Record<string, unknown> = {};
  i = skipSpace(bytes, i + 1);
  if (bytes[i] === 0x7d) return skipSpace(bytes, i + 1) === bytes.length ? { value: result } : undefined;
  for (;;) {
    if (bytes[i] !== 0x22) return undefined;
    const nameEnd = stringEnd(bytes, i);
    const name = nameEnd === -1 ? undefined : parsedPiece(bytes, i, nameEnd)?.value;
    if (typeof name !== 'string') return undefined;
    i = skipSpace(bytes, nameEnd);
    if (bytes[i] !== 0x3a) return undefined;
    i = skipSpace(bytes, i + 1);
    let value: unknown;
    let end: number;
    if (bytes[i] === 0x5b) {
      const array = arrayAt(bytes, i);
      if (!array) return undefined;
      ({ value, end } = array);
    } else {
      end = valueEnd(bytes, i);
      const piece = end <= i ? undefined : parsedPiece(bytes, i, end);
      if (!piece) return undefined;
      value = piece.value;
    }
    // As JSON.parse: an own property even for `__proto__`, the last of a repeated name winning.
    Object.defineProperty(result, name, { value, writable: true, enumerable: true, configurable: true });
    i = skipSpace(bytes, end);
    if (bytes[i] === 0x2c) i = skipSpace(bytes, i + 1);
    else if (bytes[i] === 0x7d)
      return skipSpace(bytes, i + 1) === bytes.length ? { value: result } : undefined;
    else return undefined;
  }
}

/** Decodes and parses bundle.json; refusals name `where`, an offset or a line and column. */
export function parseJsonText(bytes: Uint8Array, where: string): unknown {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) {
    const parsed = parsedByPieces(buffer);
    if (parsed) return parsed.value;
  }
  let text: string;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    throw new BundleError(
      where,
      `is not UTF-8: invalid byte sequence at byte offset ${invalidUtf8Offset(bytes)}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    const error = syntaxErrorIn(text);
    if (!error) throw new BundleError(where, 'is not valid JSON');
    const { line, column } = lineAndColumn(text, error.index);
    throw new BundleError(where, `is not valid JSON: ${error.reason} at line ${line}, column ${column}`);
  }
}
