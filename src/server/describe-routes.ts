/**
 * What GET serves besides the HTTP GET binding: the index page, each endpoint's help
 * page, operation pages, WSDL (`?wsdl`, any letter case) and DISCO, and the help pages'
 * own stylesheet and script. Everything is generated from the contract at start-up.
 */

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ScoopError } from '../contract/errors.ts';
import { ENDPOINTS, type Endpoint, findOperation } from '../contract/operations.ts';
import {
  API_REFERENCE_JS,
  API_REFERENCE_PATH,
  apiReferencePage,
  imagesAsAssets,
  REFERENCE_ASSETS,
} from '../describe/api-reference.ts';
import { HELP_CSS, HELP_JS } from '../describe/assets.ts';
import { generateDisco } from '../describe/disco.ts';
import { endpointPage, indexPage, operationPage, refusalPage } from '../describe/help-pages.ts';
import { ASSET_PREFIX, HELP_CSP } from '../describe/html.ts';
import { generateOpenApi, OPENAPI_PATH } from '../describe/openapi.ts';
import { ADDRESS_PLACEHOLDER, generateWsdl } from '../describe/wsdl.ts';
import { hasTokenField, parseForm, refuseTokenInUrl } from '../protocol/http-request.ts';
import { escapeAttribute } from '../xml/escape.ts';
import type { RequestLike } from './exchange.ts';

export interface DescribeOptions {
  readonly namespace: string;
  /** Public base URL (`SCOOP_PUBLIC_URL`), without a trailing slash. */
  readonly publicUrl: string | undefined;
  /** Honour X-Forwarded-Proto / X-Forwarded-Host (`SCOOP_TRUST_PROXY`). */
  readonly trustProxy: boolean;
  /** Whether HTTP GET/POST calls of token-protected operations need a token (`SCOOP_HTTP_AUTH`). */
  readonly httpAuth: boolean;
  /** The limits the JSON API's OpenAPI document states. */
  readonly maxImageDimension: number;
  readonly maxListItems: number;
  readonly httpMaxAge: number;
}

export interface Document {
  readonly contentType: string;
  /** Text (sent as UTF-8), or bytes (a reference page image). */
  readonly body: string | Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A document generated as text: pages, WSDL, DISCO. */
export type TextDocument = Document & { readonly body: string };

const HTML = 'text/html; charset=utf-8';
const XML = 'text/xml; charset=utf-8';
/** RFC 3986 §3.2.2 host and optional port; anything else in Host is not trusted into a URL. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::\d{1,5})?$/;

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim();
}

/** What a URL is made from: the Host (or forwarded) headers, else the local address. */
type Addressed = Pick<RequestLike, 'headers' | 'socket'>;

function header(req: Addressed, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function baseUrl(req: Addressed, options: DescribeOptions): string {
  if (options.publicUrl) return options.publicUrl;
  const forwardedProto = options.trustProxy
    ? first(header(req, 'x-forwarded-proto'))?.toLowerCase()
    : undefined;
  const forwardedHost = options.trustProxy ? first(header(req, 'x-forwarded-host')) : undefined;
  const scheme = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : 'http';
  const candidate = forwardedHost ?? header(req, 'host');
  const local = req.socket.localAddress?.includes(':')
    ? `[${req.socket.localAddress}]`
    : req.socket.localAddress;
  const host =
    candidate && HOST.test(candidate) ? candidate : `${local ?? 'localhost'}:${req.socket.localPort}`;
  return `${scheme}://${host}`;
}

/** The media types an Accept header may rank against text/html (RFC 9110 §12.5.1). */
const XML_OR_ANY = new Set(['text/xml', 'application/xml', 'text/*', 'application/*', '*/*']);

/**
 * Whether the client ranks text/html above XML and any type, as a browser's navigation
 * does (text/html at q=1, application/xml at 0.9, any type at 0.8); a client that sends
 * no Accept, only the any-type range or an XML type keeps getting XML.
 */
export function prefersHtml(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : accept;
  if (!value) return false;
  let htmlQ = 0;
  let otherQ = 0;
  for (const range of value.split(',')) {
    const [media = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q >= 0 && q <= 1)) continue;
    if (media === 'text/html') htmlQ = Math.max(htmlQ, q);
    else if (XML_OR_ANY.has(media)) otherQ = Math.max(otherQ, q);
  }
  return htmlQ > otherQ;
}

/** Swagger UI's stylesheet and script, from the swagger-ui-dist package: read once, at start-up. */
function swaggerUiFiles(): { css: string; bundle: Buffer } {
  const require = createRequire(import.meta.url);
  const read = (file: string) => readFileSync(require.resolve(`swagger-ui-dist/${file}`));
  return { css: read('swagger-ui.css').toString('utf8'), bundle: read('swagger-ui-bundle.js') };
}

function html(body: string): TextDocument {
  return { contentType: HTML, body, headers: { 'content-security-policy': HELP_CSP } };
}

export function createDescribeRoutes(options: DescribeOptions) {
  const wsdl = new Map<Endpoint, string>(ENDPOINTS.map((e) => [e, generateWsdl(e, options.namespace)]));
  const endpointPages = new Map<Endpoint, string>(
    ENDPOINTS.map((e) => [e, endpointPage(e, options.httpAuth)]),
  );
  const index = indexPage(options.httpAuth);
  const openApi = JSON.stringify(
    generateOpenApi({
      maxImageDimension: options.maxImageDimension,
      maxListItems: options.maxListItems,
      publicUrl: options.publicUrl,
      httpMaxAge: options.httpMaxAge,
    }),
  );
  const swaggerUi = swaggerUiFiles();
  const styles = imagesAsAssets(swaggerUi.css);
  const assets = new Map<string, Document>([
    [`${ASSET_PREFIX}help.css`, { contentType: 'text/css; charset=utf-8', body: HELP_CSS }],
    [`${ASSET_PREFIX}help.js`, { contentType: 'text/javascript; charset=utf-8', body: HELP_JS }],
    [OPENAPI_PATH, { contentType: 'application/json', body: openApi }],
    [API_REFERENCE_PATH, html(apiReferencePage())],
    [REFERENCE_ASSETS.css, { contentType: 'text/css; charset=utf-8', body: Buffer.from(styles.css, 'utf8') }],
    [REFERENCE_ASSETS.bundle, { contentType: 'text/javascript; charset=utf-8', body: swaggerUi.bundle }],
    [REFERENCE_ASSETS.init, { contentType: 'text/javascript; charset=utf-8', body: API_REFERENCE_JS }],
    ...styles.images.map((image): [string, Document] => [image.path, image]),
  ]);

  return {
    /** The page, asset or description for a GET outside the operation paths, if any. */
    forPath(path: string): Document | undefined {
      if (path === '/') return html(index);
      return assets.get(path);
    },

    /** A refusal of a GET here as a page, for a browser (`prefersHtml`). */
    refusal(error: ScoopError): TextDocument {
      return html(refusalPage(error.code, error.message));
    },

    forEndpoint(req: Addressed, endpoint: Endpoint, query: string): TextDocument {
      const pairs = parseForm(query);
      if (hasTokenField(pairs)) refuseTokenInUrl();
      const keys = new Set(pairs.map((p) => p.name.toLowerCase()));
      const url = `${baseUrl(req, options)}${endpoint.path}`;
      if (keys.has('wsdl')) {
        return {
          contentType: XML,
          body: wsdl.get(endpoint)!.replaceAll(ADDRESS_PLACEHOLDER, escapeAttribute(url)),
        };
      }
      if (keys.has('disco'))
        return { contentType: XML, body: generateDisco(endpoint, options.namespace, url) };
      const op = pairs.find((p) => p.name.toLowerCase() === 'op')?.value;
      if (op !== undefined) {
        const operation = findOperation(endpoint, op);
        if (!operation) {
          throw new ScoopError(
            'UNKNOWN_OPERATION',
            `The operation ${op.slice(0, 100)} is not offered at ${endpoint.path}.`,
          );
        }
        return html(operationPage(operation, options.namespace, options.httpAuth));
      }
      return html(endpointPages.get(endpoint)!);
    },
  };
}

export type DescribeRoutes = ReturnType<typeof createDescribeRoutes>;
