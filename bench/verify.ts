/**
 * Checks made once before measuring:
 *   - the ceiling answers with our bytes: same status, same body, same header names and
 *     the same head size (Date and X-Request-Id differ in value only);
 *   - the peer's SOAP answer carries the same values as ours: both bodies reduced to
 *     (local name, text, xsi:nil) trees and compared — prefixes, namespace declarations,
 *     empty-element style and whitespace between elements do not count.
 */
import { SaxesParser } from 'saxes';
import { type Captured, header } from './http.ts';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

export function sameBytes(ours: Captured, ceiling: Captured): string | undefined {
  if (ours.status !== ceiling.status) return `status ${ceiling.status}, ours ${ours.status}`;
  if (!ours.body.equals(ceiling.body))
    return `body differs (${ceiling.body.length} bytes, ours ${ours.body.length})`;
  const names = (c: Captured) =>
    c.rawHeaders
      .filter((_, i) => i % 2 === 0)
      .map((n) => n.toLowerCase())
      .sort()
      .join(',');
  if (names(ours) !== names(ceiling)) return `header names ${names(ceiling)}, ours ${names(ours)}`;
  if (ours.headBytes !== ceiling.headBytes)
    return `head of ${ceiling.headBytes} bytes, ours ${ours.headBytes}`;
  for (const name of ['content-type', 'content-length', 'cache-control', 'etag']) {
    if (header(ours, name) !== header(ceiling, name))
      return `${name} ${header(ceiling, name)}, ours ${header(ours, name)}`;
  }
  return undefined;
}

interface Node {
  name: string;
  nil: boolean;
  text: string;
  children: Node[];
}

/** The SOAP Body's content as a canonical string of local names, texts and nils; and the envelope namespace. */
export function soapValues(xml: string): { envelope: string; body: string; undeclaredXsi: boolean } {
  // node-soap writes xsi:nil without declaring xsi (not namespace-well-formed); read it anyway, and say so.
  const undeclaredXsi = xml.includes('xsi:nil') && !xml.includes('xmlns:xsi=');
  const parser = new SaxesParser({ xmlns: true, additionalNamespaces: { xsi: XSI } });
  const root: Node = { name: '#root', nil: false, text: '', children: [] };
  const stack: Node[] = [root];
  let envelope = '';
  parser.on('opentag', (tag) => {
    if (tag.local === 'Envelope' && !envelope) envelope = tag.uri;
    const nilAttr = Object.values(tag.attributes).find(
      (a) => typeof a === 'object' && a.local === 'nil' && a.uri === XSI,
    );
    const node: Node = {
      name: tag.local ?? tag.name,
      nil: typeof nilAttr === 'object' && (nilAttr.value === 'true' || nilAttr.value === '1'),
      text: '',
      children: [],
    };
    stack.at(-1)!.children.push(node);
    stack.push(node);
  });
  parser.on('text', (text) => {
    stack.at(-1)!.text += text;
  });
  parser.on('closetag', () => {
    stack.pop();
  });
  parser.write(xml).close();
  const find = (node: Node, name: string): Node | undefined =>
    node.name === name ? node : node.children.map((c) => find(c, name)).find((n) => n !== undefined);
  const body = find(root, 'Body');
  const render = (node: Node): string => {
    if (node.nil) return `${node.name}=nil`;
    if (node.children.length > 0) return `${node.name}(${node.children.map(render).join(',')})`;
    return `${node.name}=${JSON.stringify(node.text)}`;
  };
  return { envelope, body: body ? body.children.map(render).join(',') : '', undeclaredXsi };
}

/** undefined when the peer's answer carries our values; else where they first differ. */
export function sameValues(ours: Captured, peer: Captured): string | undefined {
  if (peer.status !== ours.status)
    return `peer answered ${peer.status}: ${peer.body.toString('utf8').slice(0, 300)}`;
  const a = soapValues(ours.body.toString('utf8'));
  const b = soapValues(peer.body.toString('utf8'));
  if (a.envelope !== b.envelope) return `envelope ${b.envelope}, ours ${a.envelope}`;
  if (a.body === b.body) return undefined;
  let i = 0;
  while (i < a.body.length && a.body[i] === b.body[i]) i++;
  return `values differ at ${i}: ours …${a.body.slice(Math.max(0, i - 80), i + 80)}… peer …${b.body.slice(Math.max(0, i - 80), i + 80)}…`;
}
