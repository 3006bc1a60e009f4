/**
 * A fast path of the request reader (reader.ts) for plain documents — what SOAP clients
 * send: an XML declaration, elements with ASCII names and namespace declarations,
 * attributes with plain values, text with the predefined entities and character
 * references. It works with indexOf and sticky regular expressions over runs of text
 * instead of a character at a time, which made saxes about a third of the cost of a small
 * SOAP call (docs/performance.md).
 *
 * It never decides a refusal. For anything outside that subset — a comment, CDATA, a
 * processing instruction, a DOCTYPE, a CR, a non-ASCII name, an attribute value with a
 * reference or a line break, a surrogate, a structural limit reached — and for anything
 * not well-formed, it answers undefined and the caller parses with saxes, whose tree or
 * refusal is the answer. What it does return is the tree saxes would build, which
 * plain-reader.test.ts checks against saxes on the corpus' requests and on random
 * mutations of them.
 */

import { isXmlChar, PREDEFINED_ENTITIES as PREDEFINED } from './chars.ts';
import {
  namespacesInScope,
  type ParsedDocument,
  type XmlAttribute,
  type XmlElement,
  type XmlLimits,
} from './document.ts';

const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** XML 1.0 §2.8 XMLDecl, in its plain forms. */
const DECLARATION =
  /<\?xml[ \t\n]+version[ \t\n]*=[ \t\n]*(["'])1\.0\1(?:[ \t\n]+encoding[ \t\n]*=[ \t\n]*(["'])[A-Za-z][A-Za-z0-9._-]*\2)?(?:[ \t\n]+standalone[ \t\n]*=[ \t\n]*(["'])(?:yes|no)\3)?[ \t\n]*\?>/y;
const QNAME = '([A-Za-z_][A-Za-z0-9._-]*)(?::([A-Za-z_][A-Za-z0-9._-]*))?';
const START_NAME = new RegExp(`<${QNAME}`, 'y');
const ATTRIBUTE = new RegExp(
  `[ \\t\\n]+${QNAME}[ \\t\\n]*=[ \\t\\n]*(?:"([^"<&\\t\\n\\r]*)"|'([^'<&\\t\\n\\r]*)')`,
  'y',
);
const START_END = /[ \t\n]*(\/?)>/y;
const END_TAG_REST = /[ \t\n]*>/y;
const WHITESPACE = /^[ \t\n]*$/;
/** What text may not hold here: a CR (§2.11 would rewrite it), `]]>`, a character §2.2 forbids, a surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 §2.2 forbids
const UNPLAIN_TEXT = /[\u0000-\u0008\u000B-\u001F\uD800-\uDFFF\uFFFE\uFFFF]|]]>/;
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/g;

/** Shared by every element without attributes: the tree is read, never changed. */
const NO_ATTRIBUTES: readonly XmlAttribute[] = Object.freeze([]);

class NotPlain extends Error {}
/** Thrown, made once: no stack trace is wanted. */
const NOT_PLAIN = new NotPlain();

/** Text as parsed: references replaced; NOT_PLAIN for a reference that is not one. */
function decodeText(raw: string): string {
  if (UNPLAIN_TEXT.test(raw)) throw NOT_PLAIN;
  if (!raw.includes('&')) return raw;
  let references = 0;
  const text = raw.replace(
    REFERENCE,
    (_, name: string | undefined, decimal: string | undefined, hex: string | undefined) => {
      references++;
      if (name !== undefined) return PREDEFINED[name]!;
      const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
      if (!isXmlChar(code)) throw NOT_PLAIN;
      return String.fromCodePoint(code);
    },
  );
  let ampersands = 0;
  for (let at = raw.indexOf('&'); at !== -1; at = raw.indexOf('&', at + 1)) ampersands++;
  if (ampersands !== references) throw NOT_PLAIN;
  return text;
}

interface RawAttribute {
  readonly prefix: string;
  readonly local: string;
  readonly value: string;
}

/** An element's namespace, or NOT_PLAIN for an undeclared prefix or a reserved one. */
function resolve(prefix: string, scope: Readonly<Record<string, string>>): string {
  if (prefix === 'xml' || prefix === 'xmlns') throw NOT_PLAIN;
  const uri = scope[prefix];
  if (uri === undefined || (prefix !== '' && uri === '')) throw NOT_PLAIN;
  return uri;
}

function openElement(
  raw: readonly RawAttribute[],
  prefix: string,
  local: string,
  parent: XmlElement | undefined,
): XmlElement {
  // Without attributes nothing is declared: the parent's scope (Namespaces in XML 1.0 §6.1).
  if (raw.length === 0 && parent !== undefined) {
    const { namespaces } = parent;
    const uri = prefix === '' ? (namespaces[''] ?? '') : resolve(prefix, namespaces);
    return { uri, local, prefix, attributes: NO_ATTRIBUTES, children: [], text: '', namespaces };
  }
  const declared: Record<string, string> = {};
  for (const a of raw) {
    // saxes trims a declared namespace name (the tree is saxes', so this one is too).
    const uri = a.value.trim();
    if (a.prefix === 'xmlns') {
      if (a.local === 'xml' || a.local === 'xmlns' || uri === '') throw NOT_PLAIN;
      declared[a.local] = uri;
    } else if (a.prefix === '' && a.local === 'xmlns') declared[''] = uri;
    else continue;
    if (uri === XML_NS || uri === XMLNS_NS) throw NOT_PLAIN;
  }
  const namespaces = namespacesInScope(parent?.namespaces, declared);
  const attributes: XmlAttribute[] = [];
  // One attribute cannot repeat another (most elements of a SOAP request have none or one).
  const seen = raw.length > 1 ? new Set<string>() : undefined;
  for (const a of raw) {
    const declaration = a.prefix === 'xmlns' || (a.prefix === '' && a.local === 'xmlns');
    const uri = declaration ? XMLNS_NS : a.prefix === '' ? '' : resolve(a.prefix, namespaces);
    if (seen !== undefined) {
      // Namespaces in XML 1.0 §6.3: no two attributes with the same expanded name (or qname).
      const expanded = `${uri}\u0000${a.local}`;
      const qname = `\u0001${a.prefix}:${a.local}`;
      if (seen.has(expanded) || seen.has(qname)) throw NOT_PLAIN;
      seen.add(expanded);
      seen.add(qname);
    }
    attributes.push({ uri, local: a.local, prefix: a.prefix, value: a.value });
  }
  return {
    uri: prefix === '' ? (namespaces[''] ?? '') : resolve(prefix, namespaces),
    local,
    prefix,
    attributes,
    children: [],
    text: '',
    namespaces,
  };
}

/** The document saxes would parse `text` into, or undefined when it is not plain (reader.ts decides then). */
export function parsePlainXml(text: string, limits: XmlLimits): ParsedDocument | undefined {
  try {
    return parse(text, limits);
  } catch (error) {
    if (error === NOT_PLAIN) return undefined;
    throw error;
  }
}

function parse(text: string, limits: XmlLimits): ParsedDocument | undefined {
  let at = 0;
  if (text.startsWith('<?xml')) {
    DECLARATION.lastIndex = 0;
    if (!DECLARATION.test(text)) return undefined;
    at = DECLARATION.lastIndex;
  }
  const stack: XmlElement[] = [];
  const qnames: string[] = [];
  let root: XmlElement | undefined;
  let elements = 0;
  let documentAttributes = 0;
  while (at < text.length) {
    const lt = text.indexOf('<', at);
    const end = lt === -1 ? text.length : lt;
    if (end > at) {
      const current = stack[stack.length - 1];
      if (current === undefined) {
        if (!WHITESPACE.test(text.slice(at, end))) return undefined;
      } else {
        const decoded = decodeText(text.slice(at, end));
        if (current.text.length + decoded.length > limits.maxTextLength) return undefined;
        current.text += decoded;
      }
    }
    if (lt === -1) break;
    const next = text.charCodeAt(lt + 1);
    if (next === 0x2f /* / */) {
      // The open element's name, then only white space before `>` (XML 1.0 §3.1 ETag).
      const open = qnames.pop();
      if (open === undefined || !text.startsWith(open, lt + 2)) return undefined;
      END_TAG_REST.lastIndex = lt + 2 + open.length;
      if (!END_TAG_REST.test(text)) return undefined;
      stack.pop();
      at = END_TAG_REST.lastIndex;
      continue;
    }
    // `<!` (a comment, CDATA, a DOCTYPE) and `<?` (a processing instruction) are not plain.
    if (root !== undefined && stack.length === 0) return undefined; // a second root element
    START_NAME.lastIndex = lt;
    const name = START_NAME.exec(text);
    if (!name) return undefined;
    const prefix = name[2] === undefined ? '' : name[1]!;
    const local = name[2] ?? name[1]!;
    const qname = name[0].slice(1);
    if (stack.length >= limits.maxDepth || ++elements > limits.maxElements) return undefined;
    if (qname.length > limits.maxNameLength) return undefined;
    let cursor = START_NAME.lastIndex;
    const raw: RawAttribute[] = [];
    for (;;) {
      ATTRIBUTE.lastIndex = cursor;
      const attribute = ATTRIBUTE.exec(text);
      if (!attribute) break;
      const value = attribute[3] ?? attribute[4]!;
      const aPrefix = attribute[2] === undefined ? '' : attribute[1]!;
      const aLocal = attribute[2] ?? attribute[1]!;
      const nameLength = aPrefix === '' ? aLocal.length : aPrefix.length + 1 + aLocal.length;
      if (nameLength > limits.maxNameLength || value.length > limits.maxAttributeLength) return undefined;
      if (value.length > limits.maxTextLength || UNPLAIN_TEXT.test(value)) return undefined;
      raw.push({ prefix: aPrefix, local: aLocal, value });
      cursor = ATTRIBUTE.lastIndex;
    }
    documentAttributes += raw.length;
    if (raw.length > limits.maxAttributes || documentAttributes > limits.maxDocumentAttributes)
      return undefined;
    START_END.lastIndex = cursor;
    const close = START_END.exec(text);
    if (!close) return undefined;
    const parent = stack[stack.length - 1];
    const element = openElement(raw, prefix, local, parent);
    if (parent) parent.children.push(element);
    else root = element;
    if (close[1] !== '/') {
      stack.push(element);
      qnames.push(qname);
    }
    at = START_END.lastIndex;
  }
  if (root === undefined || stack.length > 0) return undefined;
  return { root, hasProcessingInstruction: false };
}
