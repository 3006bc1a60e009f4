/**
 * What an answer other than a success says, read the same way whichever service sent it
 * and over whichever binding: a SOAP 1.1 or 1.2 fault, scoop's HTTP error body
 * (docs/errors.md), the original's `text/plain` HTTP error, or anything else (an HTML
 * page, a proxy's 502).
 *
 * "Unknown id" is one refusal, recognised in the two forms services of this wire send
 * and no other (reference/README.md §5, §6; docs/errors.md): the message
 * `Unknown bereichID: 999` — scoop's UNKNOWN_ID, and the original with customErrors On
 * or for a remote client — or the original's stack trace that starts
 * `System.Web.Services.Protocols.SoapException: Unknown bereichID: 999` (customErrors
 * RemoteOnly seen from the server itself, or Off).
 */
import { ERRORS, type ErrorCode, type FaultSide } from '../contract/errors.ts';
import { SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS } from '../protocol/namespaces.ts';
import { XmlSyntaxError, XmlTokenizer } from './xml-tokenizer.ts';

/** An element of a small answer, as much of it as a refusal is read from. */
interface XmlElement {
  readonly uri: string;
  readonly local: string;
  readonly children: XmlElement[];
  text: string;
}

/** Bounds on a refusal's XML (it is read whole, at most 1 MiB of it). */
const MAX_DEPTH = 64;
const MAX_ELEMENTS = 100_000;

/** The document's root element, built with the tokenizer the harvest reads answers with. */
function parseXml(body: string): XmlElement {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let count = 0;
  const tokenizer = new XmlTokenizer({
    open(uri, local) {
      if (stack.length >= MAX_DEPTH || ++count > MAX_ELEMENTS)
        throw new XmlSyntaxError('too deep or too large');
      const element: XmlElement = { uri, local, children: [], text: '' };
      stack[stack.length - 1]?.children.push(element);
      root ??= element;
      stack.push(element);
      return false;
    },
    text(text) {
      stack[stack.length - 1]!.text += text;
    },
    raw() {},
    close() {
      stack.pop();
    },
  });
  tokenizer.write(body);
  tokenizer.close();
  return root!;
}

function childElements(element: XmlElement, uri: string, local: string): XmlElement[] {
  return element.children.filter((c) => c.uri === uri && c.local === local);
}

export interface UnknownId {
  readonly kind: 'unknown-id';
  /** The parameter the service named, e.g. `bereichID`, and the id it says it does not know. */
  readonly parameter: string;
  readonly id: number;
  readonly message: string;
}

export interface Fault {
  readonly kind: 'fault';
  /**
   * Whose fault the service says it is: `client` (soap:Client, soap:Sender, or an HTTP 4xx
   * error body) — sending the same request again gets the same answer; `server`
   * (soap:Server, soap:Receiver, 5xx) — it may not; `protocol` for MustUnderstand and
   * VersionMismatch.
   */
  readonly side: FaultSide | 'protocol';
  /** scoop's catalogue code (its `errorCode` detail or `<code>`), when the service sent one. */
  readonly code: string | undefined;
  /** The fault string, or the first line of it: the original's stack traces are long. */
  readonly message: string;
}

/** An answer that is neither a success nor a fault of this wire: an HTML page, a proxy's error, an empty body. */
export interface OtherAnswer {
  readonly kind: 'other';
  readonly status: number;
  readonly contentType: string;
  /** What it holds, briefly: an HTML page's title, the first line of text. */
  readonly summary: string;
}

export type Refusal = UnknownId | Fault | OtherAnswer;

const UNKNOWN = /^Unknown (\w+): (-?\d+)$/;
const UNKNOWN_TRACE = /^System\.Web\.Services\.Protocols\.SoapException: Unknown (\w+): (-?\d+)\r?\n/;

/** The parameter and id of an "unknown id" message in one of its two forms, else undefined. */
export function unknownIdIn(message: string): { parameter: string; id: number } | undefined {
  const m = UNKNOWN.exec(message.replace(/\r?\n$/, '')) ?? UNKNOWN_TRACE.exec(message);
  return m ? { parameter: m[1]!, id: Number(m[2]) } : undefined;
}

function firstLine(text: string): string {
  const line = text.trim().split(/\r?\n/, 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function localName(qname: string): string {
  const local = qname.trim().slice(qname.indexOf(':') + 1);
  // SOAP 1.1 §4.4.1: `Client.Authentication` is a more specific Client.
  return local.split('.')[0]!;
}

function sideOf(code: string): Fault['side'] {
  const name = localName(code);
  if (name === 'Client' || name === 'Sender') return 'client';
  if (name === 'Server' || name === 'Receiver') return 'server';
  return 'protocol';
}

function text(element: XmlElement | undefined): string {
  return element?.text ?? '';
}

function errorCodeIn(detail: XmlElement | undefined): string | undefined {
  const code = detail?.children.find((c) => c.local === 'errorCode');
  return code ? code.text.trim() : undefined;
}

function fault(side: Fault['side'], code: string | undefined, message: string): Fault | UnknownId {
  const unknown =
    side === 'client' && (code === undefined || code === 'UNKNOWN_ID') ? unknownIdIn(message) : undefined;
  if (unknown) return { kind: 'unknown-id', ...unknown, message: firstLine(message) };
  return { kind: 'fault', side, code, message: firstLine(message) };
}

function soapFault(envelope: XmlElement): Fault | UnknownId | undefined {
  const ns = envelope.uri;
  const body = childElements(envelope, ns, 'Body')[0];
  const f = body && childElements(body, ns, 'Fault')[0];
  if (!f) return undefined;
  if (ns === SOAP11_ENVELOPE_NS) {
    const code = f.children.find((c) => c.local === 'faultcode');
    const detail = f.children.find((c) => c.local === 'detail');
    return fault(
      sideOf(text(code)),
      errorCodeIn(detail),
      text(f.children.find((c) => c.local === 'faultstring')),
    );
  }
  const value = childElements(f, ns, 'Code')[0];
  const reason = childElements(f, ns, 'Reason')[0];
  return fault(
    sideOf(text(value && childElements(value, ns, 'Value')[0])),
    errorCodeIn(childElements(f, ns, 'Detail')[0]),
    text(reason && childElements(reason, ns, 'Text')[0]),
  );
}

function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERRORS, code);
}

/** scoop's HTTP error body: `<error><code>UNKNOWN_ID</code><message>…</message></error>`. */
function scoopError(root: XmlElement, status: number): Fault | UnknownId | undefined {
  if (root.local !== 'error') return undefined;
  const code = root.children.find((c) => c.local === 'code')?.text.trim();
  const message = root.children.find((c) => c.local === 'message')?.text ?? '';
  if (code === undefined) return undefined;
  const known = isErrorCode(code) ? ERRORS[code].side : undefined;
  return fault(known ?? (status < 500 ? 'client' : 'server'), code, message);
}

function summaryOf(body: string, contentType: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body)?.[1]?.trim();
  if (title) return `an HTML page titled ${JSON.stringify(title.slice(0, 120))}`;
  if (body.trim() === '') return 'an empty body';
  const kind = contentType ? contentType.split(';')[0]!.trim() : 'no content type';
  return `${kind}: ${JSON.stringify(firstLine(body).slice(0, 120))}`;
}

/** Reads an answer that is not a success (or not the success expected). */
export function readRefusal(status: number, contentType: string, body: string): Refusal {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  if (media.endsWith('xml')) {
    try {
      const root = parseXml(body);
      if ((root.uri === SOAP11_ENVELOPE_NS || root.uri === SOAP12_ENVELOPE_NS) && root.local === 'Envelope') {
        const found = soapFault(root);
        if (found) return found;
      } else {
        const found = scoopError(root, status);
        if (found) return found;
      }
    } catch {
      // Not XML after all: described below.
    }
  }
  // The original's HTTP GET/POST errors: 500 text/plain, the fault string and a newline (reference §6).
  if (media === 'text/plain' && status === 500) return fault('client', undefined, body);
  return { kind: 'other', status, contentType, summary: summaryOf(body, contentType) };
}

/** One line describing a refusal, for messages. */
export function describeRefusal(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'unknown-id':
      return refusal.message;
    case 'fault':
      return refusal.code ? `${refusal.code}: ${refusal.message}` : refusal.message;
    case 'other':
      return `HTTP ${refusal.status}, ${refusal.summary}`;
  }
}
