/**
 * The bytes of an answer on their way to the XML parser, for two things a parser alone
 * cannot do:
 *
 * - **CR survives.** The original writes CR raw (reference/SERIALIZER.md), and so does
 *   scoop; an XML parser turns CR and CRLF into LF (XML 1.0 §2.11), which would lose the
 *   CR a stored text holds. So a CR in character data is handed to the parser as the
 *   reference `&#xD;`, which end-of-line handling leaves alone; inside a CDATA section the
 *   section is closed around it (`]]>&#xD;<![CDATA[`). CRs inside tags, comments and
 *   processing instructions are left to the parser, where they carry no content.
 * - **Binaries bypass the parser.** A parser collects an element's text whole before
 *   reporting it, so a 200 MB attachment would be held as a 270 MB string. After each
 *   start tag whose local name is a binary field's (`data`), the scanner asks whether the
 *   parser now stands in a binary element; if so, the bytes up to the next `<` go to
 *   `binary()` and never reach the parser, which sees an empty element.
 *
 * Input is UTF-8; it is decoded strictly (invalid bytes are an error), and cut only at
 * ASCII bytes, so no character is split between the parser's pieces.
 */

export interface ScannerTarget {
  /** Markup and text for the XML parser, in order. */
  xml(text: string): void;
  /** After a start tag that may open a binary element: whether it did. */
  inBinary(): boolean;
  /** The raw bytes of the binary element's content; awaited, so a slow disk slows the reading. */
  binary(bytes: Buffer): void | Promise<void>;
  /** The binary element's content has ended (its end tag follows). */
  binaryEnd(): void | Promise<void>;
}

export class MarkupError extends Error {
  override readonly name = 'MarkupError';
}

type State = 'text' | 'tag' | 'comment' | 'cdata' | 'pi' | 'binary';

const LT = 0x3c;
const GT = 0x3e;
const CR = 0x0d;
const SLASH = 0x2f;
const QUOT = 0x22;
const APOS = 0x27;
const BANG = 0x21;
const QUESTION = 0x3f;
const CR_REFERENCE = Buffer.from('&#xD;');
const CR_IN_CDATA = Buffer.from(']]>&#xD;<![CDATA[');
const CDATA_OPEN = Buffer.from('<![CDATA[');
const COMMENT_OPEN = Buffer.from('<!--');
/** A tag longer than this is not an answer of this service (the longest is an envelope's start). */
const MAX_TAG_BYTES = 64 * 1024;
const EMPTY = Buffer.alloc(0);

function isNameEnd(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === CR || byte === SLASH || byte === GT;
}

export class MarkupScanner {
  private state: State = 'text';
  /** Bytes held back: a tag not yet complete, or the last bytes that may begin a terminator. */
  private pending: Buffer = EMPTY;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private out: Buffer[] = [];
  /** Elements open: CR outside the root is left alone (a reference there is not well-formed). */
  private depth = 0;

  constructor(
    private readonly binaryNames: ReadonlySet<string>,
    private readonly target: ScannerTarget,
  ) {}

  async push(chunk: Buffer): Promise<void> {
    const buf = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = EMPTY;
    let i = 0;
    while (i < buf.length) {
      switch (this.state) {
        case 'binary': {
          const lt = buf.indexOf(LT, i);
          const end = lt < 0 ? buf.length : lt;
          if (end > i) await this.target.binary(buf.subarray(i, end));
          if (lt < 0) return;
          await this.target.binaryEnd();
          this.state = 'text';
          i = lt;
          break;
        }
        case 'text': {
          const lt = buf.indexOf(LT, i);
          this.text(buf, i, lt < 0 ? buf.length : lt);
          if (lt < 0) {
            i = buf.length;
            break;
          }
          const opened = this.markupAt(buf, lt);
          if (opened === undefined) {
            this.hold(buf, lt);
            i = buf.length;
          } else i = opened;
          break;
        }
        case 'tag': {
          const end = this.tagEnd(buf, i);
          if (end < 0) {
            this.hold(buf, i);
            i = buf.length;
            break;
          }
          this.out.push(buf.subarray(i, end + 1));
          this.state = 'text';
          if (buf[i + 1] === SLASH) this.depth--;
          else if (buf[end - 1] !== SLASH) this.depth++;
          if (this.mayOpenBinary(buf, i, end)) {
            this.flush();
            if (this.target.inBinary()) this.state = 'binary';
          }
          i = end + 1;
          break;
        }
        case 'comment':
          i = this.through(buf, i, '-->');
          break;
        case 'pi':
          i = this.through(buf, i, '?>');
          break;
        case 'cdata':
          i = this.cdata(buf, i);
          break;
      }
    }
    this.flush();
  }

  /** The end of the input: nothing may be left open. */
  end(): void {
    this.flush();
    if (this.pending.length > 0 || this.state !== 'text') {
      throw new MarkupError('the answer ends inside markup');
    }
    this.target.xml(this.decoder.decode());
  }

  private flush(): void {
    if (this.out.length === 0) return;
    const bytes = this.out.length === 1 ? this.out[0]! : Buffer.concat(this.out);
    this.out = [];
    let text: string;
    try {
      text = this.decoder.decode(bytes, { stream: true });
    } catch {
      throw new MarkupError('the answer is not UTF-8');
    }
    if (text.length > 0) this.target.xml(text);
  }

  private hold(buf: Buffer, from: number): void {
    if (buf.length - from > MAX_TAG_BYTES) throw new MarkupError('a tag longer than 64 KiB');
    // A copy: the caller's buffer may be reused once push returns.
    this.pending = Buffer.from(buf.subarray(from));
  }

  /** Character data from..end, each CR as a reference. */
  private text(buf: Buffer, from: number, end: number): void {
    if (this.depth <= 0) {
      if (end > from) this.out.push(buf.subarray(from, end));
      return;
    }
    let start = from;
    for (let cr = buf.indexOf(CR, start); cr >= 0 && cr < end; cr = buf.indexOf(CR, start)) {
      if (cr > start) this.out.push(buf.subarray(start, cr));
      this.out.push(CR_REFERENCE);
      start = cr + 1;
    }
    if (end > start) this.out.push(buf.subarray(start, end));
  }

  /**
   * What the `<` at `lt` opens; returns where scanning goes on, or undefined when the
   * bytes so far cannot tell (held back until more arrive).
   */
  private markupAt(buf: Buffer, lt: number): number | undefined {
    const next = buf[lt + 1];
    if (next === undefined) return undefined;
    if (next === QUESTION) {
      this.out.push(buf.subarray(lt, lt + 2));
      this.state = 'pi';
      return lt + 2;
    }
    if (next === BANG) {
      for (const [open, state] of [
        [COMMENT_OPEN, 'comment'],
        [CDATA_OPEN, 'cdata'],
      ] as const) {
        const have = Math.min(open.length, buf.length - lt);
        if (buf.compare(open, 0, have, lt, lt + have) !== 0) continue;
        if (have < open.length) return undefined;
        this.out.push(open);
        this.state = state;
        return lt + open.length;
      }
      // Anything else after `<!` (a DOCTYPE) goes to the parser as a tag, which refuses it.
    }
    this.state = 'tag';
    return lt;
  }

  /** The index of the `>` that closes the tag starting at `from` (quotes respected), or -1. */
  private tagEnd(buf: Buffer, from: number): number {
    let quote = 0;
    for (let k = from + 1; k < buf.length; k++) {
      const b = buf[k]!;
      if (quote !== 0) {
        if (b === quote) quote = 0;
      } else if (b === QUOT || b === APOS) quote = b;
      else if (b === GT) return k;
    }
    return -1;
  }

  /** A start tag (not an end tag, not empty-element) whose local name is a binary field's. */
  private mayOpenBinary(buf: Buffer, lt: number, gt: number): boolean {
    if (buf[lt + 1] === SLASH || buf[gt - 1] === SLASH) return false;
    let nameEnd = lt + 1;
    while (nameEnd < gt && !isNameEnd(buf[nameEnd]!)) nameEnd++;
    const name = buf.toString('latin1', lt + 1, nameEnd);
    const colon = name.indexOf(':');
    return this.binaryNames.has(colon < 0 ? name : name.slice(colon + 1));
  }

  /** Copies bytes up to and including `terminator`; holds back a possible partial terminator. */
  private through(buf: Buffer, from: number, terminator: string): number {
    const at = buf.indexOf(terminator, from, 'latin1');
    if (at >= 0) {
      const end = at + terminator.length;
      this.out.push(buf.subarray(from, end));
      this.state = 'text';
      return end;
    }
    const keep = Math.max(from, buf.length - (terminator.length - 1));
    this.out.push(buf.subarray(from, keep));
    if (keep < buf.length) this.pending = Buffer.from(buf.subarray(keep));
    return buf.length;
  }

  private cdata(buf: Buffer, from: number): number {
    const at = buf.indexOf(']]>', from, 'latin1');
    const end = at >= 0 ? at : Math.max(from, buf.length - 2);
    let start = from;
    for (let cr = buf.indexOf(CR, start); cr >= 0 && cr < end; cr = buf.indexOf(CR, start)) {
      if (cr > start) this.out.push(buf.subarray(start, cr));
      this.out.push(CR_IN_CDATA);
      start = cr + 1;
    }
    if (at >= 0) {
      this.out.push(buf.subarray(start, at + 3));
      this.state = 'text';
      return at + 3;
    }
    if (end > start) this.out.push(buf.subarray(start, end));
    if (end < buf.length) this.pending = Buffer.from(buf.subarray(end));
    return buf.length;
  }
}
