/**
 * Sample messages for the help pages, derived from the contract: each value shows its
 * XSD type name as a placeholder (`int`, `string`, `base64Binary`), lists show two items
 * and `einrichtung` is expanded, as the original's help pages do.
 */
import type { Operation } from '../contract/operations.ts';
import type { Field, ValueType } from '../contract/schema.ts';
import { wsAuthHeader } from '../contract/types.ts';
import { SOAP11_ENVELOPE_NS, SOAP12_ENVELOPE_NS, XSD_NS, XSI_NS } from '../protocol/namespaces.ts';

function placeholder(type: ValueType): string {
  return type.kind === 'scalar' ? type.name : 'string';
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

function envelope(version: '1.1' | '1.2', header: string[], body: string[]): string {
  const [prefix, ns] = version === '1.1' ? ['soap', SOAP11_ENVELOPE_NS] : ['soap12', SOAP12_ENVELOPE_NS];
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<${prefix}:Envelope xmlns:xsi="${XSI_NS}" xmlns:xsd="${XSD_NS}" xmlns:${prefix}="${ns}">`,
    ...(header.length > 0 ? [`  <${prefix}:Header>`, ...header, `  </${prefix}:Header>`] : []),
    `  <${prefix}:Body>`,
    ...body,
    `  </${prefix}:Body>`,
    `</${prefix}:Envelope>`,
  ].join('\n');
}

export interface Sample {
  readonly title: string;
  readonly request: string;
  readonly response: string;
}

export function samples(operation: Operation, namespace: string, path: string): Sample[] {
  const requestBody: string[] = [`    <${operation.name} xmlns="${namespace}">`];
  fieldLines(operation.params, 3, requestBody);
  requestBody.push(`    </${operation.name}>`);
  const responseBody: string[] = [
    `    <${operation.name}Response xmlns="${namespace}">`,
    `      <${operation.name}Result>`,
  ];
  fieldLines(operation.result.fields, 4, responseBody);
  responseBody.push(`      </${operation.name}Result>`, `    </${operation.name}Response>`);
  const header: string[] = [];
  if (operation.endpoint.requiresToken) {
    header.push(`    <wsAuthHeader xmlns="${namespace}">`);
    fieldLines(wsAuthHeader.fields, 3, header);
    header.push('    </wsAuthHeader>');
  }
  const httpResult: string[] = [`<${operation.result.name} xmlns="${namespace}">`];
  fieldLines(operation.result.fields, 1, httpResult);
  httpResult.push(`</${operation.result.name}>`);
  const httpResponse = `HTTP/1.1 200 OK\nContent-Type: text/xml; charset=utf-8\nContent-Length: length\n\n<?xml version="1.0" encoding="utf-8"?>\n${httpResult.join('\n')}`;
  const query = operation.params
    .map((p) => `${p.name}=${placeholder(p.type.kind === 'array' ? p.type.item : p.type)}`)
    .join('&');
  const auth = operation.endpoint.requiresToken ? 'Authorization: Bearer guid\n' : '';
  const soapResponse = (version: '1.1' | '1.2', type: string) =>
    `HTTP/1.1 200 OK\nContent-Type: ${type}; charset=utf-8\nContent-Length: length\n\n${envelope(version, [], responseBody)}`;
  return [
    {
      title: 'SOAP 1.1',
      request: `POST ${path} HTTP/1.1\nHost: host\nContent-Type: text/xml; charset=utf-8\nContent-Length: length\nSOAPAction: "${namespace}/${operation.name}"\n\n${envelope('1.1', header, requestBody)}`,
      response: soapResponse('1.1', 'text/xml'),
    },
    {
      title: 'SOAP 1.2',
      request: `POST ${path} HTTP/1.1\nHost: host\nContent-Type: application/soap+xml; charset=utf-8\nContent-Length: length\n\n${envelope('1.2', header, requestBody)}`,
      response: soapResponse('1.2', 'application/soap+xml'),
    },
    {
      title: 'HTTP GET',
      request: `GET ${path}/${operation.name}${query ? `?${query}` : ''} HTTP/1.1\nHost: host\n${auth}`,
      response: httpResponse,
    },
    {
      title: 'HTTP POST',
      request: `POST ${path}/${operation.name} HTTP/1.1\nHost: host\n${auth}Content-Type: application/x-www-form-urlencoded\nContent-Length: length\n\n${query}`,
      response: httpResponse,
    },
  ];
}
