/**
 * Renders a catalogue error for the binding that received the request: a SOAP 1.1
 * fault, a SOAP 1.2 fault (shaped as the original's, reference/README.md §5), or an
 * HTTP status with a small XML body. Only the catalogue message reaches the client.
 */
import { ERRORS, type ErrorCode, type ScoopError } from '../contract/errors.ts';
import { escapeAttribute, escapeText } from '../xml/escape.ts';
import {
  ENVELOPE_END,
  envelopeStart,
  SOAP_CONTENT_TYPE,
  SOAP11_ENVELOPE_NS,
  SOAP12_ENVELOPE_NS,
  type SoapVersion,
  XML_DECLARATION,
} from './namespaces.ts';

export interface RenderedError {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

type FaultKind = 'Client' | 'Server' | 'MustUnderstand' | 'VersionMismatch';

function faultKind(code: ErrorCode): FaultKind {
  if (code === 'MUST_UNDERSTAND') return 'MustUnderstand';
  if (code === 'NOT_SOAP' || code === 'SOAP_VERSION_MISMATCH') return 'VersionMismatch';
  return ERRORS[code].side === 'client' ? 'Client' : 'Server';
}

/** SOAP 1.2 part 1 §5.4.6 fault codes; SOAP 1.1 §4.4.1 names Client/Server. */
const SOAP12_CODES: Record<FaultKind, string> = {
  Client: 'soap:Sender',
  Server: 'soap:Receiver',
  MustUnderstand: 'soap:MustUnderstand',
  VersionMismatch: 'soap:VersionMismatch',
};

/** SOAP 1.2 part 1 §5.4.7: a VersionMismatch fault carries an Upgrade header listing what we accept. */
const UPGRADE_HEADER =
  `<soap:Header><soap12:Upgrade xmlns:soap12="${SOAP12_ENVELOPE_NS}">` +
  `<soap12:SupportedEnvelope qname="soap12:Envelope" />` +
  `<soap12:SupportedEnvelope qname="soap11:Envelope" xmlns:soap11="${SOAP11_ENVELOPE_NS}" />` +
  `</soap12:Upgrade></soap:Header>`;

/**
 * SOAP 1.2 part 1 §5.4.8: one NotUnderstood header block per header that was not understood.
 * A header in no namespace gets an unprefixed qname: no default namespace is in scope here,
 * and `xmlns:h0=""` is not allowed in XML 1.0 (Namespaces in XML 1.0 §3, NSC: No Prefix Undeclaring).
 */
function notUnderstoodHeader(error: ScoopError): string {
  const blocks = error.notUnderstood.map((q, i) => {
    const local = escapeAttribute(q.local);
    if (q.uri === '') return `<soap:NotUnderstood qname="${local}" />`;
    const prefix = `h${i}`;
    return `<soap:NotUnderstood qname="${prefix}:${local}" xmlns:${prefix}="${escapeAttribute(q.uri)}" />`;
  });
  return `<soap:Header>${blocks.join('')}</soap:Header>`;
}

function codeDetail(error: ScoopError, namespace: string, version: SoapVersion): string {
  const element = `<errorCode xmlns="${escapeAttribute(namespace)}">${error.code}</errorCode>`;
  return version === '1.1' ? `<detail>${element}</detail>` : `<soap:Detail>${element}</soap:Detail>`;
}

export function renderSoapFault(error: ScoopError, version: SoapVersion, namespace: string): RenderedError {
  const kind = faultKind(error.code);
  // A VersionMismatch answers in the envelope version the client spoke, which for a
  // SOAP 1.1 envelope sent as application/soap+xml is 1.1.
  const v: SoapVersion = error.code === 'SOAP_VERSION_MISMATCH' ? '1.1' : version;
  const message = escapeText(error.message);
  let header = '';
  if (kind === 'VersionMismatch') header = UPGRADE_HEADER;
  else if (kind === 'MustUnderstand' && v === '1.2') header = notUnderstoodHeader(error);
  // SOAP 1.1 §4.4: detail carries Body-related information only, so none for header faults.
  const detail = kind === 'MustUnderstand' ? '' : codeDetail(error, namespace, v);
  const fault =
    v === '1.1'
      ? `<faultcode>soap:${kind}</faultcode><faultstring>${message}</faultstring>${detail}`
      : `<soap:Code><soap:Value>${SOAP12_CODES[kind]}</soap:Value></soap:Code>` +
        `<soap:Reason><soap:Text xml:lang="en">${message}</soap:Text></soap:Reason>${detail}`;
  const xml = `${envelopeStart(v)}${header}<soap:Body><soap:Fault>${fault}</soap:Fault></soap:Body>${ENVELOPE_END}`;
  return {
    // WS-I Basic Profile 1.1 R1126: a SOAP fault is sent with HTTP 500.
    status: 500,
    contentType: SOAP_CONTENT_TYPE[v],
    body: Buffer.from(xml, 'utf8'),
    headers: {},
  };
}

export function renderHttpError(error: ScoopError, namespace: string): RenderedError {
  const xml =
    `${XML_DECLARATION}\n<error xmlns="${escapeAttribute(namespace)}">\n` +
    `  <code>${error.code}</code>\n  <message>${escapeText(error.message)}</message>\n</error>`;
  const headers: Record<string, string> = {};
  // RFC 6750 §3: a 401 names the Bearer scheme.
  if (error.code === 'AUTH_FAILED') headers['www-authenticate'] = 'Bearer realm="scoop"';
  return {
    status: error.spec.status,
    contentType: 'text/xml; charset=utf-8',
    body: Buffer.from(xml, 'utf8'),
    headers,
  };
}
