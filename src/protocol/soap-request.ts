/**
 * Decodes a SOAP 1.1 or 1.2 request into (operation, raw parameters, token). The SOAP
 * version is read from each request's envelope namespace, never a global switch.
 */
import { ScoopError } from '../contract/errors.ts';
import { type Endpoint, findOperation, type Operation } from '../contract/operations.ts';
import { attributeValue, type XmlElement, type XmlLimits } from '../xml/reader.ts';
import { quote, type RawParameters } from './coerce.ts';
import { decodeBody, type MediaType } from './content-type.ts';
import {
  SOAP11_ACTOR_NEXT,
  SOAP11_ENVELOPE_NS,
  SOAP12_ENVELOPE_NS,
  SOAP12_ROLE_NEXT,
  SOAP12_ROLE_ULTIMATE_RECEIVER,
  type SoapVersion,
  XSI_NS,
} from './namespaces.ts';
import { readRequestXml } from './request-xml.ts';

export const SOAP11_MEDIA_TYPE = 'text/xml';
export const SOAP12_MEDIA_TYPE = 'application/soap+xml';

export interface SoapRequest {
  readonly version: SoapVersion;
  readonly operation: Operation;
  readonly parameters: RawParameters;
  /** The text of `wsAuthHeader/token`, if the header was sent. */
  readonly token: string | undefined;
}

export interface SoapInput {
  readonly endpoint: Endpoint;
  readonly namespace: string;
  readonly mediaType: MediaType;
  /** The SOAPAction HTTP header as received (SOAP 1.1 §6.1.1). */
  readonly soapAction: string | undefined;
  readonly body: Uint8Array;
  readonly limits: XmlLimits;
}

/** The SOAP version a fault should use before the envelope is known: by Content-Type. */
export function versionByMediaType(mediaType: MediaType | undefined): SoapVersion {
  return mediaType?.essence === SOAP12_MEDIA_TYPE ? '1.2' : '1.1';
}

export function isSoapMediaType(mediaType: MediaType | undefined): boolean {
  return mediaType?.essence === SOAP11_MEDIA_TYPE || mediaType?.essence === SOAP12_MEDIA_TYPE;
}

function envelopeVersion(root: XmlElement): SoapVersion | undefined {
  if (root.local !== 'Envelope') return undefined;
  if (root.uri === SOAP11_ENVELOPE_NS) return '1.1';
  if (root.uri === SOAP12_ENVELOPE_NS) return '1.2';
  return undefined;
}

function isTrue(value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.trim();
  // SOAP 1.2 part 1 §5.2.3 is xs:boolean. SOAP 1.1 §4.2.3 allows only "1"/"0", but clients
  // send "true" there too; reading it as "0" would silently ignore a header they insisted on.
  return v === '1' || v === 'true';
}

/** SOAP 1.1 §4.2.2 actor / SOAP 1.2 part 1 §5.2.2 role: is this header block meant for us? */
function targetsUs(block: XmlElement, version: SoapVersion): boolean {
  if (version === '1.1') {
    const actor = attributeValue(block, SOAP11_ENVELOPE_NS, 'actor');
    return actor === undefined || actor.trim() === SOAP11_ACTOR_NEXT;
  }
  const role = attributeValue(block, SOAP12_ENVELOPE_NS, 'role');
  if (role === undefined) return true;
  const r = role.trim();
  return r === '' || r === SOAP12_ROLE_NEXT || r === SOAP12_ROLE_ULTIMATE_RECEIVER;
}

function readToken(headers: XmlElement[], namespace: string): string | undefined {
  const auth = headers.filter((h) => h.uri === namespace && h.local === 'wsAuthHeader');
  if (auth.length === 0) return undefined;
  if (auth.length > 1)
    throw new ScoopError('DUPLICATE_HEADER', 'The wsAuthHeader SOAP header was sent more than once.');
  const tokens = auth[0]!.children.filter((c) => c.uri === namespace && c.local === 'token');
  if (tokens.length > 1)
    throw new ScoopError('DUPLICATE_HEADER', 'The wsAuthHeader holds more than one token.');
  return tokens[0]?.text ?? '';
}

/** SOAP 1.2 part 1 §2.6 / SOAP 1.1 §4.2.3: mandatory headers are checked before the body is processed. */
function checkMustUnderstand(headers: XmlElement[], version: SoapVersion, namespace: string): void {
  const envelopeNs = version === '1.1' ? SOAP11_ENVELOPE_NS : SOAP12_ENVELOPE_NS;
  const notUnderstood = headers.filter(
    (h) =>
      !(h.uri === namespace && h.local === 'wsAuthHeader') &&
      targetsUs(h, version) &&
      isTrue(attributeValue(h, envelopeNs, 'mustUnderstand')),
  );
  if (notUnderstood.length > 0) {
    const first = notUnderstood[0]!;
    throw new ScoopError(
      'MUST_UNDERSTAND',
      `SOAP header ${first.uri ? `{${first.uri}}` : ''}${first.local} was not understood.`,
      { notUnderstood: notUnderstood.map((h) => ({ uri: h.uri, local: h.local, prefix: h.prefix })) },
    );
  }
}

function envelopeParts(
  envelope: XmlElement,
  version: SoapVersion,
): { header?: XmlElement; body: XmlElement } {
  const ns = envelope.uri;
  let header: XmlElement | undefined;
  let body: XmlElement | undefined;
  for (const child of envelope.children) {
    const isEnv = child.uri === ns;
    if (isEnv && child.local === 'Header') {
      if (header) throw new ScoopError('DUPLICATE_HEADER', 'The envelope holds more than one Header.');
      if (body) throw new ScoopError('INVALID_ENVELOPE', 'The SOAP Header must come before the Body.');
      header = child;
    } else if (isEnv && child.local === 'Body') {
      if (body) throw new ScoopError('INVALID_ENVELOPE', 'The envelope holds more than one Body.');
      body = child;
    } else if (version === '1.2' || !body) {
      // SOAP 1.2 part 1 §5.1: Header? then Body, nothing else. SOAP 1.1 §4.1.1 allows trailers after Body.
      throw new ScoopError('INVALID_ENVELOPE', `Unexpected element ${child.local} in the SOAP Envelope.`);
    }
  }
  if (!body) throw new ScoopError('INVALID_ENVELOPE', 'The SOAP envelope has no Body.');
  return header ? { header, body } : { body };
}

/** XML Schema part 1 §2.6.2: xsi:nil is an xs:boolean, so "1" means nil as well as "true". */
function isNil(element: XmlElement): boolean {
  const nil = attributeValue(element, XSI_NS, 'nil')?.trim();
  return nil === 'true' || nil === '1';
}

/**
 * Every parameter is a single element (maxOccurs 1 in the contract's schema), so a second
 * occurrence is refused — an `xsi:nil` one too: which of two a client meant is a guess.
 */
function readParameters(element: XmlElement, operation: Operation, namespace: string): RawParameters {
  const raw = new Map<string, string[]>();
  for (const param of operation.params) {
    const occurrences = element.children.filter((c) => c.uri === namespace && c.local === param.name);
    if (occurrences.length > 1) {
      throw new ScoopError('DUPLICATE_PARAMETER', `Parameter ${param.name} was given more than once.`);
    }
    const present = occurrences[0];
    if (present === undefined || isNil(present)) {
      if (param.type.kind === 'array') raw.set(param.name, []);
      continue;
    }
    if (param.type.kind === 'array') {
      const itemName = param.type.itemName;
      raw.set(
        param.name,
        present.children.filter((c) => c.uri === namespace && c.local === itemName).map((i) => i.text),
      );
    } else {
      raw.set(param.name, [present.text]);
    }
  }
  return raw;
}

/** SOAP 1.1 §6.1.1: the SOAPAction value is a URI, optionally quoted; "" means "the request URI". */
function declaredAction(action: string | undefined): string | undefined {
  if (action === undefined) return undefined;
  let value = action.trim();
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1).trim();
  return value === '' ? undefined : value;
}

export function decodeSoapRequest(input: SoapInput): SoapRequest {
  const text = decodeBody(input.body, input.mediaType);
  if (text.trim() === '')
    throw new ScoopError('EMPTY_BODY', 'The request body is empty; a SOAP envelope is required.');
  const document = readRequestXml(text, input.limits);
  // SOAP 1.2 part 1 §5: a SOAP message MUST NOT contain processing instructions (SOAP 1.1 §3 likewise).
  if (document.hasProcessingInstruction) {
    throw new ScoopError(
      'PROCESSING_INSTRUCTION',
      'A SOAP message must not contain processing instructions.',
    );
  }
  const envelope = document.root;
  const version = envelopeVersion(envelope);
  if (!version) {
    throw new ScoopError(
      'NOT_SOAP',
      `The root element {${envelope.uri}}${envelope.local} is not a SOAP 1.1 or SOAP 1.2 Envelope.`,
    );
  }
  // A SOAP 1.2 envelope sent as text/xml is answered as SOAP 1.2, as the original does;
  // the other way round is refused (SOAP 1.2 part 1 §5.4.7, appendix A).
  if (version === '1.1' && input.mediaType.essence === SOAP12_MEDIA_TYPE) {
    throw new ScoopError(
      'SOAP_VERSION_MISMATCH',
      'A SOAP 1.1 envelope was sent as application/soap+xml; send it as text/xml.',
    );
  }
  const { header, body } = envelopeParts(envelope, version);
  const headers = header?.children ?? [];
  checkMustUnderstand(headers, version, input.namespace);
  const token = readToken(headers, input.namespace);

  if (body.children.length === 0) {
    throw new ScoopError('UNKNOWN_OPERATION', 'The SOAP Body holds no operation element.');
  }
  if (body.children.length > 1) {
    throw new ScoopError('INVALID_ENVELOPE', 'The SOAP Body must hold exactly one operation element.');
  }
  const call = body.children[0]!;
  const operation = call.uri === input.namespace ? findOperation(input.endpoint, call.local) : undefined;
  if (!operation) {
    throw new ScoopError(
      'UNKNOWN_OPERATION',
      `The operation {${call.uri}}${call.local} is not offered at ${input.endpoint.path}.`,
    );
  }

  const declared =
    input.mediaType.essence === SOAP12_MEDIA_TYPE ? input.mediaType.params.get('action') : input.soapAction;
  const action = declaredAction(declared);
  const expected = `${input.namespace}/${operation.name}`;
  if (action !== undefined && action !== expected) {
    throw new ScoopError(
      'SOAP_ACTION_MISMATCH',
      `The SOAP action ${quote(action)} does not match the operation in the body, ${operation.name} (its action is ${quote(expected)}).`,
    );
  }
  return { version, operation, parameters: readParameters(call, operation, input.namespace), token };
}
