/**
 * Sample messages for the help pages, derived from the contract and laid out as the
 * original's help pages lay them out (test/fixtures/reference/help, compared by
 * samples.test.ts): placeholders instead of values — in XML the XSD type name (`int`,
 * `boolean`, `base64Binary`, `string`; types derived from string, such as the token's
 * `guid` and the `resizeMode` enumeration, show as `string`), in HTTP GET/POST parameters
 * `string` for every value and `StringArray` for a list; `string` for `Host` and
 * `Content-Length`. Lists show two items and `einrichtung` is expanded. The differences
 * from the original's pages are listed in docs/wsdl.md.
 */
import type { Operation } from '../contract/operations.ts';
import type { Field, ValueType } from '../contract/schema.ts';
import { wsAuthHeader } from '../contract/types.ts';
import { wsdlDescriptions } from '../protocol/binding.ts';
import { BINDINGS } from '../protocol/bindings/registry.ts';
import {
  SOAP11_ENVELOPE_NS,
  SOAP12_ENVELOPE_NS,
  type SoapVersion,
  XSD_NS,
  XSI_NS,
} from '../protocol/namespaces.ts';

const PLACEHOLDER = 'string';
/** The XSD built-in types; a scalar of another name (`guid`) is a restriction of string. */
const XSD_BUILT_INS = new Set(['int', 'string', 'boolean', 'base64Binary']);

function placeholder(type: ValueType): string {
  return type.kind === 'scalar' && XSD_BUILT_INS.has(type.name) ? type.name : PLACEHOLDER;
}

function fieldLines(fields: readonly Field[], depth: number, out: string[]): void {
  for (const f of fields) valueLines(f.name, f.type, depth, out);
}

function valueLines(name: string, type: ValueType, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  if (type.kind === 'complex') {
    out.push(`${pad}<${name}>`);
    fieldLines(type.fields, depth + 1, out);
    out.push(`${pad}</${name}>`);
  } else if (type.kind === 'array') {
    out.push(`${pad}<${name}>`);
    valueLines(type.itemName, type.item, depth + 1, out);
    valueLines(type.itemName, type.item, depth + 1, out);
    out.push(`${pad}</${name}>`);
  } else {
    out.push(`${pad}<${name}>${placeholder(type)}</${name}>`);
  }
}

/** `<name xmlns="…">` with its fields, or `<name xmlns="…"/>` when it has none. */
function elementLines(
  name: string,
  namespace: string,
  fields: readonly Field[],
  depth: number,
  attributes = '',
): string[] {
  const pad = '  '.repeat(depth);
  const open = `${pad}<${name}${attributes} xmlns="${namespace}"`;
  if (fields.length === 0) return [`${open}/>`];
  const out = [`${open}>`];
  fieldLines(fields, depth + 1, out);
  out.push(`${pad}</${name}>`);
  return out;
}

function envelope(version: SoapVersion, header: string[], body: string[]): string {
  const [prefix, ns] = version === '1.1' ? ['soap', SOAP11_ENVELOPE_NS] : ['soap12', SOAP12_ENVELOPE_NS];
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<${prefix}:Envelope xmlns:xsi="${XSI_NS}"`,
    `      xmlns:xsd="${XSD_NS}"`,
    `      xmlns:${prefix}="${ns}">`,
    ...(header.length > 0 ? [`  <${prefix}:Header>`, ...header, `  </${prefix}:Header>`] : []),
    `  <${prefix}:Body>`,
    ...body,
    `  </${prefix}:Body>`,
    `</${prefix}:Envelope>`,
  ].join('\n');
}

function httpMessage(startLine: string, headers: readonly string[], body?: string): string {
  const head = [startLine, ...headers].join('\n');
  return body === undefined ? head : `${head}\n\n${body}`;
}

/** scoop answers HTTP/1.1 (the original's front end rewrote every status line to HTTP/1.0). */
const OK = 'HTTP/1.1 200 OK';
const XML_TYPE = 'text/xml; charset=utf-8';

/** An HTTP GET/POST parameter: every value is a string, a list the original's `StringArray`. */
function formParameter(param: Field): string {
  return `${param.name}=${param.type.kind === 'array' ? 'StringArray' : PLACEHOLDER}`;
}

export interface Sample {
  readonly title: string;
  readonly request: string;
  readonly response: string;
}

export function samples(operation: Operation, namespace: string, path: string): Sample[] {
  const { name, endpoint } = operation;
  const requestBody = elementLines(name, namespace, operation.params, 2);
  const responseBody = [`    <${name}Response xmlns="${namespace}">`, `      <${name}Result>`];
  fieldLines(operation.result.fields, 4, responseBody);
  responseBody.push(`      </${name}Result>`, `    </${name}Response>`);
  // The header type has <s:anyAttribute />, which the original's pages show as this attribute.
  const header = endpoint.requiresToken
    ? elementLines(wsAuthHeader.name, namespace, wsAuthHeader.fields, 2, ' custom-attribute="value"')
    : [];
  const soap = (version: SoapVersion, type: string, action: readonly string[]): Sample => ({
    title: `SOAP ${version}`,
    request: httpMessage(
      `POST ${path}`,
      [...action, `Content-Type: ${type}; charset=utf-8`, 'Content-Length: string', 'Host: string'],
      envelope(version, header, requestBody),
    ),
    response: httpMessage(
      OK,
      [`Content-Type: ${type}; charset=utf-8`, 'Content-Length: string'],
      envelope(version, [], responseBody),
    ),
  });

  const query = operation.params.map(formParameter).join('&');
  // scoop's addition: HTTP GET/POST of scoop.asmx operations need a token (README).
  const auth = endpoint.requiresToken ? ['Authorization: Bearer string'] : [];
  const httpResponse = httpMessage(
    OK,
    [`Content-Type: ${XML_TYPE}`, 'Content-Length: string'],
    elementLines(operation.result.name, namespace, operation.result.fields, 0).join('\n'),
  );
  const get: Sample = {
    title: 'HTTP GET',
    request: httpMessage(`GET ${path}/${name}?${query}`, ['Host: string', ...auth]),
    response: httpResponse,
  };
  const post: Sample = {
    title: 'HTTP POST',
    request: httpMessage(
      `POST ${path}/${name}`,
      ['Content-Type: application/x-www-form-urlencoded', 'Content-Length: string', 'Host: string', ...auth],
      query,
    ),
    response: httpResponse,
  };
  // One sample per registered binding, in the registry's order.
  return wsdlDescriptions(BINDINGS).map((d): Sample => {
    switch (d.style) {
      case 'http':
        return d.verb === 'GET' ? get : post;
      case 'soap':
        return d.version === '1.1'
          ? soap('1.1', 'text/xml', [`SOAPAction: ${namespace}/${name}`])
          : soap('1.2', 'application/soap+xml', []);
      default:
        return unknownStyle(d);
    }
  });
}

/** A new style of binding must say what its help sample is (this fails to compile until it does). */
function unknownStyle(description: never): never {
  throw new Error(`no help sample for the binding style of ${JSON.stringify(description)}`);
}
