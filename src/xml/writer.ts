/**
 * A streaming XML writer for responses. It accumulates text and emits body parts:
 * buffers for markup, and deferred base64 parts for large binaries, so the exact
 * Content-Length is known before the first byte is sent (the original always sends
 * one) while binaries are still encoded as they stream.
 *
 * Layout follows .NET's XmlTextWriter: compact (SOAP) or indented by two spaces with
 * LF (HTTP GET/POST), where an element holding only text stays on one line and an
 * empty element is written `<name />`.
 */
import { ENCODE_PIECE_BYTES, encodeBase64 } from './base64.ts';
import { type Binary, type BinarySource, base64Length, binarySize } from './binary.ts';
import { escapeText } from './escape.ts';
import { keptBase64 } from './kept-base64.ts';

/**
 * A piece of an answer's body: bytes at hand, a binary sent base64-encoded as it streams
 * (XML), or a binary sent as it is (the JSON API's content routes).
 */
export type BodyPart = Buffer | { readonly base64Of: BinarySource } | { readonly bytesOf: BinarySource };

/** How markup is laid out: SOAP's compact form, or the indented one of HTTP GET/POST. */
export type Layout = 'compact' | 'indented';

export function partLength(part: BodyPart): number {
  if (Buffer.isBuffer(part)) return part.length;
  return 'base64Of' in part ? base64Length(part.base64Of.size) : part.bytesOf.size;
}

export function bodyLength(parts: readonly BodyPart[]): number {
  let total = 0;
  for (const part of parts) total += partLength(part);
  return total;
}

const INDENTS: string[] = [];
function newlineAndIndent(depth: number): string {
  let s = INDENTS[depth];
  if (s === undefined) {
    s = `\n${'  '.repeat(depth)}`;
    INDENTS[depth] = s;
  }
  return s;
}

/** What a compiled writer (protocol/serialize.ts) writes markup to. */
export interface MarkupWriter {
  raw(markup: string): void;
  open(name: string, depth: number): void;
  close(name: string, depth: number): void;
  leaf(name: string, depth: number, text: string): void;
  plainLeaf(name: string, depth: number, text: string): void;
  empty(name: string, depth: number): void;
  nil(name: string, depth: number): void;
  binary(name: string, depth: number, value: Binary): void;
}

export class XmlWriter implements MarkupWriter {
  private text = '';
  private readonly parts: BodyPart[] = [];

  constructor(private readonly indented: boolean) {}

  /** Markup that is already correct XML (declarations, envelope prefixes). */
  raw(markup: string): void {
    this.text += markup;
  }

  private lineStart(depth: number): string {
    return this.indented ? newlineAndIndent(depth) : '';
  }

  open(name: string, depth: number): void {
    this.text += `${this.lineStart(depth)}<${name}>`;
  }

  /** Closes an element whose content was elements (so the end tag gets its own line). */
  close(name: string, depth: number): void {
    this.text += `${this.lineStart(depth)}</${name}>`;
  }

  /** `<name>text</name>` with `text` escaped; an empty string gives `<name />`. */
  leaf(name: string, depth: number, text: string): void {
    if (text === '') this.empty(name, depth);
    else this.plainLeaf(name, depth, escapeText(text));
  }

  /**
   * A value that needs no escaping (numbers, booleans, base64). An empty one is `<name />`,
   * as `leaf` writes it: `<name></name>` would be the one element indent.ts lays out unlike
   * this writer (it cannot tell it from an element whose elements follow).
   */
  plainLeaf(name: string, depth: number, text: string): void {
    if (text === '') this.empty(name, depth);
    else this.text += `${this.lineStart(depth)}<${name}>${text}</${name}>`;
  }

  empty(name: string, depth: number): void {
    this.text += `${this.lineStart(depth)}<${name} />`;
  }

  nil(name: string, depth: number): void {
    this.text += `${this.lineStart(depth)}<${name} xsi:nil="true" />`;
  }

  binary(name: string, depth: number, value: Binary): void {
    if (binarySize(value) === 0) {
      this.empty(name, depth);
    } else if (value instanceof Uint8Array) {
      // Bytes answered again and again have their base64 kept; others are encoded here,
      // inline while their text is small, else as a part of its own (no large string).
      const kept = keptBase64(value);
      if (kept) this.partLeaf(name, depth, kept);
      else if (value.byteLength <= ENCODE_PIECE_BYTES)
        this.plainLeaf(
          name,
          depth,
          Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64'),
        );
      else this.partLeaf(name, depth, encodeBase64(value));
    } else if (value.placeholder !== undefined) {
      this.plainLeaf(name, depth, value.placeholder);
    } else {
      this.partLeaf(name, depth, { base64Of: value });
    }
  }

  /** An element whose content is a body part of its own. */
  private partLeaf(name: string, depth: number, part: BodyPart): void {
    this.text += `${this.lineStart(depth)}<${name}>`;
    this.flush();
    this.parts.push(part);
    this.text += `</${name}>`;
  }

  private flush(): void {
    if (this.text.length > 0) {
      this.parts.push(Buffer.from(this.text, 'utf8'));
      this.text = '';
    }
  }

  finish(): BodyPart[] {
    this.flush();
    return this.parts;
  }

  /** The markup as one string, for a writer that made no part of its own (each binary a placeholder, or small bytes inline). */
  finishText(): string {
    if (this.parts.length > 0)
      throw new Error(
        'a binary that is neither a reference nor small enough to write inline cannot be in one text',
      );
    return this.text;
  }
}
