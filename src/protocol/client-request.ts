/**
 * The client side of the four bindings: the request a client sends to call an operation,
 * derived from the contract as the help pages' samples are (service-spec.md 4.2, 4.3).
 * Used by the tools that call a running service — scoop's own or the original — through
 * its public wire (harvest, compare, shadow), never by the server.
 *
 * The token goes where each binding carries it: the `wsAuthHeader` SOAP header, and an
 * `Authorization: Bearer` header on HTTP GET and POST (never in a URL). It is sent only to
 * the operations of an endpoint that requires one.
 */
import type { Operation } from '../contract/operations.ts';
import type { Field, ValueType } from '../contract/schema.ts';
import { escapeText } from '../xml/escape.ts';
import type { BindingName } from './binding.ts';
import { encodeJsonRequest } from './json/client-request.ts';
import { SOAP_CONTENT_TYPE, SOAP_ENVELOPE_NS, type SoapVersion, XML_DECLARATION } from './namespaces.ts';

export interface ClientRequest {
  readonly method: 'GET' | 'HEAD' | 'POST';
  /** Path and query, relative to the service's base URL (which may have a path of its own). */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** UTF-8; empty for GET. */
  readonly body: string;
}

export interface RequestOptions {
  /** The service's XML namespace (`SCOOP_NAMESPACE` on scoop, the `[WebService(Namespace)]` of the original). */
  readonly namespace: string;
  readonly token?: string | undefined;
}

/**
 * The values to send, by parameter name: coerced arguments, or any value to be sent as its
 * text (`scoop compare --requests` sends `bereichID=abc` to see both services refuse it).
 */
export type ClientArguments = Readonly<Record<string, unknown>>;

const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

/** `{ns}/{op}`, the SOAPAction ASMX expects (a namespace ending in `/` is not doubled). */
export function soapAction(namespace: string, operationName: string): string {
  return `${namespace.endsWith('/') ? namespace : `${namespace}/`}${operationName}`;
}

/** The request that calls `operation` with `args` over `binding`. Missing arguments are left out. */
export function encodeRequest(
  binding: BindingName,
  operation: Operation,
  args: ClientArguments,
  options: RequestOptions,
): ClientRequest {
  const token = operation.endpoint.requiresToken ? options.token : undefined;
  switch (binding) {
    case 'soap11':
    case 'soap12':
      return soapRequest(binding === 'soap11' ? '1.1' : '1.2', operation, args, options.namespace, token);
    case 'httpget':
    case 'httppost':
      return httpRequest(binding, operation, args, token);
    case 'json':
      return encodeJsonRequest(operation, args, options.token);
  }
}

function soapRequest(
  version: SoapVersion,
  operation: Operation,
  args: ClientArguments,
  namespace: string,
  token: string | undefined,
): ClientRequest {
  const action = soapAction(namespace, operation.name);
  const ns = escapeText(namespace).replace(/"/g, '&quot;');
  const header =
    token === undefined
      ? ''
      : `<soap:Header><wsAuthHeader xmlns="${ns}"><token>${escapeText(token)}</token></wsAuthHeader></soap:Header>`;
  const parameters = operation.params.map((f) => elementOf(f, args[f.name])).join('');
  const body =
    `${XML_DECLARATION}<soap:Envelope xmlns:soap="${SOAP_ENVELOPE_NS[version]}">${header}` +
    `<soap:Body><${operation.name} xmlns="${ns}">${parameters}</${operation.name}></soap:Body></soap:Envelope>`;
  // SOAP 1.1 names the action in SOAPAction (quoted, WS-I BP R2744); SOAP 1.2 in the media type's
  // `action` parameter (RFC 3902), which ASMX routes by.
  const headers: Record<string, string> =
    version === '1.1'
      ? { 'content-type': SOAP_CONTENT_TYPE['1.1'], soapaction: `"${action}"` }
      : { 'content-type': `${SOAP_CONTENT_TYPE['1.2']}; action="${action}"` };
  return { method: 'POST', path: operation.endpoint.path, headers, body };
}

function elementOf(f: Field, value: unknown): string {
  if (value === undefined || value === null) return '';
  return valueElement(f.name, f.type, value);
}

function valueElement(name: string, type: ValueType, value: unknown): string {
  if (type.kind === 'array') {
    const items = Array.isArray(value) ? value : [];
    return `<${name}>${items.map((item) => valueElement(type.itemName, type.item, item)).join('')}</${name}>`;
  }
  if (type.kind === 'complex') {
    const record = value as Readonly<Record<string, unknown>>;
    return `<${name}>${type.fields.map((f) => elementOf(f, record[f.name])).join('')}</${name}>`;
  }
  return `<${name}>${escapeText(String(value))}</${name}>`;
}

function httpRequest(
  binding: 'httpget' | 'httppost',
  operation: Operation,
  args: ClientArguments,
  token: string | undefined,
): ClientRequest {
  const pairs = new URLSearchParams();
  for (const f of operation.params) {
    const value = args[f.name];
    if (value === undefined || value === null) continue;
    // A list is its parameter repeated (`resizeModes=crop&resizeModes=fit`), as ASMX reads it.
    for (const item of Array.isArray(value) ? value : [value]) pairs.append(f.name, String(item));
  }
  const auth: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const path = `${operation.endpoint.path}/${operation.name}`;
  const form = pairs.toString();
  if (binding === 'httpget')
    return { method: 'GET', path: form ? `${path}?${form}` : path, headers: auth, body: '' };
  return { method: 'POST', path, headers: { 'content-type': FORM_CONTENT_TYPE, ...auth }, body: form };
}
