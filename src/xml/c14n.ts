/**
 * Canonical XML 1.0 (W3C REC xml-c14n, without comments), enough for comparing
 * responses: no XML declaration, empty elements as start/end pairs, namespace
 * declarations then attributes in canonical order, superfluous declarations dropped,
 * CDATA as text, and the C14N escaping of text and attribute values.
 *
 * `{ lines: true }` lays the same form out for comparing answers line by line: text of
 * only whitespace beside child elements (indentation, which the original puts into HTTP
 * GET/POST answers and which no XML deserializer reads) is dropped, and each element
 * starts a line of its own, indented by its depth. The only whitespace dropped is that
 * of element-only content: an element whose whole content is whitespace keeps it.
 */
import { SaxesParser, type SaxesTagNS } from 'saxes';

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

function escapeAttribute(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;');
}

export interface CanonicalOptions {
  /** One element a line, indentation between elements ignored (see above). */
  readonly lines?: boolean;
}

const WHITESPACE = /^[ \t\r\n]*$/;

export function canonicalize(xml: string, options: CanonicalOptions = {}): string {
  const lines = options.lines === true;
  const parser = new SaxesParser({ xmlns: true });
  let out = '';
  let depth = 0;
  // Lines only: the text since the last tag (escaped, and whether it was all whitespace),
  // and per open element whether it has child elements.
  let pending = '';
  let pendingBlank = true;
  const hasChildren: boolean[] = [];
  const flushPending = (keepBlank: boolean) => {
    if (!pendingBlank || keepBlank) out += pending;
    pending = '';
    pendingBlank = true;
  };
  // The namespace declarations already rendered, per open element.
  const rendered: Array<Map<string, string>> = [new Map([['', '']])];
  parser.on('opentag', (tag) => {
    const t = tag as SaxesTagNS;
    const inScope = new Map(rendered[rendered.length - 1]);
    const declarations: Array<[string, string]> = [];
    const attributes: Array<{ uri: string; local: string; name: string; value: string }> = [];
    for (const a of Object.values(t.attributes)) {
      if (a.prefix === 'xmlns' || a.name === 'xmlns') continue;
      attributes.push({ uri: a.uri, local: a.local, name: a.name, value: a.value });
    }
    // Every prefix in scope that this element or its attributes use, or that it declares.
    for (const [prefix, uri] of Object.entries(t.ns)) {
      if (inScope.get(prefix) !== uri) {
        declarations.push([prefix, uri]);
        inScope.set(prefix, uri);
      }
    }
    declarations.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    attributes.sort((a, b) => (a.uri === b.uri ? (a.local < b.local ? -1 : 1) : a.uri < b.uri ? -1 : 1));
    if (lines) {
      flushPending(false);
      if (hasChildren.length > 0) hasChildren[hasChildren.length - 1] = true;
      if (out !== '') out += `\n${'  '.repeat(depth)}`;
      hasChildren.push(false);
    }
    out += `<${t.name}`;
    for (const [prefix, uri] of declarations) {
      out +=
        prefix === '' ? ` xmlns="${escapeAttribute(uri)}"` : ` xmlns:${prefix}="${escapeAttribute(uri)}"`;
    }
    for (const a of attributes) out += ` ${a.name}="${escapeAttribute(a.value)}"`;
    out += '>';
    rendered.push(inScope);
    depth++;
  });
  parser.on('closetag', (tag) => {
    if (lines) {
      const parent = hasChildren.pop() === true;
      flushPending(!parent);
      if (parent) out += `\n${'  '.repeat(depth - 1)}`;
    }
    out += `</${tag.name}>`;
    rendered.pop();
    depth--;
  });
  const onText = (text: string) => {
    if (depth === 0) return;
    if (!lines) {
      out += escapeText(text);
      return;
    }
    pending += escapeText(text);
    if (pendingBlank && !WHITESPACE.test(text)) pendingBlank = false;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('processinginstruction', (pi) => {
    out += `${depth === 0 && out !== '' ? '\n' : ''}<?${pi.target}${pi.body ? ` ${pi.body}` : ''}?>`;
  });
  parser.write(xml).close();
  return out;
}
