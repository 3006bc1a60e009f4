/**
 * A strict, non-validating XML tokenizer for answers, fed in pieces: start and end tags
 * with namespaces resolved, text with references decoded. It exists for speed — a
 * harvest reads every answer a service sends, and a general parser walking character by
 * character cost more than the service spent writing them — so it works with indexOf and
 * regular expressions over runs of text, and reports only what the answer reader needs
 * (an element's namespace, local name and `xsi:nil`). Two things it does that a parser
 * does not, because a harvest must reproduce the answer's bytes:
 *
 * - **CR survives.** The original writes CR raw (reference/SERIALIZER.md), and so does
 *   scoop; XML's end-of-line handling (§2.11) would turn CR and CRLF into LF and lose the
 *   CR a stored text holds. So text and CDATA inside the root keep CR as sent. (Attribute
 *   values are normalised as XML says; outside the root only whitespace may stand.)
 * - **Binaries bypass it.** When `open` says an element is a binary one, its content up to
 *   the next `<` goes to `raw` as it arrives, unparsed, so a 200 MB attachment is never
 *   held as one string; the element must hold nothing but that text.
 *
 * It refuses what is not well-formed XML 1.0 with namespaces (XmlSyntaxError): unmatched
 * or unclosed tags, a second root, text outside the root, `<` or a bare `&` in text or
 * attribute values, an unknown entity, a reference or a raw character XML 1.0 does not
 * allow (the original's `&#x1;` bug), `]]>` in text, `--` in a comment, a name that is not
 * one, a duplicate attribute, an undeclared prefix — and any DOCTYPE (no entity is ever
 * defined or expanded, nothing is fetched). Its input is what a UTF-8 decoder makes, which
 * never holds half of a surrogate pair.
 */

import { isXmlChar, PREDEFINED_ENTITIES as PREDEFINED } from '../xml/chars.ts';

export class XmlSyntaxError extends Error {
  override readonly name = 'XmlSyntaxError';
}

export interface TokenHandler {
  /** A start tag; true when the element's content is a binary's text, to be handed to `raw`. */
  open(uri: string, local: string, qname: string, nil: boolean): boolean;
  text(text: string): void;
  /** A binary element's content as it arrives; a promise returned is waited for before reading on. */
  raw(text: string): void | Promise<void>;
  close(): void;
}

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

// XML 1.0 §2.3 Name, with the BMP ranges of NameStartChar/NameChar (astral ones via surrogates).
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\uD800-\\uDBFF\\uDC00-\\uDFFF';
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
const NAME = new RegExp(`^[${NAME_START}][${NAME_CHAR}]*$`);
/** A start tag's name, then its attributes (each `S name S? = S? "value"`), then S? and `/`? */
const SIMPLE_TAG = new RegExp(`^<([${NAME_START}][${NAME_CHAR}]*)(/?)>$`);
/** The same for the ASCII names answers use, much cheaper to match. */
const ASCII_TAG = /<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)(\/?)>/y;
/** XML 1.0 §2.8 XMLDecl. */
const XML_DECLARATION =
  /^<\?xml\s+version\s*=\s*(["'])1\.[0-9]+\1(?:\s+encoding\s*=\s*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:\s+standalone\s*=\s*(["'])(?:yes|no)\3)?\s*\?>$/;
const ATTRIBUTE = /\s+([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/y;
const TAG_END = /\s*(\/?)>$/y;
/** XML 1.0 §2.2: the characters not allowed (lone surrogates cannot come out of the UTF-8 decoder). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 §2.2 forbids
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
/** A reference, or (matched last, with no group) an `&` that starts none. */
const REFERENCE = /&(?:(lt|gt|amp|quot|apos)|#([0-9]+)|#x([0-9a-fA-F]+));|&/g;
const NO_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [];

function fail(message: string): never {
  throw new XmlSyntaxError(message);
}

/**
 * Decodes the references in a run of text or an attribute value; refuses a bare `&`. An
 * attribute value's raw whitespace is normalised to spaces first (§3.3.3); references to
 * whitespace are kept.
 */
function decode(raw: string, where: string, attribute = false): string {
  let text = raw;
  if (attribute && /[\t\n\r]/.test(text)) text = text.replace(/\r\n?/g, '\n').replace(/[\t\n]/g, ' ');
  if (!text.includes('&')) return text;
  return text.replace(
    REFERENCE,
    (_m, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (name !== undefined) return PREDEFINED[name]!;
      if (dec === undefined && hex === undefined) fail(`a "&" that starts no reference in ${where}`);
      const code = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
      if (!isXmlChar(code)) fail(`a character reference XML 1.0 does not allow in ${where}`);
      return String.fromCodePoint(code);
    },
  );
}

interface Open {
  readonly qname: string;
  readonly scope: Map<string, string>;
}

export class XmlTokenizer {
  private rest = '';
  /** The piece being read (the rest of the last one in front). */
  private text = '';
  /** Inside a binary element: its content goes to `raw`. */
  private inRaw = false;
  private readonly stack: Open[] = [];
  private scope = new Map<string, string>([
    ['xml', XML_NS],
    ['xmlns', XMLNS_NS],
    ['', ''],
  ]);
  private rootSeen = false;
  private rootClosed = false;
  private started = false;

  constructor(private readonly handler: TokenHandler) {}

  /** The next piece; a promise when a binary's `raw` asked to be waited for. */
  write(chunk: string): void | Promise<void> {
    // Forbidden anywhere in a document, so checked once per piece rather than per text.
    if (FORBIDDEN.test(chunk)) fail('a character XML 1.0 does not allow');
    this.text = this.rest.length > 0 ? this.rest + chunk : chunk;
    this.rest = '';
    return this.run(0);
  }

  private run(from: number): void | Promise<void> {
    const text = this.text;
    const length = text.length;
    let at = from;
    while (at < length) {
      const lt = text.indexOf('<', at);
      if (this.inRaw) {
        const end = lt < 0 ? length : lt;
        const waiting = end > at ? this.handler.raw(text.slice(at, end)) : undefined;
        if (lt >= 0) this.inRaw = false;
        if (waiting) return waiting.then(() => this.run(end));
        at = end;
        continue;
      }
      if (lt !== at) {
        const end = lt < 0 ? length : lt;
        // Text may end in a piece of a reference or the `]]` of a `]]>`: kept for the next piece.
        const keep = lt < 0 ? this.incompleteTail(text, at, end) : end;
        if (keep > at) this.characters(text.slice(at, keep));
        if (lt < 0) {
          this.rest = text.slice(keep);
          return;
        }
      }
      const next = this.markup(text, lt);
      if (next < 0) {
        this.rest = text.slice(lt);
        return;
      }
      at = next;
    }
  }

  close(): void {
    if (this.rest.length > 0) {
      if (this.rest.trimStart().startsWith('<')) fail('the document ends inside a tag');
      this.characters(this.rest);
      this.rest = '';
    }
    if (!this.rootSeen) fail('the document has no root element');
    if (this.stack.length > 0) fail(`unclosed tag: ${this.stack[this.stack.length - 1]!.qname}`);
  }

  /** Where the text up to `end` may stop for now: before a trailing `&…` or `]`s. */
  private incompleteTail(text: string, at: number, end: number): number {
    let keep = end;
    const amp = text.lastIndexOf('&', end - 1);
    if (amp >= at && !text.includes(';', amp)) keep = amp;
    while (keep > at && text[keep - 1] === ']') keep--;
    return keep;
  }

  private characters(raw: string): void {
    if (raw.includes(']]>')) fail('"]]>" in text');
    this.started = true;
    if (this.stack.length === 0) {
      if (/[^ \t\r\n]/.test(raw)) fail('text outside the root element');
      return;
    }
    this.handler.text(decode(raw, 'text'));
  }

  /** Handles the markup at `lt`; returns where text goes on, or -1 when it is not complete yet. */
  private markup(text: string, lt: number): number {
    const second = text[lt + 1];
    if (second === undefined) return -1;
    if (second === '?') {
      const end = text.indexOf('?>', lt + 2);
      if (end < 0) return -1;
      const target = /^[^\s?]+/.exec(text.slice(lt + 2, end))?.[0] ?? '';
      if (target.toLowerCase() === 'xml') {
        if (this.started || lt !== 0) fail('an XML declaration that is not at the start');
        if (!XML_DECLARATION.test(text.slice(lt, end + 2))) fail('a malformed XML declaration');
      } else if (!NAME.test(target) || target.includes(':'))
        // Namespaces in XML 1.0 §7: no PI target contains a colon.
        fail('a processing instruction without a proper target');
      this.started = true;
      return end + 2;
    }
    if (second === '!') {
      const head = text.slice(lt, lt + 9);
      // Too short yet to tell a comment or a CDATA section from anything else.
      if (head.length < 9 && ('<![CDATA['.startsWith(head) || (head.length < 4 && '<!--'.startsWith(head))))
        return -1;
      if (text.startsWith('<!--', lt)) {
        const end = text.indexOf('-->', lt + 4);
        if (end < 0) return -1;
        if (text.slice(lt + 4, end).includes('--') || text[end - 1] === '-') fail('"--" in a comment');
        this.started = true;
        return end + 3;
      }
      if (text.startsWith('<![CDATA[', lt)) {
        if (this.stack.length === 0) fail('a CDATA section outside the root element');
        const end = text.indexOf(']]>', lt + 9);
        if (end < 0) return -1;
        this.handler.text(text.slice(lt + 9, end));
        return end + 3;
      }
      fail(text.startsWith('<!DOCTYPE', lt) ? 'a DOCTYPE, which is not allowed' : 'markup that is not XML');
    }
    const gt = this.tagEnd(text, lt);
    if (gt < 0) return -1;
    if (second === '/') this.endTag(text, lt, gt);
    else this.startTag(text, lt, gt);
    this.started = true;
    return gt + 1;
  }

  private tagEnd(text: string, lt: number): number {
    const gt = text.indexOf('>', lt + 1);
    if (gt < 0) return -1;
    // Most tags have no quote before their first `>`; one that has is walked character by character.
    let quoted = false;
    for (let k = lt + 1; k < gt; k++) {
      const c = text.charCodeAt(k);
      if (c === 0x22 || c === 0x27) {
        quoted = true;
        break;
      }
    }
    if (!quoted) return gt;
    let quote = '';
    for (let k = lt + 1; k < text.length; k++) {
      const c = text[k];
      if (quote !== '') {
        if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '>') return k;
    }
    return -1;
  }

  private endTag(text: string, lt: number, gt: number): void {
    const open = this.stack.pop();
    const end = lt + 2 + (open?.qname.length ?? 0);
    // `</name>` or `</name S>`: compared in place, no string made.
    if (!open || !text.startsWith(open.qname, lt + 2) || (end !== gt && text.slice(end, gt).trim() !== '')) {
      const qname = text.slice(lt + 2, gt).trimEnd();
      fail(open ? `</${qname}> closes <${open.qname}>` : `an end tag </${qname}> with nothing open`);
    }
    this.scope = open.scope;
    if (this.stack.length === 0) this.rootClosed = true;
    this.handler.close();
  }

  private startTag(text: string, lt: number, gt: number): void {
    if (this.rootClosed) fail('a second root element');
    // Most tags of an answer are a plain ASCII name: matched where they stand, no copy made.
    ASCII_TAG.lastIndex = lt;
    const plain = ASCII_TAG.exec(text);
    if (plain && ASCII_TAG.lastIndex === gt + 1) {
      this.element(plain[1]!, plain[2] === '/', NO_ATTRIBUTES);
      return;
    }
    const tag = text.slice(lt, gt + 1);
    let qname: string;
    let empty: boolean;
    const attributes: Array<[string, string]> = [];
    const simple = SIMPLE_TAG.exec(tag);
    if (simple) {
      qname = simple[1]!;
      empty = simple[2] === '/';
    } else {
      const name = /^<([^\s/>]+)/.exec(tag);
      if (!name || !NAME.test(name[1]!)) fail(`a tag whose name is not an XML name: ${tag.slice(0, 40)}`);
      qname = name[1]!;
      let at = name[0].length;
      for (;;) {
        ATTRIBUTE.lastIndex = at;
        const attribute = ATTRIBUTE.exec(tag);
        if (!attribute) break;
        const attributeName = attribute[1]!;
        if (!NAME.test(attributeName)) fail(`an attribute name that is not an XML name in <${qname}>`);
        if (attributes.some(([n]) => n === attributeName))
          fail(`<${qname}> has the attribute ${attributeName} twice`);
        const raw = attribute[2] ?? attribute[3] ?? '';
        if (raw.includes('<')) fail(`a "<" in an attribute value of <${qname}>`);
        attributes.push([attributeName, decode(raw, 'an attribute value', true)]);
        at = ATTRIBUTE.lastIndex;
      }
      TAG_END.lastIndex = at;
      const end = TAG_END.exec(tag);
      if (!end || TAG_END.lastIndex !== tag.length) fail(`a malformed tag <${qname}…>`);
      empty = end[1] === '/';
    }
    this.element(qname, empty, attributes);
  }

  private element(qname: string, empty: boolean, attributes: ReadonlyArray<readonly [string, string]>): void {
    this.rootSeen = true;
    const parentScope = this.scope;
    let scope = parentScope;
    for (const [name, value] of attributes) {
      if (name === 'xmlns' || name.startsWith('xmlns:')) {
        if (scope === parentScope) scope = new Map(parentScope);
        const prefix = name === 'xmlns' ? '' : name.slice(6);
        // A namespace name is a URI: surrounding whitespace is no part of it (saxes trims it too).
        const uri = value.trim();
        if (prefix !== '' && uri === '') fail(`the prefix ${prefix} is undeclared to the empty namespace`);
        scope.set(prefix, uri);
      }
    }
    const [uri, local] = this.resolve(qname, scope, true);
    let nil = false;
    for (const [name, value] of attributes) {
      if (name === 'xmlns' || !name.includes(':')) continue;
      if (name.startsWith('xmlns:')) {
        this.resolve(name, scope, false);
        continue;
      }
      const [attributeUri, attributeLocal] = this.resolve(name, scope, false);
      if (attributeUri === XSI_NS && attributeLocal === 'nil')
        nil = value.trim() === 'true' || value.trim() === '1';
    }
    const raw = this.handler.open(uri, local, qname, nil);
    if (empty) {
      if (this.stack.length === 0) this.rootClosed = true;
      this.handler.close();
    } else {
      this.stack.push({ qname, scope: parentScope });
      this.scope = scope;
      this.inRaw = raw;
    }
  }

  private resolve(qname: string, scope: Map<string, string>, element: boolean): [string, string] {
    const colon = qname.indexOf(':');
    if (colon < 0) return [element ? (scope.get('') ?? '') : '', qname];
    // Namespaces in XML 1.0 §4: a QName is NCName, or NCName ":" NCName.
    if (colon === 0 || colon === qname.length - 1 || qname.indexOf(':', colon + 1) >= 0)
      fail(`${qname} is not a qualified name`);
    const prefix = qname.slice(0, colon);
    const uri = scope.get(prefix);
    if (uri === undefined) fail(`the prefix ${prefix} of <${qname}> is not declared`);
    return [uri, qname.slice(colon + 1)];
  }
}
