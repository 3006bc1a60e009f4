/**
 * Building the hostile corpus's requests (test/hostile/): raw HTTP/1.1 bytes, SOAP
 * envelopes of either version, and the payloads several themes share.
 */
import { REFERENCE_TOKEN } from './fixture-server.ts';

export const NS = 'http://scoop.example.org/api';
export const SOAP11_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const SOAP12_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';
export const TOKEN = REFERENCE_TOKEN;
export const PUBLIC = '/scoop/api/v6/public.asmx';
export const V5 = '/scoop/api/v5/scoop.asmx';
export const V6 = '/scoop/api/v6/scoop.asmx';
export const V7 = '/scoop/api/v7/scoop.asmx';
export const FORM = 'application/x-www-form-urlencoded';
export const XML11 = 'text/xml; charset=utf-8';
export const XML12 = 'application/soap+xml; charset=utf-8';
export const MIB = 1024 * 1024;

export function bytes(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : p)));
}

export function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

export function head(requestLine: string, headers: readonly string[]): string {
  return `${requestLine}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`;
}

export function get(target: string, headers: readonly string[] = [], method = 'GET'): Buffer {
  return bytes(head(`${method} ${target} HTTP/1.1`, ['Host: localhost', ...headers, 'Connection: close']));
}

export function post(
  target: string,
  contentType: string | undefined,
  body: Buffer | string,
  headers: readonly string[] = [],
): Buffer {
  const payload = typeof body === 'string' ? utf8(body) : body;
  const type = contentType === undefined ? [] : [`Content-Type: ${contentType}`];
  return bytes(
    head(`POST ${target} HTTP/1.1`, [
      'Host: localhost',
      ...type,
      ...headers,
      `Content-Length: ${payload.length}`,
      'Connection: close',
    ]),
    payload,
  );
}

export function op(name: string, params = '', attributes = ''): string {
  return `<${name} xmlns="${NS}"${attributes}>${params}</${name}>`;
}

export const AUTH = `<wsAuthHeader xmlns="${NS}"><token>${TOKEN}</token></wsAuthHeader>`;

export function envelope(version: '1.1' | '1.2', body: string, header?: string, prolog = ''): string {
  const ns = version === '1.1' ? SOAP11_NS : SOAP12_NS;
  const h = header === undefined ? '' : `<soap:Header>${header}</soap:Header>`;
  return `<?xml version="1.0" encoding="utf-8"?>${prolog}<soap:Envelope xmlns:soap="${ns}" xmlns:xsi="${XSI_NS}">${h}<soap:Body>${body}</soap:Body></soap:Envelope>`;
}

export function soap11(path: string, xml: string | Buffer, headers: readonly string[] = []): Buffer {
  return post(path, XML11, xml, headers);
}

export function soap12(path: string, xml: string | Buffer, headers: readonly string[] = []): Buffer {
  return post(path, XML12, xml, headers);
}

export const bereich11 = (params: string, header?: string) =>
  envelope('1.1', op('getBereich', params), header);
export const bereich12 = (params: string, header?: string) =>
  envelope('1.2', op('getBereich', params), header);
export const VALID11 = bereich11('<bereichID>1</bereichID>');
export const VALID12 = bereich12('<bereichID>1</bereichID>');
